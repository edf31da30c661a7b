# guest-run-args: --testing --disks 3 --disk-size 64M --smp 2 --timeout 240
# expect-results: 20 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# Issue 26, reset hygiene: a device unplugged, or one that vanishes, while
# a reset is in progress. The testing flavour's test_reset_hold_ms holds
# every reset between deleting the old virtqueues and setting the device up
# again (its message also says whether the reset's allocations are noio, as
# the task's own flags say); bus mastering off for 3 s under fio with a 2 s
# disk timeout brings the reset.
# - present: QEMU's device_del (ACPI unplug: remove runs) during the hold,
#   the device still there: the reset succeeds, re-issues, the unplug
#   completes and deletes each set of virtqueues once (the reset's old set,
#   then remove's new one: two deletions).
# - vanish: memory decoding off during the hold (its BAR reads 0, writes go
#   nowhere: QEMU's closest to a device pulled out), then device_del: the
#   reset fails (err -19), fio ends with EIO, the unplug completes (no
#   hang), and the virtqueues are deleted once (the reset's; remove must
#   not delete them again: virtio-mmio frees its interrupt twice there).
# The third disk serves throughout.
command -v setpci >/dev/null || { fail prereq "setpci not on PATH (pciutils: make deps)"; exit 0; }
set -- $(sgl_disks)
A=$1 B=$2 OTHER=$3
P=/sys/module/virtio_blk_sgl/parameters
T=/sys/kernel/tracing
[ -w $P/test_reset_hold_ms ] || { fail prereq "no test_reset_hold_ms parameter (testing flavour?)"; exit 0; }
klines=$(dmesg | wc -l)
echo 1 >$T/events/virtio_blk_sgl/virtio_blk_sgl_reset/enable
# every virtqueue deletion, by device (guest-lib)
delvqs_watch
echo 6000 >$P/test_reset_hold_ms

# vdev_of DISK: the virtio device's address, as the kprobe prints it
vdev_of() { sed -n 's/.*vsgl_delvqs:.*vdev=\(0x[0-9a-f]*\).*/\1/p' "$OUT/del-vqs-trace.txt" | sort -u; }
held() { dmesg | tail -n +$((klines + 1)) | grep -q "test_reset_hold_ms: reset held"; }
gone() { [ ! -e /sys/block/$1 ]; }
mapped_above() { [ "$(sgl_get $1 requests_mapped)" -gt "$2" ]; }

# reset_and_unplug PART DISK VANISH: fio on DISK, bus mastering off until a
# reset is held, then (VANISH=1) memory decoding off, then device_del
reset_and_unplug() {
	part=$1 d=$2 vanish=$3
	serial=$(cat /sys/block/$d/serial)
	slot=$(basename "$(readlink -f /sys/block/$d/device/..)")
	cmd0=$(setpci -s "$slot" COMMAND)
	echo 2000 >/sys/block/$d/queue/io_timeout
	timeout 120 fio --name=$part --filename=/dev/$d --direct=1 --ioengine=libaio --rw=randwrite \
		--bsrange=4k-64k --size=16M --iodepth=16 --time_based --runtime=40 \
		--output-format=terse >"$OUT/fio-$part.txt" 2>&1 &
	F=$!
	wait_for 30 mapped_above $d 100
	klines=$(dmesg | wc -l)
	setpci -s "$slot" COMMAND=$(printf '%04x' $((0x$cmd0 & ~4)))
	wait_for 30 held
	msg=$(dmesg | tail -n +$((klines + 1)) | grep -m1 -o "test_reset_hold_ms: reset held.*")
	check "$part/reset-held ($msg)" [ -n "$msg" ]
	check "$part/reset-allocations-noio" sh -c 'echo "$1" | grep -q "allocations noio$"' _ "$msg"
	if [ "$vanish" = 1 ]; then
		setpci -s "$slot" COMMAND=$(printf '%04x' $((0x$cmd0 & ~2)))
	else
		setpci -s "$slot" COMMAND=$cmd0
	fi
	hmp "device_del vd${serial#sgl-disk}" >"$OUT/device-del-$part.txt"
	check "$part/unplugged-during-the-hold" sh -c '! dmesg | tail -n +$(('"$klines"' + 1)) | grep -q "test_reset_hold_ms: reset goes on"'
	check "$part/disk-removed" wait_for 60 gone $d
	wait $F
	echo $? >"$OUT/fio-$part.rc"
}

reset_and_unplug present $B 0
grep virtio_blk_sgl_reset $T/trace >"$OUT/trace-reset.txt"
check "present/reset-succeeded-and-reissued ($(sed 's/.*virtio_blk_sgl_reset: //' "$OUT/trace-reset.txt" | tr '\n' ' '))" \
	grep -q 'virtio_blk_sgl_reset:.*reissued=[1-9][0-9]* failed=0 err=0' "$OUT/trace-reset.txt"
check "present/fio-ended (rc $(cat "$OUT/fio-present.rc"))" [ "$(cat "$OUT/fio-present.rc")" != 124 ]
sleep 1
vdev_b=$(vdev_of)
check "present/virtqueues-deleted-twice-reset-and-remove ($(grep -c vsgl_delvqs "$OUT/del-vqs-trace.txt") for ${vdev_b:-none})" \
	sh -c '[ "$(echo "$1" | wc -w)" = 1 ] && [ "$(grep -c "vdev=$1" "$2")" = 2 ]' _ "$vdev_b" "$OUT/del-vqs-trace.txt"

: >$T/trace
reset_and_unplug vanish $A 1
rc=$(cat "$OUT/fio-vanish.rc")
check "vanish/fio-ends-with-errors (rc $rc)" [ "$rc" -ne 0 -a "$rc" -ne 124 ]
check "vanish/errors-are-eio ($(grep -m1 -o 'error=[^,]*' "$OUT/fio-vanish.txt"))" \
	sh -c 'grep -q "Input/output error" "$1" && ! grep -qi "timed out" "$1"' _ "$OUT/fio-vanish.txt"
grep virtio_blk_sgl_reset $T/trace >"$OUT/trace-reset-vanish.txt"
check "vanish/reset-traced-as-failed ($(sed 's/.*virtio_blk_sgl_reset: //' "$OUT/trace-reset-vanish.txt" | tr '\n' ' '))" \
	grep -q 'virtio_blk_sgl_reset:.*reissued=0 failed=[0-9]* err=-19' "$OUT/trace-reset-vanish.txt"
check "vanish/disk-dead-logged" sh -c 'dmesg | grep -q "reset failed (-19): disk is dead"'
sleep 1
delvqs_unwatch
vdev_a=$(vdev_of | grep -v -x -F "${vdev_b:-none}")
check "vanish/virtqueues-deleted-once ($(grep -c vsgl_delvqs "$OUT/del-vqs-trace.txt") in all, ${vdev_a:-none})" \
	sh -c '[ "$(echo "$1" | wc -w)" = 1 ] && [ "$(grep -c "vdev=$1" "$2")" = 1 ]' _ "$vdev_a" "$OUT/del-vqs-trace.txt"
echo 0 >$P/test_reset_hold_ms

check_eq other/no-reset 0 "$(sgl_get $OTHER resets)"
fio_check other/disk-serves fio-other.txt --name=other --filename=/dev/$OTHER --direct=1 \
	--ioengine=libaio --rw=randwrite --bsrange=4k-64k --size=4M --iodepth=8 \
	--verify=crc32c --verify_fatal=1
check other/module-unloads timeout 60 rmmod virtio_blk_sgl
bad=$(dmesg | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace|blocked for more than|already-free')
check "kernel-clean${bad:+ ($bad)}" [ -z "$bad" ]
dmesg | grep -E "virtio_blk_sgl|reset|hold" | tail -30 >"$OUT/dmesg.txt"
