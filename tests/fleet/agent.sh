#!/bin/sh
# The fleet lane's agent, inside a booted fleet host (fleet-agent.service
# runs it from the lane's 9p share, /mnt/fleet, after multi-user.target).
# Facts come from the host itself: findmnt, blkid, /sys, systemctl, udev's
# links. Results go to /mnt/fleet/results-BOOT; the lane (tests/fleet/run)
# talks to it with files in the share: it waits for go-data (host a: attach
# a data disk, move it, reboot) or stop (host b: power off).
S=/mnt/fleet
. $S/env # NAME ROOT_SERIAL DATA_SERIAL KVER
if [ -e $S/boot1.done ]; then B=2; else B=1; fi
exec >$S/agent-$B.log 2>&1
set -x
R=$S/results-$B
: >$R
pass() { echo "PASS: fleet/$NAME/boot$B/$1" >>$R; }
fail() { echo "FAIL: fleet/$NAME/boot$B/$1: $2" >>$R; }
check() { # name why command...
	n=$1 w=$2
	shift 2
	if "$@"; then pass "$n"; else fail "$n" "$w"; fi
}
wait_file() { # file seconds
	n=0
	while [ ! -e "$S/$1" ]; do
		n=$((n + 1))
		[ $n -le "$2" ] || return 1
		sleep 1
	done
}
link_is() { [ "$(readlink -f "$1")" = "$2" ]; }
dev_unit_active() { systemctl is-active -q "$(systemd-escape -p --suffix=device "$1")"; }

check kernel "running $(uname -r), booted for $KVER" [ "$(uname -r)" = "$KVER" ]
state=$(systemctl is-system-running --wait)
check system-running "is-system-running says $state" [ "$state" = running ]
check multi-user-target "multi-user.target not active" systemctl is-active -q multi-user.target
failed=$(systemctl list-units --failed --plain --no-legend | awk '{print $1}' | tr '\n' ' ')
check no-failed-units "failed units: $failed" [ -z "$failed" ]

src=$(findmnt -no SOURCE /)
uuid=$(blkid -s UUID -o value "$src")
disk=${src#/dev/}
case $src in /dev/vsgl*) pass root-on-vsgl ;; *) fail root-on-vsgl "/ is mounted from $src" ;; esac
check root-by-uuid-cmdline "no root=UUID=$uuid in /proc/cmdline: $(cat /proc/cmdline)" grep -qw "root=UUID=$uuid" /proc/cmdline
check root-uuid-findmnt "findmnt: $(findmnt -no UUID /), blkid: $uuid" [ "$(findmnt -no UUID /)" = "$uuid" ]
drv=$(basename "$(readlink "/sys/block/$disk/device/driver")")
check root-driver-virtio_blk_sgl "$disk is driven by $drv" [ "$drv" = virtio_blk_sgl ]
check virtio_blk-not-loaded "virtio_blk is loaded" sh -c '! grep -q "^virtio_blk " /proc/modules'
check by-uuid-root "by-uuid/$uuid -> $(readlink -f /dev/disk/by-uuid/$uuid)" link_is "/dev/disk/by-uuid/$uuid" "$src"
check by-id-root "by-id/virtio-$ROOT_SERIAL -> $(readlink -f /dev/disk/by-id/virtio-$ROOT_SERIAL)" \
	link_is "/dev/disk/by-id/virtio-$ROOT_SERIAL" "$src"
check by-label-root "by-label/fleet-root -> $(readlink -f /dev/disk/by-label/fleet-root)" link_is /dev/disk/by-label/fleet-root "$src"
p=
for l in /dev/disk/by-path/pci-*; do link_is "$l" "$src" && p=$l; done
check by-path-root "no by-path/pci-* link to $src" [ -n "$p" ]
check by-path-virtio-root "no by-path/virtio-pci-* link" link_is "/dev/disk/by-path/virtio-${p#/dev/disk/by-path/}" "$src"
check by-uuid-device-unit "systemd has no active device unit for by-uuid/$uuid" dev_unit_active "/dev/disk/by-uuid/$uuid"
check module-from-dkms "modinfo: $(modinfo -F filename virtio_blk_sgl)" sh -c 'modinfo -F filename virtio_blk_sgl | grep -q /updates/dkms/'

if [ $B = 1 ]; then
	# the README's steps on a running host
	if (set -e; . $S/fleet.sh) >$S/readme-fleet.log 2>&1; then pass readme-fleet; else fail readme-fleet "a README fleet command failed (readme-fleet.log)"; fi
fi
check sglstat-active "sglstat.service is $(systemctl is-active sglstat.service)" systemctl is-active -q sglstat.service
check sglstat-enabled "sglstat.service is $(systemctl is-enabled sglstat.service)" systemctl is-enabled -q sglstat.service
n=0
while [ ! -s /var/lib/prometheus/node-exporter/virtio_blk_sgl.prom ] && [ $n -lt 60 ]; do sleep 1; n=$((n + 1)); done
check sglstat-textfile "no virtio_blk_sgl.prom after 60 s" [ -s /var/lib/prometheus/node-exporter/virtio_blk_sgl.prom ]
# traffic on the root disk, so that the counters Prometheus sees move
(while :; do dd if="$src" of=/dev/null bs=64k count=32 iflag=direct 2>/dev/null; sleep 1; done) &

if [ $B = 1 ] && [ "$NAME" = a ]; then
	touch $S/boot1.ready
	wait_file go-data 900 || exit 1
	# A data disk served by the in-tree driver first: this host blacklists
	# virtio_blk and virtio_blk_sgl would take any new disk, so the disk is
	# attached with the bus's autoprobe off and bound to virtio_blk by hand.
	echo 0 >/sys/bus/virtio/drivers_autoprobe
	modprobe virtio_blk
	ls /sys/bus/virtio/devices >/tmp/before
	touch $S/want-disk
	wait_file disk-added 120
	new=
	n=0
	while [ -z "$new" ] && [ $n -lt 60 ]; do
		new=$(ls /sys/bus/virtio/devices | grep -vxF -f /tmp/before | head -1)
		[ -n "$new" ] || sleep 1
		n=$((n + 1))
	done
	echo "$new" >/sys/bus/virtio/drivers/virtio_blk/bind
	echo 1 >/sys/bus/virtio/drivers_autoprobe
	udevadm settle
	check data-on-virtio_blk "no /dev/vda1 after binding $new to virtio_blk" [ -b /dev/vda1 ]
	duuid=$(blkid -s UUID -o value /dev/vda1)
	echo "UUID=$duuid /data ext4 defaults 0 2" >>/etc/fstab
	systemctl daemon-reload
	mount /data
	check data-mounted-from-vda1 "/data is on $(findmnt -no SOURCE /data)" [ "$(findmnt -no SOURCE /data)" = /dev/vda1 ]
	if (set -e; . $S/fleet-data.sh) >$S/readme-fleet-data.log 2>&1; then pass readme-fleet-data; else fail readme-fleet-data "a README fleet-data command failed (readme-fleet-data.log)"; fi
	dsrc=$(findmnt -no SOURCE /data)
	case $dsrc in /dev/vsgl*) pass data-moved-to-vsgl ;; *) fail data-moved-to-vsgl "/data is on $dsrc" ;; esac
	check by-uuid-data-after-move "by-uuid/$duuid -> $(readlink -f /dev/disk/by-uuid/$duuid)" link_is "/dev/disk/by-uuid/$duuid" "$dsrc"
	echo "$duuid" >$S/data.uuid.seen
	sync
	touch $S/boot1.done
	systemctl reboot
elif [ $B = 1 ]; then
	touch $S/boot1.ready
	wait_file stop 900
	touch $S/boot1.done
	systemctl poweroff
else
	# after the reboot: the data disk's UUID= line in fstab found it again
	duuid=$(cat $S/data.uuid.seen)
	dsrc=$(findmnt -no SOURCE /data)
	case $dsrc in /dev/vsgl*) pass data-mounted-from-vsgl ;; *) fail data-mounted-from-vsgl "/data is mounted from '$dsrc'" ;; esac
	check data-mount-unit-active "data.mount is $(systemctl is-active data.mount)" systemctl is-active -q data.mount
	check data-uuid "findmnt: $(findmnt -no UUID /data)" [ "$(findmnt -no UUID /data)" = "$duuid" ]
	check data-content "marker: $(cat /data/marker)" grep -q "^fleet data $duuid\$" /data/marker
	ddisk=$(basename "$(readlink -f "/sys/class/block/${dsrc#/dev/}/..")")
	check by-uuid-data "by-uuid/$duuid -> $(readlink -f /dev/disk/by-uuid/$duuid)" link_is "/dev/disk/by-uuid/$duuid" "$dsrc"
	check by-label-data "by-label/fleet-data -> $(readlink -f /dev/disk/by-label/fleet-data)" link_is /dev/disk/by-label/fleet-data "$dsrc"
	puuid=$(blkid -s PARTUUID -o value "$dsrc")
	check by-partuuid-data "by-partuuid/$puuid -> $(readlink -f /dev/disk/by-partuuid/$puuid)" link_is "/dev/disk/by-partuuid/$puuid" "$dsrc"
	check by-partlabel-data "by-partlabel/fleet-data" link_is /dev/disk/by-partlabel/fleet-data "$dsrc"
	check by-id-data-part "by-id/virtio-$DATA_SERIAL-part1 -> $(readlink -f /dev/disk/by-id/virtio-$DATA_SERIAL-part1)" \
		link_is "/dev/disk/by-id/virtio-$DATA_SERIAL-part1" "$dsrc"
	check by-id-data-disk "by-id/virtio-$DATA_SERIAL -> $(readlink -f /dev/disk/by-id/virtio-$DATA_SERIAL)" \
		link_is "/dev/disk/by-id/virtio-$DATA_SERIAL" "/dev/$ddisk"
	p=
	for l in /dev/disk/by-path/pci-*-part1; do link_is "$l" "$dsrc" && p=$l; done
	check by-path-data-part "no by-path/pci-*-part1 link to $dsrc" [ -n "$p" ]

	# Those links come from our rule and from nothing else: masked (a
	# /dev/null of its name in /etc/udev/rules.d), a change event leaves the
	# data disk without them; unmasked, the next one brings them back. /data
	# is unmounted meanwhile, its mount unit being bound to the device unit
	# of the by-uuid link.
	dlinks="by-uuid=/dev/disk/by-uuid/$duuid by-label=/dev/disk/by-label/fleet-data by-partuuid=/dev/disk/by-partuuid/$puuid
		by-id-part=/dev/disk/by-id/virtio-$DATA_SERIAL-part1 by-id-disk=/dev/disk/by-id/virtio-$DATA_SERIAL"
	relink() {
		udevadm control --reload
		udevadm trigger --action=change --settle "$dsrc" "/dev/$ddisk"
	}
	systemctl stop data.mount
	ln -s /dev/null /etc/udev/rules.d/60-virtio-blk-sgl.rules
	relink
	check rule-masked/fs-still-there "blkid on $dsrc: '$(blkid -s UUID -o value "$dsrc")'" \
		[ "$(blkid -s UUID -o value "$dsrc")" = "$duuid" ]
	for l in $dlinks; do
		check "rule-masked/no-${l%%=*}-data" "${l#*=} -> $(readlink -f "${l#*=}")" sh -c "[ ! -e '${l#*=}' ] && [ ! -L '${l#*=}' ]"
	done
	rm /etc/udev/rules.d/60-virtio-blk-sgl.rules
	relink
	for l in $dlinks; do
		want=$dsrc
		[ "${l%%=*}" = by-id-disk ] && want=/dev/$ddisk
		check "rule-restored/${l%%=*}-data" "${l#*=} -> $(readlink -f "${l#*=}")" link_is "${l#*=}" "$want"
	done
	systemctl start data.mount
	check rule-restored/data-mounted-by-uuid "/data is on '$(findmnt -no SOURCE /data)'" [ "$(findmnt -no SOURCE /data)" = "$dsrc" ]
	sync
	touch $S/boot2.done
	systemctl poweroff
fi
