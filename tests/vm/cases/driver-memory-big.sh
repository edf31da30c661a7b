# guest-run-args: --disks 2 --disk-size 16M --smp 2 --mem 1024 --disk-props "queue-size=1024,num-queues=2" --timeout 400
# expect-results: 7 (at least; tests/vm/run-cases fails the case with fewer result lines)
# pdu_alloc_bytes against real memory with a big PDU: QEMU's default
# seg-max-adjust gives seg_max = 1022 for queue-size=1024, so a prealloc
# request is ~33 KiB and blk_mq_alloc_rqs() fits only one per 64 KiB page
# block.  The MemFree difference between prealloc and inline mode (after
# drop_caches, loaded vs not loaded) must match
# sum(pdu_alloc_bytes_prealloc - pdu_alloc_bytes) read in inline mode within
# 10%; sg_prealloc_bytes alone is off by ~2x here (checked too, so that the
# case really exercises the packing).  See docs/DRIVER.md.
ROUNDS=3

sgl_unload
diffs="" pdu_pred=0 pdu_pp_inl=none-inline pdu_in_pre=none-prealloc sg_pred=1 maxseg=none cost_inl=0
r=0
while [ $r -lt $ROUNDS ]; do
	for mode in inline_sg_cnt=2 prealloc=1; do
		printf "round %s " $r >>"$OUT/memory.txt"
		mem_load_cost "$mode" || { fail "load/$mode" "insmod failed"; exit 0; }
		if [ "$mode" = prealloc=1 ]; then
			diffs="$diffs $((MEM_COST - cost_inl))"
			pdu_in_pre=$MEM_PDU
		else
			cost_inl=$MEM_COST
			pdu_pred=$((MEM_PDU_PRE - MEM_PDU)) pdu_pp_inl=$MEM_PDU_PRE
			sg_pred=$((MEM_SG_FULL - MEM_SG))
			maxseg=$(sgl_get vsgla max_segments)
		fi
		sgl_unload
	done
	r=$((r + 1))
done

measured=$(median $diffs)
echo "per-round prealloc-inline:$diffs B; median $measured B; predicted by pdu_alloc_bytes $pdu_pred B," \
	"by sg_prealloc_bytes $sg_pred B (measured/sg = $(awk -v m="$measured" -v s="$sg_pred" 'BEGIN { printf "%.2f", m / s }'))" |
	tee -a "$OUT/memory.txt"
check_eq "big-seg-max-1022" 1022 "$maxseg"
check "big-signal-large" [ "$pdu_pred" -gt $((64 << 20)) ]
# the prealloc figure read in inline mode is what prealloc mode then reports
check_eq "big-pdu-prealloc-consistent" "$pdu_pp_inl" "$pdu_in_pre"
check "big-memory-matches-pdu-alloc-10pct" within_10pct "$measured" "$pdu_pred"
# sg_prealloc_bytes alone misses the packing by far (~2x): more than 1.5x
check "big-sg-prealloc-alone-off" [ $((measured * 2)) -gt $((sg_pred * 3)) ]

# Scheduler tags: attaching mq-deadline allocates nr_requests requests per
# hctx (sched_tags); in prealloc mode each costs a 64 KiB block, so the
# MemFree drop on attaching must match the rise of pdu_alloc_bytes.
sgl_load prealloc=1 || { fail "load/prealloc-sched" "insmod failed"; exit 0; }
sleep 1
sched_diffs="" sched_pred=""
if grep -qw mq-deadline /sys/block/vsgla/queue/scheduler; then
	r=0
	while [ $r -lt $ROUNDS ]; do
		p0=$(sysfs_sum pdu_alloc_bytes)
		set -- $(meminfo_settled)
		free0=$1
		for d in $(sgl_disks); do echo mq-deadline > "/sys/block/$d/queue/scheduler"; done
		p1=$(sysfs_sum pdu_alloc_bytes)
		set -- $(meminfo_settled)
		cost=$(((free0 - $1) * 1024))
		echo "sched round $r: none -> mq-deadline costs $cost B, pdu_alloc_bytes $p0 -> $p1," \
			"nr_requests $(cat /sys/block/vsgla/queue/nr_requests), nr_requests_total $(sysfs_sum nr_requests_total)" |
			tee -a "$OUT/memory.txt"
		sched_diffs="$sched_diffs $cost" sched_pred=$((p1 - p0))
		for d in $(sgl_disks); do echo none > "/sys/block/$d/queue/scheduler"; done
		[ "$(sysfs_sum pdu_alloc_bytes)" = "$p0" ] || fail "sched-detach-restores" "pdu_alloc_bytes $(sysfs_sum pdu_alloc_bytes) != $p0"
		r=$((r + 1))
	done
	sched_measured=$(median $sched_diffs)
	echo "sched: per-round$sched_diffs B; median $sched_measured B; predicted $sched_pred B" | tee -a "$OUT/memory.txt"
	check "big-sched-signal-large" [ "$sched_pred" -gt $((16 << 20)) ]
	check "big-sched-tags-match-pdu-alloc-10pct" within_10pct "$sched_measured" "$sched_pred"
else
	fail "big-sched-tags-match-pdu-alloc-10pct" "no mq-deadline: $(cat /sys/block/vsgla/queue/scheduler)"
fi
sgl_unload
