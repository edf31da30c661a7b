# guest-run-args: --testing --disks 1 --disk-size 64M --disk-props queue-size=16 --smp 2 --modparams "poll_queues=1 queue_depth=64" --timeout 240
# expect-results: 24 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# Issue 26, poll queues.  A poll queue has no interrupt, so whatever the
# interrupt handler does for the other queues its ->poll must do:
# - full ring: a 16-entry virtqueue under 64 tags (queue_depth=64), io_uring
#   IOPOLL at depth 64: queue_rq fills the ring and stops the hardware queue
#   (the block layer's block_rq_requeue events count the requests it put
#   back); only ->poll can start it again.  fio must finish, with verified
#   data, no timeout and no reset (a stopped queue that nothing restarts
#   holds its requests until a watchdog notices);
# - a reset under polling: bus mastering off for 3 s under polled I/O with a
#   2 s disk timeout; the reset deletes the virtqueues while io_uring keeps
#   polling them.  fio ends clean, the requests were re-issued;
# - a reset that fails (test_reset_fail=1) under polling: the queues stay
#   NULL and polled I/O ends with EIO, without a hang or an oops.
# The testing flavour only for the last part; the data path is the same.
command -v setpci >/dev/null || { fail prereq "setpci not on PATH (pciutils: make deps)"; exit 0; }
D=vsgla
DEV=/dev/$D
T=/sys/kernel/tracing
P=/sys/module/virtio_blk_sgl/parameters
[ -d /sys/block/$D/sgl ] || { fail prereq "no /sys/block/$D/sgl"; exit 0; }
[ -w $P/test_reset_fail ] || { fail prereq "no test_reset_fail parameter (testing flavour?)"; exit 0; }
klines=$(dmesg | wc -l)
vdev_of() { basename "$(readlink -f /sys/block/$D/device)"; }
irqs() { awk -v d="$(vdev_of)-" 'index($NF, d) == 1 { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts; }
io_ok() {
	check_eq "$1/mapped-equals-completed" "$(sgl_get $D requests_mapped)" "$(sgl_get $D requests_completed)"
	check_eq "$1/no-io-errors" 0 "$(sgl_get $D io_errors)"
}
slot=$(basename "$(readlink -f /sys/block/$D/device/..)")
cmd0=$(setpci -s "$slot" COMMAND)
nomaster=$(printf '%04x' $((0x$cmd0 & ~4)))

# -- the setup, from QEMU's side and the block layer's
qtree=$(hmp "info qtree" | grep -A80 'id "vd0"' | grep -m1 'queue-size')
echo "qtree: $qtree" >"$OUT/setup.txt"
check "ring/virtqueue-16-entries ($(echo $qtree))" sh -c "echo '$qtree' | grep -q 'queue-size = 16'"
check_eq ring/tags-64 64 "$(cat /sys/block/$D/queue/nr_requests)"
check_eq ring/io-poll-offered 1 "$(cat /sys/block/$D/queue/io_poll)"
echo none >/sys/block/$D/queue/scheduler

# -- full ring
echo 1 >$T/events/block/block_rq_requeue/enable
echo >$T/trace
i0=$(irqs) r0=$(sgl_get $D resets)
timeout 120 fio --name=full --filename=$DEV --direct=1 --rw=randwrite --bs=4k --size=8M --offset=0 \
	--ioengine=io_uring --hipri=1 --iodepth=64 --iodepth_batch_submit=64 --verify=crc32c \
	--output="$OUT/full.txt" 2>"$OUT/full.err"
rc=$?
echo 0 >$T/events/block/block_rq_requeue/enable
requeued=$(grep -c "block_rq_requeue: $(cat /sys/block/$D/dev | tr : ,)" $T/trace)
check "ring/iopoll-fio-verifies (rc $rc$([ $rc = 124 ] && echo ': hung'))" [ $rc = 0 ]
check "ring/ring-was-full ($requeued requests put back)" [ "$requeued" -gt 0 ]
check "ring/polled ($(($(irqs) - i0)) interrupts)" [ $(($(irqs) - i0)) -le 2 ]
check_eq ring/no-reset "$r0" "$(sgl_get $D resets)"
io_ok ring

# -- a reset under polling
echo 2000 >/sys/block/$D/queue/io_timeout
echo 1 >$T/events/virtio_blk_sgl/virtio_blk_sgl_reset/enable
echo >$T/trace
r0=$(sgl_get $D resets)
timeout 150 fio --name=reset --filename=$DEV --direct=1 --rw=randwrite --bs=4k --size=8M --offset=16M \
	--ioengine=io_uring --hipri=1 --iodepth=16 --verify=crc32c --verify_fatal=1 --loops=4 \
	--output="$OUT/reset.txt" 2>"$OUT/reset.err" &
F=$!
mapped_above() { [ "$(sgl_get $D requests_mapped)" -gt "$1" ]; }
wait_for 30 mapped_above $(($(sgl_get $D requests_mapped) + 200))
c0=$(sgl_get $D requests_completed)
setpci -s "$slot" COMMAND=$nomaster
sleep 3
c1=$(sgl_get $D requests_completed)
setpci -s "$slot" COMMAND=$cmd0
wait $F
rc=$?
echo "completed $c0 -> $c1 without bus mastering" >>"$OUT/setup.txt"
check "reset/iopoll-fio-verifies (rc $rc$([ $rc = 124 ] && echo ': hung'))" [ $rc = 0 ]
check "reset/device-reset ($(($(sgl_get $D resets) - r0)))" [ $(($(sgl_get $D resets) - r0)) -ge 1 ]
check "reset/reissued ($(grep -m1 -o 'resets=.*' $T/trace))" grep -q 'virtio_blk_sgl_reset:.*reissued=[1-9][0-9]* failed=0 err=0' $T/trace
io_ok reset
dd if=$DEV of=/dev/null bs=4k count=256 iflag=direct status=none
check_eq reset/disk-serves-after 0 $?

# -- a reset that fails, under polling
echo 1 >$P/test_reset_fail
echo >$T/trace
timeout 120 fio --name=fail --filename=$DEV --direct=1 --rw=randwrite --bs=4k --size=8M --offset=32M \
	--ioengine=io_uring --hipri=1 --iodepth=16 --time_based --runtime=30 \
	--output="$OUT/fail.txt" 2>"$OUT/fail.err" &
F=$!
wait_for 30 mapped_above $(($(sgl_get $D requests_mapped) + 100))
setpci -s "$slot" COMMAND=$nomaster
sleep 3
setpci -s "$slot" COMMAND=$cmd0
wait $F
rc=$?
check "fail/iopoll-fio-ends-with-errors (rc $rc$([ $rc = 124 ] && echo ': hung'))" [ $rc -ne 0 -a $rc -ne 124 ]
check "fail/errors-are-eio ($(cat "$OUT/fail.txt" "$OUT/fail.err" | grep -m1 -o 'io_u error.*' | cut -c1-80))" \
	sh -c 'cat "$1" "$2" | grep -q "Input/output error"' _ "$OUT/fail.txt" "$OUT/fail.err"
check "fail/reset-traced-as-failed" grep -q 'virtio_blk_sgl_reset:.*reissued=0 failed=[0-9]* err=' $T/trace
check_eq fail/fault-used-up 0 "$(cat $P/test_reset_fail)"
check_eq fail/mapped-equals-completed "$(sgl_get $D requests_mapped)" "$(sgl_get $D requests_completed)"
check_eq fail/nothing-left-in-flight "0 0" "$(cat /sys/block/$D/inflight | tr -s ' ' | sed 's/^ //')"
# polled I/O on the dead disk: an error at once, no poll of a NULL queue
timeout 30 fio --name=dead --filename=$DEV --direct=1 --rw=read --bs=4k --size=1M --offset=0 \
	--ioengine=io_uring --hipri=1 --iodepth=4 --output="$OUT/dead.txt" 2>"$OUT/dead.err"
rc=$?
check "fail/polled-io-on-dead-disk-fails (rc $rc)" [ $rc -ne 0 -a $rc -ne 124 ]
timeout 60 sh -c 'echo 1 >/sys/bus/pci/devices/'"$slot"'/remove'
check_eq fail/dead-disk-unplugs 0 $?

bad=$(dmesg | tail -n +$((klines + 1)) | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace|blocked for more than')
check "kernel-clean${bad:+ ($bad)}" [ -z "$bad" ]
