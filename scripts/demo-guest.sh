# Runs inside the demo guest (see scripts/demo.sh).
set -u
disk=$(sgl_disks | head -1)
[ -n "$disk" ] || { echo "demo: virtio_blk_sgl bound no disk"; exit 1; }
echo "=== virtio_blk_sgl bound /dev/$disk: inline_sg_cnt=$(sgl_get "$disk" inline_sg_cnt)," \
	"max_segments=$(sgl_get "$disk" max_segments), queues=$(sgl_get "$disk" nr_hw_queues)," \
	"depth=$(sgl_get "$disk" queue_depth)"
workload() {
	fio --name=mix --filename="/dev/$disk" --direct=1 --ioengine=libaio --size=64M \
		--rw=randrw --bssplit=4k/40:16k/20:64k/20:256k/20 --iodepth=16 \
		--time_based --runtime=8 --output-format=terse >/dev/null
}
if command -v sglstat >/dev/null; then
	sglstat --mode driver 10 1 > /tmp/report.txt 2>&1 &
	pid=$!
	sleep 2
	workload
	wait $pid
	echo "=== sglstat (driver mode, 10 s)"
	cat /tmp/report.txt
	echo "=== sglstat memory"
	sglstat memory
else
	workload
	echo "=== sglstat is not built yet; the driver's own counters:"
fi
echo "=== /sys/block/$disk/sgl"
for f in /sys/block/$disk/sgl/*; do printf '%-24s %s\n' "${f##*/}" "$(cat "$f")"; done
