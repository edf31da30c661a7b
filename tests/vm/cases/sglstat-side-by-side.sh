# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 400
# expect-results: 41 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-share: yes
# sglstat in stock mode (block_rq_issue/complete, nr_phys_segments) and in
# driver mode (virtio_blk_sgl tracepoints) on the same disk at the same time
# must agree: both attach before the workload and detach after it, both see
# every request once; requests, completions, chained requests, chained bytes
# and the whole segment histograms per op are compared, and requests against
# the driver's requests_mapped.  Also checks that the stock-mode programs
# load on the guest's 6.1 kernel (CO-RE from a 6.18 vmlinux.h).  Real
# flushes (fio --fsync=1: blkdev_fsync sends one per write) and discards
# (BLKDISCARD) are issued and counted against /sys/block/vsgla/stat too.
D=vsgla
DEV=/dev/$D

for t in sglstat segbuf jq fio; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done

start() {	# NAME ARGS...
	_n=$1; shift
	sglstat -j --cumulative -d $D "$@" > "$OUT/$_n.json" 2> "$OUT/$_n.err" &
	eval "PID_$_n=$!"
}
attached() {
	_i=0
	while ! grep -q '^Tracing' "$OUT/$1.err" && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	grep -q '^Tracing' "$OUT/$1.err"
}

m0=$(sgl_get $D requests_mapped)
set -- $(cat /sys/block/$D/stat); w0=$5 disc0=${12} fl0=${16}
start stock --mode stock
start drv --mode driver
attached stock || { fail stock-start "$(cat "$OUT/stock.err")"; }
attached drv || { fail driver-start "$(cat "$OUT/drv.err")"; }
check "stock-mode-line" grep -q '^sglstat: mode stock' "$OUT/stock.err"

sector=2048
for n in 1 2 3 9 33 130; do
	segbuf write $DEV $n 4 $sector >/dev/null 2>&1 || fail "segbuf-$n" "segbuf failed"
	segbuf read $DEV $n 4 $sector >/dev/null 2>&1 || fail "segbuf-$n" "segbuf failed"
	sector=$((sector + n * 16 + 64))
done
fio --name=mix --filename=$DEV --rw=randrw --bsrange=4k-256k --size=32M --io_size=16M --direct=1 \
	--iodepth=16 --ioengine=libaio --output-format=terse >/dev/null 2>&1 ||
	fail fio "fio failed"
fio --name=flush --filename=$DEV --rw=write --bs=4k --size=64k --offset=48M --fsync=1 --direct=1 \
	--ioengine=psync --output-format=terse >/dev/null 2>&1 || fail fio-fsync "fio --fsync=1 failed"
segbuf discard $DEV 16384 2048 >/dev/null 2>&1 || fail discard "segbuf discard failed"

kill -INT $PID_stock $PID_drv
wait $PID_stock; rs=$?
wait $PID_drv; rd=$?
m1=$(sgl_get $D requests_mapped)
set -- $(cat /sys/block/$D/stat); w1=$5 disc1=${12} fl1=${16}
check_eq "stock-exit" 0 "$rs"
check_eq "driver-exit" 0 "$rd"

j() { jv "$OUT/$1.json" "$2"; }
# Flushes and discards carry no data segments (the block layer counts none
# for a discard, blk_recalc_rq_segments(), and the driver builds the range
# list itself): neither can chain, so their chained and chained_bytes (and
# a flush's bytes and segments) are 0 on both sides by construction and are
# not compared; their requests, completions and histograms are.
# blkdev_issue_flush() (fsync) sends an empty REQ_OP_WRITE|REQ_PREFLUSH
# request that the flush machinery replaces by the flush request the driver
# sees, then completes as a write without issuing it: block_rq_complete fires
# for it (and /sys/block/*/stat counts it in writes), but stock mode counts
# only issued requests' completions (docs/SGLSTAT.md, flush sequences), so
# write completions agree with driver mode too.
fields_read="requests completions chained chained_bytes bytes segments seg_hist seg_hist_log2"
fields_write="requests completions chained chained_bytes bytes segments seg_hist seg_hist_log2"
fields_flush="requests completions seg_hist seg_hist_log2"
fields_discard="requests completions bytes segments seg_hist seg_hist_log2"
for op in read write flush discard; do
	eval "fields=\$fields_$op"
	for f in $fields; do
		check_eq "$op-$f" "$(j drv .disks[0].ops.$op.$f)" "$(j stock .disks[0].ops.$op.$f)"
	done
done
check "flushes-issued ($((fl1 - fl0)))" [ $((fl1 - fl0)) -gt 0 ]
check_eq "write-completions-stat-adds-unissued-preflush-writes" \
	$(( $(j stock .disks[0].ops.write.completions) + fl1 - fl0 )) $((w1 - w0))
check_eq "flush-driver-vs-stat" $((fl1 - fl0)) "$(j drv .disks[0].ops.flush.completions)"
check_eq "flush-stock-vs-stat" $((fl1 - fl0)) "$(j stock .disks[0].ops.flush.completions)"
check "discards-issued ($((disc1 - disc0)))" [ $((disc1 - disc0)) -gt 0 ]
check_eq "discard-driver-vs-stat" $((disc1 - disc0)) "$(j drv .disks[0].ops.discard.completions)"
check_eq "discard-stock-vs-stat" $((disc1 - disc0)) "$(j stock .disks[0].ops.discard.completions)"
check_eq "discard-no-data-segments" "[[0,$((disc1 - disc0))]]" "$(j drv .disks[0].ops.discard.seg_hist)"
check "saw-chained" [ "$(j drv .disks[0].total.chained)" -gt 0 ]
SUM='[.disks[0].ops | to_entries[] | select(.key != "other") | .value.requests] | add'
check_eq "driver-vs-mapped" $((m1 - m0)) "$(j drv "$SUM")"
check_eq "stock-vs-mapped" $((m1 - m0)) "$(j stock "$SUM")"
check_eq "stock-inline-from-sysfs" "$(sgl_get $D inline_sg_cnt)" "$(j stock .disks[0].inline_cnt)"
check_eq "stock-failures-unknown" null "$(j stock .disks[0].total.alloc_failures)"
exit 0
