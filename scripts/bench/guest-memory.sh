# Memory saved, measured: MemFree before/after loading the driver (caches
# dropped), in prealloc mode and in inline mode, ROUNDS times each,
# against sglstat memory's model of the same disk.
ROUNDS=${BENCH_ROUNDS:-3}
free_kib() {
	sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; echo 3 > /proc/sys/vm/drop_caches
	awk '/^MemFree:/ { print $2 }' /proc/meminfo
}
sgl_unload 2>/dev/null
for r in $(seq "$ROUNDS"); do
	for mode in prealloc=1 inline_sg_cnt=2; do
		f0=$(free_kib)
		sgl_load "$mode" || exit 1
		sleep 1
		f1=$(free_kib)
		d=$(sgl_disks | head -1)
		model=$(sglstat memory -d "$d" -j)
		echo "MEM $mode $r $(((f0 - f1) * 1024)) $(sgl_get "$d" nr_hw_queues) $(sgl_get "$d" queue_depth) $(sgl_get "$d" max_segments) $model" >> "$OUT/memory.txt"
		sgl_unload
	done
done
