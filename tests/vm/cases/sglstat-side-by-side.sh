# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 400
# guest-run-share: yes
# sglstat in stock mode (block_rq_issue/complete, nr_phys_segments) and in
# driver mode (virtio_blk_sgl tracepoints) on the same disk at the same time
# must agree: both attach before the workload and detach after it, both see
# every request once; requests, completions, chained requests, chained bytes
# and the whole segment histograms per op are compared, and requests against
# the driver's requests_mapped.  Also checks that the stock-mode programs
# load on the guest's 6.1 kernel (CO-RE from a 6.18 vmlinux.h).
D=vsgla
DEV=/dev/$D

for t in sglstat segbuf jq fio; do
	command -v $t >/dev/null || { skip prereq "$t not on PATH"; exit 0; }
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
segbuf discard $DEV 16384 2048 >/dev/null 2>&1
sync

kill -INT $PID_stock $PID_drv
wait $PID_stock; rs=$?
wait $PID_drv; rd=$?
m1=$(sgl_get $D requests_mapped)
check_eq "stock-exit" 0 "$rs"
check_eq "driver-exit" 0 "$rd"

j() { jv "$OUT/$1.json" "$2"; }
for op in read write flush discard; do
	for f in requests completions chained chained_bytes bytes segments seg_hist seg_hist_log2; do
		check_eq "$op-$f" "$(j drv .disks[0].ops.$op.$f)" "$(j stock .disks[0].ops.$op.$f)"
	done
done
check "saw-chained" [ "$(j drv .disks[0].total.chained)" -gt 0 ]
SUM='[.disks[0].ops | to_entries[] | select(.key != "other") | .value.requests] | add'
check_eq "driver-vs-mapped" $((m1 - m0)) "$(j drv "$SUM")"
check_eq "stock-vs-mapped" $((m1 - m0)) "$(j stock "$SUM")"
check_eq "stock-inline-from-sysfs" "$(sgl_get $D inline_sg_cnt)" "$(j stock .disks[0].inline_cnt)"
check_eq "stock-failures-unknown" null "$(j stock .disks[0].total.alloc_failures)"
exit 0
