# guest-run-args: --testing --disks 2 --disk-size 64M --smp 2 --timeout 200
# expect-results: 12 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# guest-run-transports: pci mmio
# Issue 26, reset hygiene: a reset that fails. The testing flavour's
# test_reset_fail=1 makes the next re-initialisation fail (a device that
# will not come back); the device silenced for 3 s under fio (guest-lib's
# stall_disk: bus mastering off on virtio-pci, the backend throttled on
# virtio-mmio) with a 2 s disk timeout brings the reset. Then, as the
# policy says, and only then, the requests fail, with EIO (not ETIMEDOUT);
# the disk is dead, nothing is left in flight; an unplug of the dead device
# completes (no hang; on virtio-mmio an unbind from the transport) and its
# virtqueues are deleted once (the failed reset deleted them already:
# virtio-mmio would free its interrupt twice), the other disk serves.
[ "$GUEST_TRANSPORT" = mmio ] || command -v setpci >/dev/null ||
	{ fail prereq "setpci not on PATH (pciutils: make deps)"; exit 0; }
set -- $(sgl_disks)
D=$1 OTHER=$2
P=/sys/module/virtio_blk_sgl/parameters
T=/sys/kernel/tracing
[ -w $P/test_reset_fail ] || { fail prereq "no test_reset_fail parameter (testing flavour?)"; exit 0; }
serial=$(cat /sys/block/$D/serial)
echo 2000 >/sys/block/$D/queue/io_timeout
echo 1 >$T/events/virtio_blk_sgl/virtio_blk_sgl_reset/enable
# every virtqueue deletion, by device (guest-lib)
delvqs_watch
echo 1 >$P/test_reset_fail

timeout 120 fio --name=fail --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randwrite \
	--bsrange=4k-64k --size=16M --iodepth=16 --time_based --runtime=30 \
	--output-format=terse >"$OUT/fio-fail.txt" 2>&1 &
F=$!
mapped_above() { [ "$(sgl_get $D requests_mapped)" -gt "$1" ]; }
wait_for 30 mapped_above 100
stall_disk $D on || fail fail/device-silenced "stall_disk $D on failed"
sleep 3
stall_disk $D off || fail fail/device-back "stall_disk $D off failed"
wait $F
rc=$?
check "fail/fio-ends-with-errors (rc $rc)" [ $rc -ne 0 -a $rc -ne 124 ]
check "fail/errors-are-eio ($(grep -m1 -io 'fio: io_u error.*' "$OUT/fio-fail.txt"))" \
	sh -c 'grep -q "Input/output error" "$1" && ! grep -qi "timed out" "$1"' _ "$OUT/fio-fail.txt"
grep virtio_blk_sgl_reset $T/trace >"$OUT/trace-reset.txt"
check "fail/reset-traced-as-failed ($(head -1 "$OUT/trace-reset.txt" | sed 's/.*virtio_blk_sgl_reset: //'))" \
	grep -q 'virtio_blk_sgl_reset:.*reissued=0 failed=[0-9]* err=-5' "$OUT/trace-reset.txt"
check_eq fail/one-reset 1 "$(sgl_get $D resets)"
check_eq fail/fault-used-up 0 "$(cat $P/test_reset_fail)"
check_eq fail/mapped-equals-completed "$(sgl_get $D requests_mapped)" "$(sgl_get $D requests_completed)"
check_eq fail/nothing-left-in-flight "0 0" "$(cat /sys/block/$D/inflight | tr -s ' ' | sed 's/^ //')"
# 6.1 fails the read; 6.12's blk_mark_disk_dead() also sets the capacity to 0
dd if=/dev/$D of=/dev/null bs=4k count=1 iflag=direct >"$OUT/dd-after.txt" 2>&1
check "fail/new-io-reads-nothing ($(tail -n 1 "$OUT/dd-after.txt"))" \
	sh -c "! grep -q '^[1-9][0-9]*+[0-9]* records in' $OUT/dd-after.txt"
# the serial asks the device: on a dead disk it must fail, not wait forever
timeout 20 cat /sys/block/$D/serial >"$OUT/serial-dead.txt" 2>&1
rc=$?
check "fail/serial-of-dead-disk-fails (rc $rc: $(cat "$OUT/serial-dead.txt"))" [ $rc -ne 0 -a $rc -ne 124 -a $rc -ne 143 ]

# unplug the dead device (remove runs)
unplug_disk "vd${serial#sgl-disk}" $D >"$OUT/device-del.txt"
gone() { [ ! -e /sys/block/$D ]; }
check "unplug/dead-disk-removed" wait_for 60 gone
sleep 1
delvqs_unwatch
grep -o 'vsgl_delvqs:.*vdev=0x[0-9a-f]*' "$OUT/del-vqs-trace.txt" | sed 's/.*vdev=//' | sort | uniq -c >"$OUT/del-vqs.txt"
check "unplug/virtqueues-deleted-once ($(tr -s ' \n' ' ' <"$OUT/del-vqs.txt"))" \
	sh -c '[ "$(wc -l <"$1")" -eq 1 ] && awk "\$1 != 1 { bad = 1 } END { exit bad }" "$1"' _ "$OUT/del-vqs.txt"
fio_check other/disk-serves fio-other.txt --name=other --filename=/dev/$OTHER --direct=1 \
	--ioengine=libaio --rw=randwrite --bsrange=4k-64k --size=4M --iodepth=8 \
	--verify=crc32c --verify_fatal=1
dmesg | grep -E "virtio_blk_sgl|reset" | tail -20 >"$OUT/dmesg.txt"
