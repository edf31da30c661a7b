# guest-run-args: --stock --disks 1 --disk-size 64M --smp 2 --timeout 400
# guest-run-kernels: 6.1 6.12
# sglstat stock mode on the guest's in-tree virtio_blk (Debian 6.1): the
# tp_btf programs built against the host's 6.18 vmlinux.h load there (CO-RE),
# and counted reads/writes equal /sys/block/vda/stat exactly (nothing else
# uses vda in the guest); segment histogram against segbuf's known shapes;
# `sglstat memory` against the block sysfs.
D=vda
DEV=/dev/$D
for t in sglstat segbuf jq; do
	command -v $t >/dev/null || { skip prereq "$t not on PATH"; exit 0; }
done
[ -b $DEV ] || { fail prereq "no $DEV (in-tree virtio_blk not loaded?)"; exit 0; }

set -- $(cat /sys/block/$D/stat); r0=$1 w0=$5 d0=${12}
sglstat --mode stock -d $D -j --cumulative > "$OUT/st.json" 2> "$OUT/st.err" &
pid=$!
i=0
while ! grep -q '^Tracing' "$OUT/st.err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if ! grep -q '^Tracing' "$OUT/st.err"; then fail start "$(cat "$OUT/st.err")"; exit 0; fi
check "tp_btf" grep -q 'tp_btf' "$OUT/st.err"
sector=2048
for n in 1 2 3 40; do
	segbuf write $DEV $n 5 $sector || fail "segbuf-$n" "write failed"
	segbuf read $DEV $n 5 $sector || fail "segbuf-$n" "read failed"
	sector=$((sector + n * 20 + 64))
done
# discard: in-tree virtio_blk sends a range array (RQF_SPECIAL_PAYLOAD): 1 segment each
disc=0
segbuf discard $DEV 16384 2048 2>/dev/null && disc=1
kill -INT $pid; wait $pid
set -- $(cat /sys/block/$D/stat); r1=$1 w1=$5 d1=${12}
j() { jv "$OUT/st.json" "$1"; }
check_eq "reads-vs-stat" $((r1 - r0)) "$(j .disks[0].ops.read.completions)"
check_eq "writes-vs-stat" $((w1 - w0)) "$(j .disks[0].ops.write.completions)"
check_eq "read-hist" "[[1,5],[2,5],[3,5],[40,5]]" "$(j .disks[0].ops.read.seg_hist)"
check_eq "write-hist" "[[1,5],[2,5],[3,5],[40,5]]" "$(j .disks[0].ops.write.seg_hist)"
check_eq "read-chained" 10 "$(j .disks[0].ops.read.chained)"
# inline 2 assumed: 3 segments -> 1 inline + sgpool-8 (256 B); 40 -> 1 + 39 in sgpool-64 (2048 B)
check_eq "read-chained-bytes" $((5 * 256 + 5 * 2048)) "$(j .disks[0].ops.read.chained_bytes)"
if [ $disc = 1 ] && [ $((d1 - d0)) -gt 0 ]; then
	check_eq "discards-vs-stat" $((d1 - d0)) "$(j .disks[0].ops.discard.completions)"
	check_eq "discard-one-segment" "[[1,$((d1 - d0))]]" "$(j .disks[0].ops.discard.seg_hist)"
else
	skip "discard" "BLKDISCARD not supported by this disk"
fi
sglstat memory -d $D -j > "$OUT/mem.json"
check_eq "memory-maxseg" "$(cat /sys/block/$D/queue/max_segments)" "$(jq .disks[0].max_segments "$OUT/mem.json")"
check_eq "memory-hwq" "$(ls -d /sys/block/$D/mq/[0-9]* | wc -l)" "$(jq .disks[0].nr_hw_queues "$OUT/mem.json")"
exit 0
