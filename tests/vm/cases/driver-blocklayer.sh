# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 300
# expect-results: 40 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# guest-run-share: yes
# What the block layer's own suites (blktests, xfstests' discard and fsync
# tests) do to a disk, on a virtio_blk_sgl disk: discards and zeroing of
# many sizes and alignments (split by a lowered discard_max_bytes), a storm
# of flushes from concurrent fsync writers, switching the I/O scheduler under
# I/O, taking CPU 1 away and back under I/O, and a disk set read-only with
# blockdev --setro.  The oracles are the block layer's own: /sys/block/D/stat
# (sectors discarded, requests of each kind), fio's verify, the bytes read
# back against a copy kept in guest memory, the errno of a refused write,
# the kernel log.  Everything the case changes (scheduler, discard_max_bytes,
# CPU 1, read-only) is put back: it shares its boot with other cases.
D=vsgla
DEV=/dev/$D
Q=/sys/block/$D/queue
CPU1=/sys/devices/system/cpu/cpu1/online
for t in fio segbuf blockdev cmp; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done
[ -d /sys/block/$D/sgl ] || { fail prereq "no /sys/block/$D/sgl"; exit 1; }
klines=$(dmesg | wc -l)

stat_f() { awk -v f="$1" '{ print $f }' /sys/block/$D/stat; }	# 12-14 discards, 16 flushes
mapped() { sgl_get $D requests_mapped; }
# the driver saw exactly the requests the block layer accounted, all done
accounted() { # NAME MAPPED0 IOS0
	check_eq "$1/mapped-equals-block-layer" $(($(blk_ios $D) - $3)) $(($(mapped) - $2))
	check_eq "$1/all-completed" "$(mapped)" "$(sgl_get $D requests_completed)"
	check_eq "$1/no-io-errors" 0 "$(sgl_get $D io_errors)"
}
sector_copy() { dd if="$1" of="$2" bs=512 skip="$3" seek="$3" count="$4" conv=notrunc 2>/dev/null; }

# ---- 1. discard and zeroing: sizes and alignments in 512-byte sectors,
# over a pattern in the first 16 MiB; what is outside the ranges must read
# back as written, zeroed ranges as zeroes (a discarded range may read back
# anything: the spec promises nothing there)
dd if=/dev/urandom of=/tmp/want bs=1M count=16 2>/dev/null
dd if=/tmp/want of=$DEV bs=1M oflag=direct 2>/dev/null
check discard-advertised [ "$(cat $Q/discard_max_bytes)" -gt 0 ]
dmax0=$(cat $Q/discard_max_bytes)
# 64 KiB per request: a 1 MiB discard is split into 16 by the block layer
echo 65536 >$Q/discard_max_bytes
check_eq discard-max-lowered 65536 "$(cat $Q/discard_max_bytes)"
DISCARDS="1 1:7 9:2047 2:2049 4095:8191 1:8192 2048:10240 127:12000 4000"
m0=$(mapped) b0=$(blk_ios $D) n0=$(stat_f 12) s0=$(stat_f 14)
sum=0 ok=1 nmin=0 nr=0
IFS=: ; for r in $DISCARDS; do
	IFS=' ' ; set -- $r
	segbuf discard $DEV "$1" "$2" || ok=0
	sum=$((sum + $2)) nmin=$((nmin + ($2 + 127) / 128)) nr=$((nr + 1))
done
IFS=' '
check discard-ioctls-succeed [ $ok = 1 ]
check_eq discard-sectors-accounted $sum $(($(stat_f 14) - s0))
# split at 128 sectors: at least one request per 128, at most one more per
# range where the discard granularity moves a boundary
nreq=$(($(stat_f 12) - n0))
check "discard-split-by-max ($nreq requests, $nmin..$((nmin + nr)))" [ $nreq -ge $nmin -a $nreq -le $((nmin + nr)) ]
accounted discard "$m0" "$b0"
echo "$dmax0" >$Q/discard_max_bytes
check_eq discard-max-restored "$dmax0" "$(cat $Q/discard_max_bytes)"
dd if=$DEV of=/tmp/got bs=1M count=16 iflag=direct 2>/dev/null
IFS=: ; for r in $DISCARDS; do
	IFS=' ' ; set -- $r
	sector_copy /tmp/got /tmp/want "$1" "$2"
done
IFS=' '
m0=$(mapped) b0=$(blk_ios $D)
ok=1
for r in "3 1" "17 15" "4095 3" "20000 8192" "30000 1"; do
	set -- $r
	segbuf zeroout $DEV "$1" "$2" || ok=0
	segbuf checkzero $DEV "$1" "$2" || ok=0
	dd if=/dev/zero of=/tmp/want bs=512 seek="$1" count="$2" conv=notrunc 2>/dev/null
done
segbuf punch $DEV 5000 600 || ok=0
segbuf checkzero $DEV 5000 600 || ok=0
dd if=/dev/zero of=/tmp/want bs=512 seek=5000 count=600 conv=notrunc 2>/dev/null
check zeroout-and-punch-read-zero [ $ok = 1 ]
accounted zeroout "$m0" "$b0"
dd if=$DEV of=/tmp/got bs=1M count=16 iflag=direct 2>/dev/null
check "data-outside-ranges-intact ($(cmp /tmp/want /tmp/got 2>&1 | head -1))" cmp -s /tmp/want /tmp/got
rm -f /tmp/want /tmp/got

# ---- 2. a storm of flushes: four writers, an fsync after every write
# /sys/block/D/stat counts each fsync twice (its empty PREFLUSH request as
# a write, the flush request sent for it as a flush), so here the requests
# the driver was handed are counted by the block_rq_issue tracepoint
check_eq write-cache-on "write back" "$(cat $Q/write_cache)"
EV=/sys/kernel/tracing/events/block/block_rq_issue
set -- $(tr ':' ' ' </sys/block/$D/dev)
echo "dev == $((($1 << 20) | $2))" >$EV/filter
echo >/sys/kernel/tracing/trace
echo 1 >$EV/enable
m0=$(mapped) f0=$(stat_f 16)
fio --name=storm --filename=$DEV --rw=randwrite --bs=4k --size=512k --offset=16M --offset_increment=1M \
	--numjobs=4 --ioengine=psync --direct=1 --fsync=1 --verify=crc32c --group_reporting \
	--output="$OUT/flush-storm.txt"
check_eq flush-storm-fio-verify 0 $?
flushes=$(($(stat_f 16) - f0))
# 4 x 128 fsyncs; the flush machinery may merge concurrent ones, never add
check "flush-storm-flushes-issued ($flushes of 512 fsyncs)" [ "$flushes" -gt 0 -a "$flushes" -le 512 ]
echo 0 >$EV/enable
echo 0 >$EV/filter
issued=$(grep -c ' block_rq_issue: ' /sys/kernel/tracing/trace)
check_eq flush-storm/mapped-equals-block_rq_issue "$issued" $(($(mapped) - m0))
check_eq flush-storm/all-completed "$(mapped)" "$(sgl_get $D requests_completed)"
check_eq flush-storm/no-io-errors 0 "$(sgl_get $D io_errors)"
check_eq flush-storm/trace-not-overrun 0 "$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' /sys/kernel/tracing/per_cpu/cpu*/stats)"

# ---- 3. switching the I/O scheduler under I/O
sched0=$(sed 's/.*\[\(.*\)\].*/\1/' $Q/scheduler)
scheds=$(tr -d '[]' <$Q/scheduler)
check "two-schedulers-to-switch ($scheds)" [ "$(echo $scheds | wc -w)" -ge 2 ]
m0=$(mapped) b0=$(blk_ios $D)
fio --name=sched --filename=$DEV --rw=randwrite --bs=16k --size=8M --offset=24M --ioengine=libaio \
	--iodepth=16 --direct=1 --numjobs=2 --offset_increment=8M --verify=crc32c \
	--output="$OUT/sched.txt" &
fp=$!
switches=0 during=0
while kill -0 $fp 2>/dev/null; do
	for s in $scheds; do
		echo "$s" >$Q/scheduler && switches=$((switches + 1))
		kill -0 $fp 2>/dev/null && during=$((during + 1))
		sleep 0.05
	done
done
wait $fp
check_eq sched-switch-fio-verify 0 $?
# a switch counts as under I/O when fio was still running after it
check "sched-switched-under-io ($during of $switches switches)" [ $during -ge 2 ]
echo "$sched0" >$Q/scheduler
check_eq sched-restored "[$sched0]" "$(grep -o "\[$sched0\]" $Q/scheduler)"
accounted sched-switch "$m0" "$b0"

# ---- 4. CPU 1 offline and back under I/O (its hardware queue drains)
if [ -w $CPU1 ]; then
	m0=$(mapped) b0=$(blk_ios $D)
	fio --name=hotplug --filename=$DEV --rw=randwrite --bs=4k --size=8M --offset=40M --ioengine=libaio \
		--iodepth=16 --direct=1 --numjobs=2 --offset_increment=8M --verify=crc32c \
		--output="$OUT/hotplug.txt" &
	fp=$!
	cycles=0 during=0 ok=1
	while kill -0 $fp 2>/dev/null && [ $cycles -lt 20 ]; do
		echo 0 >$CPU1 || ok=0
		sleep 0.1
		kill -0 $fp 2>/dev/null && during=$((during + 1))
		echo 1 >$CPU1 || ok=0
		sleep 0.1
		cycles=$((cycles + 1))
	done
	wait $fp
	check_eq cpu-hotplug-fio-verify 0 $?
	echo 1 >$CPU1
	check_eq cpu-hotplug-writes-ok 1 $ok
	# offline counts as under I/O when fio was still running while CPU 1 was away
	check "cpu-offline-under-io ($during of $cycles cycles)" [ $during -ge 1 ]
	check_eq cpu1-back-online 1 "$(cat $CPU1)"
	# the queue of CPU 1 serves I/O again
	fio --name=cpu1 --filename=$DEV --rw=randwrite --bs=4k --size=1M --offset=56M --ioengine=psync \
		--direct=1 --cpus_allowed=1 --verify=crc32c --output="$OUT/cpu1.txt"
	check_eq cpu1-io-after-replug 0 $?
	accounted cpu-hotplug "$m0" "$b0"
else
	fail cpu-hotplug "$CPU1 is not writable: this guest kernel cannot take CPU 1 offline"
fi

# ---- 5. blockdev --setro: writes are refused before they reach the driver
m0=$(mapped) w0=$(stat_f 5)
blockdev --setro $DEV
check_eq setro-ro-flag 1 "$(cat /sys/block/$D/ro)"
if dd if=/dev/zero of=$DEV bs=4k count=1 seek=100 oflag=direct 2>"$OUT/setro.err"; then
	fail setro-write-refused "dd wrote to a read-only disk"
else
	check "setro-write-refused ($(tail -1 "$OUT/setro.err"))" grep -q -E 'Operation not permitted|Permission denied|Read-only' "$OUT/setro.err"
fi
check_eq setro-no-write-reached-disk "$w0" "$(stat_f 5)"
check_eq setro-nothing-mapped "$m0" "$(mapped)"
check setro-reads-work dd if=$DEV of=/dev/null bs=4k count=4 iflag=direct
blockdev --setrw $DEV
check_eq setrw-ro-flag 0 "$(cat /sys/block/$D/ro)"
check setrw-write-works dd if=/dev/zero of=$DEV bs=4k count=1 seek=100 oflag=direct

# ---- the kernel said nothing bad while this case ran
bad=$(dmesg | tail -n +$((klines + 1)) | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace|blocked for more than|hung_task')
check "kernel-clean${bad:+ ($bad)}" [ -z "$bad" ]
