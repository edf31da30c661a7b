# guest-run-args: --disks 2 --disk-size 64M --smp 2 --timeout 400
# expect-results: 42 (at least; one probe-size check per sg_pool size the run allocated, so 2 to 5 per disk; tests/vm/run-cases fails the case with fewer result lines)
# A mixed host, as the README's migration leaves it: vda on the in-tree
# virtio_blk, vsgla on virtio_blk_sgl.  One `sglstat --mode auto` traces
# both, each its best way (vsgla by the driver tracepoints, vda by the block
# tracepoints), nothing counted twice:
#  - 200 reads on each disk: both in the JSON with their mode, read
#    requests and completions equal to /sys/block/X/stat's reads;
#  - chained counts and bytes under fio (4k..128k) against the kernel's own
#    sg_pool allocations (a kprobe on the mempool_alloc() of sg_pool_alloc(),
#    with the object size of the pool it allocates from), per disk: an
#    oracle outside include/sgl_model.h;
#  - latency source: every sample counted by its timestamp; with -Q all
#    from start_time_ns;
#  - the textfile: each disk's series with its own mode label and the
#    JSON's counts; `sglstat tune` from the capture takes both disks, each
#    with its driver's current inline count.
for t in sglstat jq fio segbuf; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH"; exit 0; }
done
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -w $T/kprobe_events ] || { fail prereq "no tracefs kprobe_events"; exit 0; }

# the second disk moves to the in-tree driver, as the README's migration does
move_to_intree vsglb && wait_for 10 test -b /dev/vda || { fail prereq "virtio_blk did not take vsglb's device"; exit 0; }
SD=vda DD=vsgla

# The kernel's sg_pool allocations: sg_pool_alloc() is notrace, so the probe
# sits on the mempool_alloc() it calls and keeps only calls made for it: the
# return address on the stack at entry (nokaslr) is in sg_pool_alloc, or,
# as sg_pool_alloc tail-calls mempool_alloc, in its caller __sg_alloc_table
# (whose other allocator, for sg_alloc_table, is kmalloc, not a mempool).
# It reads the pool's kmem_cache object_size (mempool_s.pool_data at 24,
# kmem_cache.object_size at 28: Debian 6.1's BTF, `bpftool btf dump file
# vmlinux format raw`); a wrong offset yields sizes that are no sgpool's.
range() { sort /proc/kallsyms | awk -v f="$1" '$3 == f { a = $1; getline; print "(ret >= 0x" a " && ret < 0x" $1 ")"; exit }'; }
R1=$(range sg_pool_alloc) R2=$(range __sg_alloc_table)
[ -n "$R1" ] && [ -n "$R2" ] || { fail prereq "sg_pool_alloc / __sg_alloc_table not in /proc/kallsyms"; exit 0; }
FILTER="$R1 || $R2"
echo 'p:sglpool mempool_alloc ret=$stack0:x64 osz=+28(+24(%di)):u32' >>$T/kprobe_events ||
	{ fail prereq "kprobe on mempool_alloc: $(tail -2 $T/error_log)"; exit 0; }
echo "hist:keys=osz if $FILTER" >$T/events/kprobes/sglpool/trigger ||
	{ fail prereq "hist trigger: $(tail -2 $T/error_log)"; exit 0; }
echo 1 >$T/events/kprobes/sglpool/enable
# pool_calls / pool_bytes: sg_pool allocations so far and their bytes
pool_calls() { awk '/^\{.*hitcount:/ { sub(/.*hitcount: */, ""); t += $1 } END { print t + 0 }' $T/events/kprobes/sglpool/hist; }
pool_bytes() {
	awk '/^\{.*hitcount:/ { n = $0; sub(/.*osz: */, "", n); n += 0; c = $0; sub(/.*hitcount: */, "", c); t += n * c }
		END { print t + 0 }' $T/events/kprobes/sglpool/hist
}
pool_sizes() { awk '/^\{.*hitcount:/ { n = $0; sub(/.*osz: */, "", n); print n + 0 }' $T/events/kprobes/sglpool/hist; }
reads() { awk '{ print $1 }' /sys/block/$1/stat; }

sglstat --mode auto -j --cumulative --prom-file "$OUT/auto.prom" 1 >"$OUT/auto.json" 2>"$OUT/auto.err" &
pid=$!
wait_for 60 grep -q '^Tracing' "$OUT/auto.err" || { fail start "$(head -3 "$OUT/auto.err")"; exit 0; }
check "startup-names-both-sets" grep -q '^sglstat: mode auto (virtio_blk_sgl disks: virtio_blk_sgl complete/alloc_fail, raw_tp; other disks: block_rq_issue/requeue/complete' "$OUT/auto.err"
# settle: a report after attach, then take every figure as a delta
snap() { # snap SEQ_AFTER: wait for a report newer than SEQ_AFTER
	_i=0
	while [ "$(json_seq "$OUT/auto.json")" -le "$1" ] && [ $_i -lt 50 ]; do sleep 0.2; _i=$((_i + 1)); done
	json_last "$OUT/auto.json" >"$OUT/snap.json"
}
# disk_fig FILE DISK PATH: PATH of DISK's entry in a report (or tune's JSON)
disk_fig() { jq -r --arg d "$2" ".disks[] | select(.name == \$d) | $3" "$1" 2>/dev/null; }
fig() { disk_fig "$OUT/snap.json" "$@"; }
snap 0
seq0=$(jq .seq "$OUT/snap.json")
for d in $SD $DD; do
	eval "r0_$d=$(reads $d) q0_$d=$(fig $d .ops.read.requests) k0_$d=$(fig $d .ops.read.completions)"
done
# ---- 200 reads on each disk
for d in $SD $DD; do
	dd if=/dev/$d of=/dev/null bs=4k count=200 iflag=direct status=none || fail "$d-dd" "dd failed"
done
sleep 1
snap "$seq0"
seq1=$(jq .seq "$OUT/snap.json")
check_eq "json-mode-mixed" auto "$(jq -r .mode "$OUT/snap.json")"
check_eq "mode-$SD" stock "$(fig $SD .mode)"
check_eq "mode-$DD" driver "$(fig $DD .mode)"
check_eq "alloc-failures-known-$DD" true "$(fig $DD '.total.alloc_failures != null')"
check_eq "alloc-failures-unknown-$SD" null "$(fig $SD .total.alloc_failures)"
for d in $SD $DD; do
	eval "rd=\$((\$(reads $d) - r0_$d)) q=\$((\$(fig $d .ops.read.requests) - q0_$d)) k=\$((\$(fig $d .ops.read.completions) - k0_$d))"
	echo "$d: /sys/block reads +$rd, sglstat read requests +$q completions +$k" >>"$OUT/summary.txt"
	check_eq "$d-200-reads-in-sysfs" 200 "$rd"
	check_eq "$d-read-requests-equal-sysfs" "$rd" "$q"
	check_eq "$d-read-completions-equal-sysfs" "$rd" "$k"
done

# ---- chained counts and bytes against sg_pool_alloc, fio on one disk at a time
# (THP off and memory fragmented: buffers of isolated pages, so large
# requests really chain)
echo never >/sys/kernel/mm/transparent_hugepage/enabled
segbuf hog 128 >/dev/null &
HOG=$!
sleep 1
seq=$seq1
for d in $SD $DD; do
	c0=$(fig $d .total.chained) b0=$(fig $d .total.chained_bytes)
	p0=$(pool_calls) pb0=$(pool_bytes)
	fio --name=mix --filename=/dev/$d --rw=randrw --bsrange=4k-128k --direct=1 --ioengine=libaio \
		--iodepth=4 --size=32M --io_size=3M --randrepeat=0 --output=/dev/null || fail "$d-fio" "fio failed"
	sync
	wait_for 10 sh -c "[ \"\$(awk '{ print \$1 + \$2 }' /sys/block/$d/inflight)\" = 0 ]"
	p1=$(pool_calls) pb1=$(pool_bytes)
	sleep 1
	snap "$seq"
	seq=$(jq .seq "$OUT/snap.json")
	c=$(($(fig $d .total.chained) - c0)) b=$(($(fig $d .total.chained_bytes) - b0))
	echo "$d fio: sg_pool_alloc calls +$((p1 - p0)) bytes +$((pb1 - pb0)); sglstat chained +$c bytes +$b" >>"$OUT/summary.txt"
	check "$d-fio-chained-some" [ "$c" -gt 10 ]
	for z in $(pool_sizes); do
		check "$d-probe-size-$z-is-an-sgpool" grep -qx "$z" /sys/kernel/slab/sgpool-*/object_size
	done
	check_eq "$d-chained-equal-sg-pool-allocs" "$((p1 - p0))" "$c"
	check_eq "$d-chained-bytes-equal-sg-pool-bytes" "$((pb1 - pb0))" "$b"
	check_eq "$d-inflight-zero" 0 "$(fig $d .chained_bytes_inflight)"
done
# latency source: every timed sample counted by its timestamp
for d in $SD $DD; do
	lat=$(fig $d '[.total.lat_ns[].count] | add')
	src=$(fig $d '.total.lat_source.io_start + .total.lat_source.start')
	check_eq "$d-latency-sources-cover-samples" "$lat" "$src"
done
kill -INT $pid
wait $pid
check_eq auto-exit 0 $?
kill $HOG
# the textfile of the last report (written from the same snapshot as its
# JSON line): each disk's series carry its own mode, with the JSON's counts
json_last "$OUT/auto.json" >"$OUT/snap.json"
prom_val() { awk -v k="$1" 'index($0, k " ") == 1 { print $2 }' "$OUT/auto.prom"; }
for d in $SD $DD; do
	m=$(fig $d .mode)
	other=$([ "$m" = driver ] && echo stock || echo driver)
	check_eq "prom-$d-read-requests-mode-$m-equal-json" "$(fig $d .ops.read.requests)" \
		"$(prom_val "virtio_blk_sgl_requests_total{disk=\"$d\",op=\"read\",mode=\"$m\"}")"
	check "prom-$d-no-$other-series" sh -c "! grep -q 'disk=\"$d\".*mode=\"$other\"' '$OUT/auto.prom'"
done
check "prom-exporter-mode-auto" grep -q '^virtio_blk_sgl_exporter_info{.*mode="auto"} 1$' "$OUT/auto.prom"
# tune from the mixed capture: both disks, each with its driver's current
# inline count (the in-tree one's fixed 2, ours from sysfs) and its requests
sglstat tune --from "$OUT/auto.json" -j >"$OUT/tune.json" 2>"$OUT/tune.err"
check_eq tune-from-mixed-exit 0 $?
tj() { disk_fig "$OUT/tune.json" "$@"; }
check_eq "tune-$SD-driver" virtio_blk "$(tj $SD .driver)"
check_eq "tune-$DD-driver" virtio_blk_sgl "$(tj $DD .driver)"
check_eq "tune-$SD-current-inline" 2 "$(tj $SD .current_inline)"
check_eq "tune-$DD-current-inline" "$(sgl_get $DD inline_sg_cnt)" "$(tj $DD .current_inline)"
ra=$(tj $SD .requests) rb=$(tj $DD .requests)
check "tune-both-disks-requests ($ra, $rb)" [ "${ra:-0}" -gt 200 -a "${rb:-0}" -gt 200 ]

# ---- -Q: latency from start_time_ns, text report names its source; -m in ms
sglstat -Q -d $SD -j --cumulative >"$OUT/q.json" 2>"$OUT/q.err" &
pq=$!
sglstat -m -Q -D -d $SD -d $DD >"$OUT/q.txt" 2>"$OUT/qt.err" &
pt=$!
wait_for 60 grep -q '^Tracing' "$OUT/q.err"
wait_for 60 grep -q '^Tracing' "$OUT/qt.err"
dd if=/dev/$SD of=/dev/null bs=4k count=50 iflag=direct status=none
dd if=/dev/$DD of=/dev/null bs=4k count=50 iflag=direct status=none
kill -INT $pq $pt
wait $pq
wait $pt
check_eq "queued-json" true "$(json_last "$OUT/q.json" | jq .queued)"
check_eq "queued-all-from-start" "$(json_last "$OUT/q.json" | jq '.disks[0].total.completions - .disks[0].total.lat_untimed')" \
	"$(json_last "$OUT/q.json" | jq '.disks[0].total.lat_source.start')"
check_eq "queued-none-from-io-start" 0 "$(json_last "$OUT/q.json" | jq '.disks[0].total.lat_source.io_start')"
check "text-two-disks-modes" sh -c "grep -q '^$SD: stock mode' '$OUT/q.txt' && grep -q '^$DD: driver mode' '$OUT/q.txt'"
check "text-latency-source-note" grep -q 'latency from request allocation (-Q)' "$OUT/q.txt"
check "text-msecs" grep -q 'msecs' "$OUT/q.txt"
echo 0 >$T/events/kprobes/sglpool/enable
echo "!hist:keys=osz if $FILTER" >$T/events/kprobes/sglpool/trigger
echo '-:sglpool' >>$T/kprobe_events
exit 0
