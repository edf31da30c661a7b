# guest-run-args: --testing --disks 1 --disk-size 64M --smp 2 --timeout 500
# expect-results: 43 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# guest-run-transports: pci mmio
# guest-run-share: yes
# sglstat in driver mode against virtio_blk_sgl's own sysfs counters, which
# must agree exactly: sglstat attaches after the "before" sysfs snapshot and
# detaches before the "after" one, and nothing else does I/O on vsgla in the
# guest.  The segment histogram is checked against segbuf requests with a
# known number of segments each; chained bytes against the sg_pool model
# (include/sgl_model.h, re-derived in shell below); failures and retries with
# fail_chain_percent injection; model_mismatch against the setup tracepoint's
# chained_bytes re-derived from nsegs in shell; `sglstat memory` against the
# block layer's own files (its byte figures are checked against MemFree by
# driver-memory.sh: here they would only be compared with the sysfs files
# sglstat reads them from).
# Needs sglstat (build/sglstat-static), segbuf and jq on PATH.
D=vsgla
DEV=/dev/$D
NS="1 2 3 4 5 16 64 200"	# segments per segbuf request
REPS=3

for t in sglstat segbuf jq; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done
[ -d /sys/block/$D/sgl ] || { fail prereq "no /sys/block/$D/sgl"; exit 0; }


# counters NAME: snapshot of the driver's counters into $OUT/NAME.sysfs
counters() {
	for f in requests_mapped requests_chained chain_alloc_failures chain_alloc_injected \
		retries requests_completed io_errors; do
		echo "$f $(sgl_get $D $f)"
	done > "$OUT/$1.sysfs"
}
# delta FILE: after - before
delta() { echo $(( $(awk -v f=$1 '$1 == f { print $2 }' "$OUT/after.sysfs") - \
		$(awk -v f=$1 '$1 == f { print $2 }' "$OUT/before.sysfs") )); }

# start_sglstat NAME ARGS...: background sglstat -j --cumulative, waits until attached
start_sglstat() {
	_n=$1; shift
	sglstat -j --cumulative "$@" > "$OUT/$_n.json" 2> "$OUT/$_n.err" &
	eval "PID_$_n=$!"
	_i=0
	while ! grep -q '^Tracing' "$OUT/$_n.err" && [ $_i -lt 600 ]; do sleep 0.1; _i=$((_i + 1)); done
	grep -q '^Tracing' "$OUT/$_n.err"
}
stop_sglstat() { eval "kill -INT \$PID_$1; wait \$PID_$1"; }

# j NAME FILTER: jq on the last report of NAME
j() { jv "$OUT/$1.json" "$2"; }
# sum of a counter over all ops but "other" (the driver does not count GET_ID)
SUM='[.disks[0].ops | to_entries[] | select(.key != "other") | .value.%s] | add'
js() { j "$1" "$(printf "$SUM" "$2")"; }

workload() {	# (no variable "n": check() keeps the case name in it)
	_sector=2048 _ok=0
	for _k in $NS; do
		segbuf write $DEV "$_k" $REPS $_sector || _ok=1
		segbuf read $DEV "$_k" $REPS $_sector || _ok=1
		_sector=$((_sector + _k * 4 * REPS + 64))
	done
	return $_ok
}

# ---- 1. no injection: exact counters, exact histogram, chained bytes; by
# default (one event per I/O: drv_done counts each request at its
# completion) and with --setup-time (drv_setup and drv_complete, setup times)
inl=$(sgl_get $D inline_sg_cnt)
T=/sys/kernel/tracing

# exact_run NAME WANT_PROGS SGLSTAT_ARGS...: the segbuf workload under
# sglstat NAME; the raw_tp programs attached must be WANT_PROGS exactly
exact_run() {
	_r=$1 _want=$2; shift 2
	counters before
	if ! start_sglstat $_r --mode driver -d $D "$@"; then
		fail $_r-start "$(cat "$OUT/$_r.err")"; return
	fi
	check "$_r-mode-line" grep -q '^sglstat: mode driver' "$OUT/$_r.err"
	# this module passes the request's fields as tracepoint arguments: the
	# programs attached are the ones that take them, not the request readers
	# (drv_setup_rq, drv_complete_rq)
	links=$(bpftool link show -j 2>/dev/null | jq -r '.[] | select(.type == "raw_tracepoint") | .prog_id' |
		while read -r id; do bpftool prog show id "$id" -j | jq -r .name; done | grep '^drv_' | sort | tr '\n' ' ')
	check_eq "$_r-attached-programs" "$_want" "$links"
	check $_r-no-older-module-note sh -c "! grep -q 'lack' '$OUT/$_r.err'"
	echo > $T/trace
	echo 1 > $T/events/virtio_blk_sgl/virtio_blk_sgl_setup/enable
	check "$_r-segbuf-io" workload
	echo 0 > $T/events/virtio_blk_sgl/virtio_blk_sgl_setup/enable
	stop_sglstat $_r
	# the kernel's own event stream: each chained setup's chained_bytes against
	# lib/sg_pool.c restated in shell (sgpool_bytes), not include/sgl_model.h,
	# which both the driver and sglstat's BPF use (so their model_mismatch
	# could never differ)
	grep 'virtio_blk_sgl_setup:.* chained=1 ' $T/trace | sed 's/.* nsegs=\([0-9]*\) inline=\([0-9]*\) chained=1 chained_bytes=\([0-9]*\) .*/\1 \2 \3/' |
		sort | uniq -c >"$OUT/$_r-setup-chained.txt"
	tr_chained=0 tr_mismatch=0
	while read -r cnt ns il cb; do
		tr_chained=$((tr_chained + cnt))
		[ "$(sgpool_bytes "$ns" "$il")" = "$cb" ] || tr_mismatch=$((tr_mismatch + cnt))
	done <"$OUT/$_r-setup-chained.txt"
	echo > $T/trace
	counters after
	check_eq "$_r-one-report" 1 "$(grep -c . "$OUT/$_r.json")"
	check_eq "$_r-requests-vs-mapped" "$(delta requests_mapped)" "$(js $_r requests)"
	check_eq "$_r-chained-vs-sysfs" "$(delta requests_chained)" "$(js $_r chained)"
	check_eq "$_r-completions-vs-sysfs" "$(delta requests_completed)" "$(js $_r completions)"
	check_eq "$_r-io-errors-vs-sysfs" "$(delta io_errors)" "$(js $_r io_errors)"
	check_eq "$_r-failures-vs-sysfs" "$(delta chain_alloc_failures)" "$(js $_r alloc_failures)"
	check_eq "$_r-retries-vs-sysfs" "$(delta retries)" "$(js $_r retries)"
	check_eq "$_r-no-get-id" 0 "$(j $_r .disks[0].ops.other.requests)"
	check "$_r-chained-setups-traced ($tr_chained)" [ "$tr_chained" -gt 0 ]
	check_eq "$_r-model-mismatch-vs-tracefs" "$tr_mismatch" "$(j $_r .disks[0].total.model_mismatch)"
	# the histogram: REPS requests of exactly n segments per direction
	exp_lin="" exp_log="" bytes=0 nch=0
	for n in $NS; do
		if [ "$n" -le 128 ]; then exp_lin="$exp_lin,[$n,$REPS]"; else exp_log="[128,256,$REPS]"; fi
		b=$(sgpool_bytes "$n" "$inl")
		bytes=$((bytes + b * REPS))
		[ "$b" -gt 0 ] && nch=$((nch + REPS))
	done
	exp_lin="[${exp_lin#,}]" exp_log="[$exp_log]"
	for op in read write; do
		check_eq "$_r-seg-hist-$op" "$exp_lin" "$(j $_r .disks[0].ops.$op.seg_hist)"
		check_eq "$_r-seg-hist-log2-$op" "$exp_log" "$(j $_r .disks[0].ops.$op.seg_hist_log2)"
		check_eq "$_r-chained-$op" "$nch" "$(j $_r .disks[0].ops.$op.chained)"
		check_eq "$_r-chained-bytes-$op" "$bytes" "$(j $_r .disks[0].ops.$op.chained_bytes)"
		check_eq "$_r-requests-$op" $(( $(echo $NS | wc -w) * REPS )) "$(j $_r .disks[0].ops.$op.requests)"
		check_eq "$_r-latency-count-$op" "$(j $_r .disks[0].ops.$op.completions)" \
			"$(j $_r "(.disks[0].ops.$op | .lat_ns.inline.count + .lat_ns.chained.count + .lat_untimed)")"
		if [ "$_r" = drv ]; then
			check_eq "$_r-no-setup-times-$op" null "$(j $_r .disks[0].ops.$op.setup_ns)"
		else
			check_eq "$_r-setup-count-$op" "$(j $_r .disks[0].ops.$op.requests)" \
				"$(j $_r .disks[0].ops.$op.setup_ns.count)"
		fi
	done
	check_eq "$_r-sysfs-in-json" "$(sgl_get $D requests_mapped)" "$(j $_r .disks[0].sysfs.requests_mapped)"
}
exact_run drv "drv_alloc_fail drv_done "
check_eq "drv-setup-events-false" false "$(j drv .setup_events)"
exact_run setup "drv_alloc_fail drv_complete drv_setup " --setup-time
check_eq "setup-setup-events-true" true "$(j setup .setup_events)"

# ---- 2. injected failures: every failure and retry seen, requests still exact
echo 50 > /sys/module/virtio_blk_sgl/parameters/fail_chain_percent
counters before
if start_sglstat inj --mode driver -d $D; then
	check "inj-segbuf-io" workload
	fio --name=inj --filename=$DEV --rw=randread --bs=64k --size=16M --io_size=8M --direct=1 \
		--iodepth=8 --ioengine=libaio --output-format=terse >/dev/null 2>&1 ||
		fail inj-fio "fio failed"
	stop_sglstat inj
	counters after
	echo 0 > /sys/module/virtio_blk_sgl/parameters/fail_chain_percent
	check "inj-failures-happened" [ "$(delta chain_alloc_failures)" -gt 0 ]
	check_eq "inj-failures-vs-sysfs" "$(delta chain_alloc_failures)" "$(js inj alloc_failures)"
	check_eq "inj-injected-vs-sysfs" "$(delta chain_alloc_injected)" "$(js inj alloc_injected)"
	check_eq "inj-retries-vs-sysfs" "$(delta retries)" "$(js inj retries)"
	check_eq "inj-requests-vs-mapped" "$(delta requests_mapped)" "$(js inj requests)"
	check_eq "inj-chained-vs-sysfs" "$(delta requests_chained)" "$(js inj chained)"
	check_eq "inj-completions-vs-sysfs" "$(delta requests_completed)" "$(js inj completions)"
	check_eq "inj-map-errors-are-failures" "$(js inj alloc_failures)" "$(js inj map_errors)"
else
	echo 0 > /sys/module/virtio_blk_sgl/parameters/fail_chain_percent
	fail inj-start "$(cat "$OUT/inj.err")"
fi

# ---- 3. interval output: deltas of consecutive reports add up to the
# cumulative; the I/O starts once sglstat is attached ("Tracing"), and all of
# it ends before the third report
sglstat --mode driver -d $D -j 1 3 > "$OUT/int.json" 2> "$OUT/int.err" &
ipid=$!
wait_for 60 grep -q '^Tracing' "$OUT/int.err" || fail interval-start "$(cat "$OUT/int.err")"
segbuf read $DEV 16 20 2048 >/dev/null 2>&1
check "interval-io-before-last-report" kill -0 $ipid
wait $ipid
check_eq "interval-lines" 3 "$(grep -c . "$OUT/int.json")"
check_eq "interval-sum" 20 "$(jq -s '[.[].disks[0].ops.read.seg_hist[] | select(.[0] == 16) | .[1]] | add' "$OUT/int.json")"

# ---- 4. sglstat memory against the block layer's own files (blk-mq's
# hardware queue directories and tag counts, the queue limits), not the
# driver's sgl/ files that sglstat reads; the byte figures are checked
# against MemFree in driver-memory.sh
sglstat memory -d $D -j > "$OUT/mem.json" 2> "$OUT/mem.err"
m() { jv "$OUT/mem.json" ".disks[0].$1"; }
hw=$(ls -d /sys/block/$D/mq/[0-9]* | wc -l)
check_eq "memory-hwq" "$hw" "$(m nr_hw_queues)"
check_eq "memory-depth" "$(cat /sys/block/$D/mq/0/nr_tags)" "$(m queue_depth)"
check_eq "memory-maxseg" "$(cat /sys/block/$D/queue/max_segments)" "$(m max_segments)"
# one flush request per hardware queue besides the driver tags, and the
# scheduler's tags when one is attached (a 1-queue disk, as virtio-mmio's
# default, gets mq-deadline): blk-mq's debugfs counts those
tags=$(cat /sys/block/$D/mq/[0-9]*/nr_tags | awk '{ s += $1 } END { print s }')
stags=0
if ! grep -q '\[none\]' /sys/block/$D/queue/scheduler; then
	stags=$(cat /sys/kernel/debug/block/$D/hctx*/sched_tags 2>/dev/null |
		sed -n 's/^nr_tags=//p' | awk '{ s += $1 } END { print s + 0 }')
fi
check_eq "memory-requests ($(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$D/queue/scheduler), $hw queues)" \
	$((tags + stags + hw)) "$(m nr_requests_total)"
exit 0
