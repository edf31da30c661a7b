# guest-run-args: --disks 4 --disk-size 16M --smp 2 --mem 1024 --disk-props "queue-size=1024,num-queues=2,seg-max-adjust=off" --timeout 300
# sg_prealloc_bytes against real memory: the difference between prealloc
# and inline mode that sysfs predicts must match the MemFree difference
# measured in the guest (after drop_caches, loaded vs not loaded) within 10%.
#
# seg-max-adjust=off keeps seg_max at 126: with queue-size=1024 QEMU would
# otherwise offer 1022, a prealloc PDU would be ~33 KiB and blk-mq, which
# carves requests out of 64 KiB page blocks, would fit only one per block:
# the real cost is then about twice sg_prealloc_bytes (measured: 2.0x),
# which is a property of blk_mq_alloc_rqs, not of the figure.  See
# docs/DRIVER.md.  pdu_alloc_bytes models that packing: its prediction
# (pdu_alloc_bytes_prealloc - pdu_alloc_bytes, read in inline mode) must
# hold within 10% here too; driver-memory-big.sh checks it with seg_max 1022.
ROUNDS=3

sysfs_sum() { # FILE -> sum over the disks, bytes
	t=0
	for d in $(sgl_disks); do t=$((t + $(sgl_get "$d" "$1"))); done
	echo $t
}

sgl_unload
cost_inl=0 cost_pre=0 sys_inl=0 sys_pre=0 pdu_pred=0 pdu_pp_inl=none-inline pdu_in_pre=none-prealloc
r=0
while [ $r -lt $ROUNDS ]; do
	for mode in inline_sg_cnt=2 prealloc=1; do
		set -- $(meminfo_settled)
		free0=$1 slab0=$2
		sgl_load "$mode" || { fail "load/$mode" "insmod failed"; exit 0; }
		sleep 1
		s=$(sysfs_sum sg_prealloc_bytes) p=$(sysfs_sum pdu_alloc_bytes) pp=$(sysfs_sum pdu_alloc_bytes_prealloc)
		set -- $(meminfo_settled)
		cost=$(((free0 - $1) * 1024))
		echo "round $r $mode: cost ${cost} B (slab +$((($2 - slab0) * 1024)) B), sg_prealloc_bytes $s," \
			"pdu_alloc_bytes $p, pdu_alloc_bytes_prealloc $pp," \
			"nr_requests_total $(sysfs_sum nr_requests_total), max_segments $(sgl_get vsgla max_segments)" |
			tee -a "$OUT/memory.txt"
		if [ "$mode" = prealloc=1 ]; then
			cost_pre=$((cost_pre + cost)) sys_pre=$s pdu_in_pre=$p
		else
			cost_inl=$((cost_inl + cost)) sys_inl=$s
			pdu_pred=$((pp - p)) pdu_pp_inl=$pp
		fi
		sgl_unload
	done
	r=$((r + 1))
done

predicted=$((sys_pre - sys_inl))
measured=$(((cost_pre - cost_inl) / ROUNDS))
echo "predicted $predicted B, measured $measured B, predicted by pdu_alloc_bytes $pdu_pred B" | tee -a "$OUT/memory.txt"
check "memory-signal-large" [ "$predicted" -gt $((16 << 20)) ]
# |measured - predicted| <= 10% of predicted
dev=$((measured - predicted))
[ $dev -lt 0 ] && dev=$((-dev))
check "memory-matches-sysfs-10pct" [ $((dev * 10)) -le "$predicted" ]
# the same with the blk-mq packing modelled (pdu_alloc_bytes)
check_eq "pdu-prealloc-consistent" "$pdu_pp_inl" "$pdu_in_pre"
dev=$((measured - pdu_pred))
[ $dev -lt 0 ] && dev=$((-dev))
check "memory-matches-pdu-alloc-10pct" [ $((dev * 10)) -le "$pdu_pred" ]
