# Helpers of the fleet lane (tests/fleet/run, debs, mkimage): throwaway
# roots as overlays over the cached image root (tests/fleet/mkrootfs).
# shellcheck shell=bash

# ovl_up DIR LOWER[:LOWER2...]: an overlay root at DIR/root whose changes go
# to DIR/upper, with /proc, /sys, /dev of this machine bound in for apt,
# dkms and update-initramfs; the host's resolv.conf for apt-get update.
ovl_up() {
	local d=$1 lower=$2
	mkdir -p "$d/upper" "$d/work" "$d/root"
	mount -t overlay overlay -o "lowerdir=$lower,upperdir=$d/upper,workdir=$d/work" "$d/root" || return 1
	mount --bind /proc "$d/root/proc" && mount --bind /sys "$d/root/sys" &&
		mount --bind /dev "$d/root/dev" && mount --bind /dev/pts "$d/root/dev/pts" || return 1
	cp /etc/resolv.conf "$d/root/etc/resolv.conf"
}

# ovl_down DIR: undo ovl_up (DIR/upper stays)
ovl_down() {
	local d=$1 m
	for m in "$d/root/dev/pts" "$d/root/dev" "$d/root/sys" "$d/root/proc" "$d/root"; do
		mountpoint -q "$m" && umount -l "$m"
	done
	return 0
}

# in_root DIR CMD...: run CMD in the overlay root, as apt would on a host
in_root() {
	local d=$1
	shift
	chroot "$d/root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# snapshot DIR: every path of the root but the volatile ones and dpkg/apt's
# own books, with its type and a symlink's target
snapshot() {
	in_root "$1" find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
		-o -path /var/cache -o -path /var/log -o -path /var/lib/dpkg -o -path /var/lib/apt \) -prune \
		-o -printf '%y %p %l\n' | sort
}

# pvh_kernel BZIMAGE: the file to boot, the ELF vmlinux inside the bzImage,
# entered through its PVH note (as tests/vm/guest-run does: under TCG the
# guest's own decompressor costs seconds); the bzImage itself if that fails.
pvh_kernel() {
	local off
	off=$(LC_ALL=C grep -abo -m1 "$(printf '\xfd7zXZ')" "$1" | head -1 | cut -d: -f1)
	if [ -n "$off" ] && tail -c +$((off + 1)) "$1" | xz -dc 2>/dev/null >"$1.elf" &&
		readelf -n "$1.elf" 2>/dev/null | grep -q 'Xen.*0x00000012\|PHYS32_ENTRY'; then
		echo "$1.elf"
	else
		echo "$1"
	fi
}

# free_port FROM: the first loopback TCP port >= FROM nothing listens on
free_port() {
	local p=$1
	while ss -Htln "sport = :$p" | grep -q .; do p=$((p + 1)); done
	echo "$p"
}
