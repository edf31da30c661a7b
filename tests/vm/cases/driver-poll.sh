# guest-run-args: --disks 1 --disk-size 64M --smp 2 --modparams "poll_queues=1" --timeout 300
# expect-results: 24 (at least; tests/vm/run-cases fails the case with fewer result lines)
# expect-results@6.12: 22
# guest-run-kernels: 6.1 6.12
# Polled I/O on a poll queue (poll_queues=1: of the disk's two request
# queues the second has no interrupt and is reaped by mq_ops->poll), as on
# the in-tree virtio_blk: the block layer offers polling (queue/io_poll),
# fio's io_uring --hipri (IOPOLL: classic polling, and hybrid where the
# kernel still has it; completions in batches) verifies its data and the
# disk's interrupts do not move while it runs: the completions came from
# polling; pvsync2 --hipri works (on interrupts: the kernel does not poll
# synchronous I/O).  Then the same module without poll queues
# (the control): the same hipri and IOPOLL runs take interrupts, so the
# interrupt oracle can tell the two apart.
D=vsgla
DEV=/dev/$D
Q=/sys/block/$D/queue
for t in fio; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done
[ -d /sys/block/$D/sgl ] || { fail prereq "no /sys/block/$D/sgl"; exit 1; }
klines=$(dmesg | wc -l)

# interrupts of the disk's virtio device (all its vectors, all CPUs)
vdev_of() { basename "$(readlink -f /sys/block/$D/device)"; }
irqs() { awk -v d="$(vdev_of)-" 'index($NF, d) == 1 { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i } END { print s + 0 }' /proc/interrupts; }
io_ok() { # NAME: mapped == completed, no errors
	check_eq "$1/all-completed" "$(sgl_get $D requests_mapped)" "$(sgl_get $D requests_completed)"
	check_eq "$1/no-io-errors" 0 "$(sgl_get $D io_errors)"
}
# polled NAME FIO-ARGS...: a verified polled fio run (--hipri after the
# --ioengine it belongs to); the interrupts it caused
polled() {
	_n=$1
	shift
	_i0=$(irqs)
	fio --name="$_n" --filename=$DEV --direct=1 --rw=randwrite --bs=4k --size=4M --offset=8M \
		--verify=crc32c "$@" --hipri=1 --output="$OUT/$_n.txt" 2>"$OUT/$_n.err"
	_rc=$?
	IRQ_DELTA=$(($(irqs) - _i0))
	return $_rc
}

check_eq poll-queues-param 1 "$(cat /sys/module/virtio_blk_sgl/parameters/poll_queues)"
check_eq hw-queues 2 "$(sgl_get $D nr_hw_queues)"
check_eq io-poll-offered 1 "$(cat $Q/io_poll)"
check "poll-queue-has-no-interrupt ($(grep -c "$(vdev_of)-req" /proc/interrupts) request vectors)" \
	[ "$(grep -c "$(vdev_of)-req" /proc/interrupts)" = 1 ]

# io_uring's IOPOLL is what polls (since 5.16 the kernel runs a synchronous
# RWF_HIPRI read or write, pvsync2 --hipri, on interrupts like any other)
check_eq classic-delay -1 "$(cat $Q/io_poll_delay)"
polled uring --ioengine=io_uring --iodepth=16
check_eq io_uring-iopoll-verify 0 $?
check "io_uring-iopoll-no-interrupts ($IRQ_DELTA)" [ "$IRQ_DELTA" -le 2 ]
# hybrid polling (io_poll_delay 0: sleep about half a completion time
# first) where the kernel still has it: 6.1 (6.12 keeps the file, reads -1)
if echo 0 >$Q/io_poll_delay 2>/dev/null && [ "$(cat $Q/io_poll_delay)" = 0 ]; then
	polled hybrid --ioengine=io_uring --iodepth=4
	check_eq hybrid-iopoll-verify 0 $?
	check "hybrid-iopoll-no-interrupts ($IRQ_DELTA)" [ "$IRQ_DELTA" -le 2 ]
	echo -1 >$Q/io_poll_delay
fi
polled pvsync2 --ioengine=pvsync2
check_eq "pvsync2-hipri-verify ($IRQ_DELTA interrupts)" 0 $?
# interrupt-driven I/O next to polled I/O, on the other queue
fio --name=irq --filename=$DEV --direct=1 --rw=randwrite --bs=16k --size=4M --offset=16M --ioengine=libaio \
	--iodepth=8 --verify=crc32c --output="$OUT/irq.txt" &
fp=$!
polled mixed --ioengine=io_uring --iodepth=8
check_eq polled-next-to-interrupts-verify 0 $?
wait $fp
check_eq interrupt-io-next-to-polled-verify 0 $?
io_ok poll

# the control: no poll queue, no polling
sgl_unload
sgl_load || { fail reload "insmod without poll_queues failed"; exit 0; }
wait_for 10 test -b $DEV
check_eq control-io-poll-off 0 "$(cat $Q/io_poll)"
# IOPOLL on a queue without polling: 6.1 falls back to interrupts, 6.12
# refuses it (EOPNOTSUPP); never polled completions
polled control-uring --ioengine=io_uring --iodepth=16
rc=$?
if [ $rc = 0 ]; then
	check "control-io_uring-takes-interrupts ($IRQ_DELTA)" [ "$IRQ_DELTA" -gt 50 ]
else
	check "control-io_uring-iopoll-refused (rc $rc)" grep -q 'Operation not supported' "$OUT/control-uring.err"
fi
polled control-pvsync2 --ioengine=pvsync2
check_eq "control-pvsync2-hipri-verify ($IRQ_DELTA interrupts)" 0 $?

# batched submission (mq_ops->queue_rqs): libaio hands the block layer 16
# requests per io_submit under one plug, which (scheduler none) goes to
# queue_rqs at once; a kprobe counts the calls.  The kprobe goes in and out
# with CPU 1 offline: patching kernel text while the other vCPU ran hung a
# TCG guest here (its int3 never retired).
T=/sys/kernel/tracing
CPU1=/sys/devices/system/cpu/cpu1/online
one_cpu() { echo 0 >$CPU1; }
two_cpus() { echo 1 >$CPU1; }
echo none >$Q/scheduler
one_cpu
echo 'p:vsgl_qrs vsgl_queue_rqs' >>$T/kprobe_events
echo >$T/trace
echo 1 >$T/events/kprobes/vsgl_qrs/enable
two_cpus
m0=$(sgl_get $D requests_mapped) b0=$(blk_ios $D)
fio --name=batch --filename=$DEV --direct=1 --rw=randwrite --bs=4k --size=4M --offset=24M --ioengine=libaio \
	--iodepth=32 --iodepth_batch_submit=16 --iodepth_batch_complete_min=1 --verify=crc32c --output="$OUT/batch.txt"
check_eq queue_rqs-fio-verify 0 $?
one_cpu
echo 0 >$T/events/kprobes/vsgl_qrs/enable
calls=$(grep -c 'vsgl_qrs:' $T/trace)
echo '-:vsgl_qrs' >>$T/kprobe_events
two_cpus
check_eq cpu1-online-again 1 "$(cat $CPU1)"
check "queue_rqs-used ($calls calls)" [ "$calls" -gt 10 ]
check_eq queue_rqs/mapped-equals-block-layer $(($(blk_ios $D) - b0)) $(($(sgl_get $D requests_mapped) - m0))
io_ok queue_rqs

bad=$(dmesg | tail -n +$((klines + 1)) | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace|blocked for more than')
check "kernel-clean${bad:+ ($bad)}" [ -z "$bad" ]
