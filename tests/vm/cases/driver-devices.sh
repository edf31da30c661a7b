# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 480 --extra-disk "num-queues=1" --extra-disk "num-queues=8" --extra-disk "logical_block_size=4096,physical_block_size=4096" --extra-disk "discard=off,write-zeroes=off" --extra-disk "|readonly=on" --extra-disk "request-merging=off|throttling.iops-total=4"
# expect-results: 56 (at least; tests/vm/run-cases fails the case with fewer result lines)
# Odd but legal devices, parity with the in-tree driver, and the device
# features: 1 queue on 2 vCPUs, more queues than vCPUs, 4 KiB blocks,
# discard/write-zeroes on and off, a read-only drive, cache_type, serial,
# geometry, capacity change, slow I/O hitting the timeout.  Suspend and
# resume are in driver-suspend.sh (they take the 9p share down).
# Disks are found by serial: sgl-diskN is the Nth disk of the command line.
T=/sys/kernel/tracing

kernel_clean() {
	if dmesg | grep -q -E 'WARNING:|BUG:|Oops|general protection|Call Trace'; then
		fail "$1" "$(dmesg | grep -m1 -E 'WARNING:|BUG:|Oops|general protection|Call Trace')"
	else
		pass "$1"
	fi
}
disk_of() { # SERIAL -> disk name (any driver)
	for d in /sys/block/*; do
		[ "$(cat $d/serial 2>/dev/null)" = "$1" ] && { basename $d; return; }
	done
}
fio_ok() { # NAME DISK ARGS...: write-then-verify must pass
	n=$1 d=$2
	shift 2
	if fio --name="$n" --filename=/dev/$d --direct=1 --ioengine=libaio --verify=crc32c \
		--verify_fatal=1 --output-format=terse "$@" >"$OUT/fio-$n.txt" 2>&1; then
		pass "$n"
	else
		fail "$n" "$(grep -m1 -i -E 'error|verify' "$OUT/fio-$n.txt")"
	fi
}
# What both drivers must agree on, one line per disk.
ATTRS="size ro queue/logical_block_size queue/physical_block_size queue/max_segments
queue/max_segment_size queue/max_hw_sectors_kb queue/discard_max_hw_bytes queue/discard_granularity
queue/write_zeroes_max_bytes queue/write_cache queue/minimum_io_size queue/optimal_io_size
queue/alignment_offset serial cache_type"
describe() { # DISK -> attributes, hw queue count, geometry
	for a in $ATTRS; do printf '%s=%s ' "$a" "$(cat /sys/block/$1/$a 2>/dev/null | tr ' ' _)"; done
	# serial byte for byte (a trailing newline would differ)
	printf 'serial_bytes=%s ' "$(od -An -c /sys/block/$1/serial | tr -s ' \n' _)"
	printf 'hwq=%s geo=%s\n' "$(ls /sys/block/$1/mq | wc -l)" "$(segbuf geo /dev/$1 | tr ' ' _)"
}

# --- parity with the in-tree virtio_blk on every disk ---------------------
sgl_unload
intree_load
sleep 1
for i in 0 1 2 3 4 5 6; do
	d=$(disk_of sgl-disk$i)
	[ -n "$d" ] && describe "$d" >"$OUT/stock-$i.txt"
done
rmmod virtio_blk
sgl_load
sleep 1
for i in 0 1 2 3 4 5 6; do
	d=$(disk_of sgl-disk$i)
	eval "D$i=$d"
	[ -n "$d" ] || { fail "disk-present/$i" "no disk with serial sgl-disk$i"; continue; }
	describe "$d" >"$OUT/sgl-$i.txt"
	if [ ! -s "$OUT/stock-$i.txt" ]; then
		fail "parity/disk$i" "in-tree driver did not show the disk"
	elif cmp -s "$OUT/stock-$i.txt" "$OUT/sgl-$i.txt"; then
		pass "parity/disk$i"
	else
		fail "parity/disk$i" "stock: $(cat "$OUT/stock-$i.txt") sgl: $(cat "$OUT/sgl-$i.txt")"
	fi
done
check_eq names "vsgla vsglb vsglc vsgld vsgle vsglf vsglg" "$(sgl_disks | tr '\n' ' ' | sed 's/ $//')"
check_eq minors-16 "16" "$(cat /sys/block/vsglb/dev | sed 's/.*://')"

# --- queues ---------------------------------------------------------------
check_eq one-queue-on-2-cpus 1 "$(sgl_get $D1 nr_hw_queues)"
fio_ok one-queue-io $D1 --rw=randwrite --bsrange=4k-128k --size=2M --iodepth=16 --numjobs=2 --offset_increment=4M
check_eq queues-capped-at-cpus 2 "$(sgl_get $D2 nr_hw_queues)"
fio_ok eight-queue-io $D2 --rw=randwrite --bsrange=4k-128k --size=2M --iodepth=16 --numjobs=2 --offset_increment=4M

# nr_requests_total follows the elevator: the oracle is the block layer's
# own debugfs, the tags each hardware context holds (driver tags, scheduler
# tags while an elevator is attached) plus its flush request
[ -d /sys/kernel/debug/block ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
blk_requests() {
	_t=0 _h=0
	for _c in /sys/kernel/debug/block/$1/hctx*; do
		[ -f "$_c/tags" ] || continue
		_n=$(sed -n 's/^nr_tags=//p' "$_c/tags") _s=$(sed -n 's/^nr_tags=//p' "$_c/sched_tags")
		_t=$((_t + _n + ${_s:-0} + 1)) _h=$((_h + 1))
	done
	[ $_h -gt 0 ] && echo $_t || echo "no-debugfs-hctx"
}
Q=/sys/block/$D1/queue
case $(cat $Q/scheduler) in
*"[none]"*) fail sched-default "1-queue disk has no scheduler: $(cat $Q/scheduler)" ;;
*) check_eq nrq-total-with-sched "$(blk_requests $D1)" "$(sgl_get $D1 nr_requests_total)" ;;
esac
echo none > $Q/scheduler
check_eq nrq-total-no-sched "$(blk_requests $D1)" "$(sgl_get $D1 nr_requests_total)"
echo mq-deadline > $Q/scheduler
check_eq nrq-total-sched-back "$(blk_requests $D1)" "$(sgl_get $D1 nr_requests_total)"
big=$(($(cat $Q/nr_requests) * 2))
echo $big > $Q/nr_requests
check_eq nrq-total-sched-grown "$(blk_requests $D1)" "$(sgl_get $D1 nr_requests_total)"
Q0=/sys/block/$D0/queue
echo mq-deadline > $Q0/scheduler
check_eq nrq-total-multiqueue-sched "$(blk_requests $D0)" "$(sgl_get $D0 nr_requests_total)"
echo none > $Q0/scheduler
check_eq nrq-total-multiqueue "$(blk_requests $D0)" "$(sgl_get $D0 nr_requests_total)"
# sg_prealloc_bytes and sg_full_prealloc_bytes are not restated here as
# requests x entries x 32 (the driver's own formula): driver-memory.sh and
# driver-memory-big.sh hold them to the MemFree the guest really lost.

# --- 4 KiB logical blocks ------------------------------------------------
check_eq lbs-4096 4096 "$(cat /sys/block/$D3/queue/logical_block_size)"
check_eq pbs-4096 4096 "$(cat /sys/block/$D3/queue/physical_block_size)"
fio_ok lbs-4096-io $D3 --rw=randwrite --bsrange=4k-256k --blockalign=4k --size=4M --iodepth=8
# segbuf's 2 KiB pieces are not 4 KiB aligned: O_DIRECT must refuse them
if segbuf write /dev/$D3 1 1 0 2>/dev/null; then
	fail lbs-4096-rejects-2k "2 KiB direct write accepted"
else
	pass lbs-4096-rejects-2k
fi

# --- discard / write zeroes ---------------------------------------------------
W=/dev/$D0
check discard-advertised [ "$(cat $Q0/discard_max_bytes)" -gt 0 ]
check write-zeroes-advertised [ "$(cat $Q0/write_zeroes_max_bytes)" -gt 0 ]
# 65536..67583 is discarded, zeroed, punched; 67584.. must keep its data
segbuf write $W 8 64 65536 && segbuf write $W 8 8 67584 && segbuf read $W 8 64 65536
check data-before-zeroing [ $? -eq 0 ]
echo > $T/trace
echo 1 > $T/events/virtio_blk_sgl/virtio_blk_sgl_setup/enable
check discard-ioctl segbuf discard $W 65536 1024
check zeroout-ioctl segbuf zeroout $W 66560 512
check zeroout-reads-zero segbuf checkzero $W 66560 512
check punch-hole segbuf punch $W 67072 512
check punch-reads-zero segbuf checkzero $W 67072 512
echo 0 > $T/events/virtio_blk_sgl/enable
# REQ_OP_DISCARD = 3, REQ_OP_WRITE_ZEROES = 9: the device got the commands
check discard-reached-device grep -q 'virtio_blk_sgl_setup:.* op=3 ' $T/trace
check write-zeroes-reached-device grep -q 'virtio_blk_sgl_setup:.* op=9 ' $T/trace
check data-next-to-zeroes-intact segbuf read $W 8 8 67584
E=/dev/$D4
check_eq discard-off 0 "$(cat /sys/block/$D4/queue/discard_max_bytes)"
check_eq write-zeroes-off 0 "$(cat /sys/block/$D4/queue/write_zeroes_max_bytes)"
if segbuf discard $E 0 1024 2>/dev/null; then fail discard-off-rejected "BLKDISCARD worked"; else pass discard-off-rejected; fi
segbuf write $E 8 16 0
check zeroout-fallback segbuf zeroout $E 0 256
check zeroout-fallback-zero segbuf checkzero $E 0 256

# --- read-only drive ----------------------------------------------------------
R=$D5
check_eq read-only-flag 1 "$(cat /sys/block/$R/ro)"
check read-only-reads dd if=/dev/$R of=/dev/null bs=64k count=16 iflag=direct
err=$(dd if=/dev/zero of=/dev/$R bs=4k count=1 oflag=direct 2>&1)
case $err in
*"ermitted"*|*"ead-only"*|*"nput/output"*) pass read-only-write-fails ;;
*) fail read-only-write-fails "dd said: $err" ;;
esac
check_eq read-only-no-driver-errors 0 "$(sgl_get $R io_errors)"

# --- cache_type (CONFIG_WCE) ---------------------------------------------------
C=/sys/block/$D0
check_eq cache-type-default "write back" "$(cat $C/cache_type)"
echo "write through" > $C/cache_type
check_eq cache-type-set "write through" "$(cat $C/cache_type)"
check_eq cache-type-queue "write through" "$(cat $C/queue/write_cache)"
echo "write back" > $C/cache_type
check_eq cache-type-back "write back" "$(cat $C/queue/write_cache)"
if echo "bogus" > $C/cache_type 2>/dev/null; then fail cache-type-validated "bogus accepted"; else pass cache-type-validated; fi
check_eq serial sgl-disk0 "$(cat $C/serial)"

# --- capacity change (config interrupt) -------------------------------------
hmp "block_resize d0 96M" >"$OUT/hmp-resize.txt"
n=0
while [ "$(cat $C/size)" != 196608 ] && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
check_eq resize-size 196608 "$(cat $C/size)"
fio_ok resize-io-at-new-end $D0 --rw=write --bs=64k --size=1M --offset=94M --iodepth=4

# --- slow device: the timeout handler waits, nothing fails -------------------
S=$D6
echo 1000 > /sys/block/$S/queue/io_timeout
# no merging: 16 separate requests at 4 IOPS keep the last ones waiting ~4 s,
# past the 1 s timeout (merged, they could finish inside it). Not in the
# guest (nomerges) and not in QEMU either: its virtio-blk merges adjacent
# requests that arrive in one batch into one I/O, one throttle token, unless
# the device has request-merging=off (without it 16 writes here took 5 ms
# to 3.7 s, and stop 20's CI saw no timeout at all).
echo 2 > /sys/block/$S/queue/nomerges
dmesg -c >/dev/null
fio_ok slow-io-completes $S --rw=randwrite --bs=4k --size=64k --iodepth=16
# the premise: the device really was slower than the timeout
wms=$(cut -d';' -f50 "$OUT/fio-slow-io-completes.txt")
check slow-io-device-slow-enough [ "${wms:-0}" -gt 2000 ]
if dmesg | grep -q 'timed out after'; then pass slow-io-timeout-reported; else
	fail slow-io-timeout-reported "the timeout handler never ran"; fi
dmesg | grep 'timed out after' | head -3 >"$OUT/timeouts.txt"
check_eq slow-io-no-errors 0 "$(sgl_get $S io_errors)"

kernel_clean devices-kernel-clean
check devices-unload sgl_unload
