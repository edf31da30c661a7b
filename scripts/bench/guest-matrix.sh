# Guest side of the upstream fio matrix (run by scripts/bench/run.sh through
# tests/vm/guest-run). Configurations are interleaved cell by cell: for
# every cell of the matrix, each configuration is loaded and run in turn,
# in the order ABC for one cell and CBA for the next, rotated per round
# (BCA/ACB, CAB/BAC), so that the
# host's drifting speed (steal time of 10-20% was seen here) hits all three
# alike; a first version that ran the whole matrix under one configuration
# at a time saw medians differ by 3x from drift alone.
# One line per run in $OUT/matrix.txt:
#   rw bs iodepth numjobs config round iops chained_pct
# where chained_pct is the driver's requests_chained / requests_mapped delta
# over the run (sysfs), so the table shows how often each config chained.
#
# Transparent huge pages are off and memory is fragmented first (segbuf
# hog): otherwise fio's buffers sit in huge pages, every request is one
# physical segment whatever its size, and no configuration ever chains.
set -u
ROUNDS=${BENCH_ROUNDS:-3}
RUNTIME=${BENCH_RUNTIME:-3}
BSS=${BENCH_BS:-"512 4k 16k 64k 128k"}
QDS=${BENCH_QD:-"1 8 64"}
RWS=${BENCH_RW:-"randread randwrite"}
TUNED=${BENCH_TUNED:-}

echo never > /sys/kernel/mm/transparent_hugepage/enabled
segbuf hog 128 &
sleep 1

reload() { sgl_unload 2>/dev/null; sgl_load "$@" || exit 1; sleep 0.5; }
disk() { sgl_disks | head -1; }
# fio_cell NAME ARGS...: IOPS and chained percentage of one fio run
fio_cell() {
	_m0=$(sgl_get "$d" requests_mapped) _c0=$(sgl_get "$d" requests_chained)
	_iops=$(fio --name=m --filename="/dev/$d" --direct=1 --ioengine=libaio --time_based \
		--runtime="$RUNTIME" --ramp_time=1 --output-format=terse "$@" | awk -F';' '{ print $8 + $49 }')
	_m=$(($(sgl_get "$d" requests_mapped) - _m0)) _c=$(($(sgl_get "$d" requests_chained) - _c0))
	echo "$_iops $(awk -v c=$_c -v m=$_m 'BEGIN { printf "%.1f", m ? 100 * c / m : 0 }')"
}

# The tuned value: what sglstat tune recommends for the matrix's own mix.
if [ -z "$TUNED" ]; then
	reload inline_sg_cnt=2
	d=$(disk)
	sglstat tune -d "$d" --duration 8 > "$OUT/tune.txt" 2>&1 &
	tp=$!
	sleep 2
	fio --name=mix --filename="/dev/$d" --direct=1 --ioengine=libaio --rw=randrw \
		--bssplit=512/20:4k/20:16k/20:64k/20:128k/20 --iodepth=8 --time_based \
		--runtime=6 --output=/dev/null
	wait $tp
	TUNED=$(sed -n 's/^options virtio_blk_sgl inline_sg_cnt=\([0-9]*\).*/\1/p' "$OUT/tune.txt")
	[ -n "$TUNED" ] || { echo "bench: no recommendation from sglstat tune"; cat "$OUT/tune.txt"; exit 1; }
fi
echo "tuned $TUNED" > "$OUT/tuned.txt"

set -- "prealloc:prealloc=1" "inline2:inline_sg_cnt=2" "tuned:inline_sg_cnt=$TUNED"
cfgs="$*"
: > "$OUT/matrix.txt"
# cells: "rw bs iodepth numjobs"; upstream ran 16 jobs x iodepth 128, 2 vCPUs allow 2 x 128
cells=$(for rw in $RWS; do
	for bs in $BSS; do for qd in $QDS; do echo "$rw:$bs:$qd:1"; done; done
	echo "$rw:4k:128:2"
done)
cur=""
for round in $(seq "$ROUNDS"); do
	n=0
	for cell in $cells; do
		n=$((n + 1))
		IFS=: read -r rw bs qd jobs <<EOC
$cell
EOC
		# ABC then CBA (the last one stays loaded), rotated per round
		order=$(echo "$cfgs" | tr ' ' '\n' | awk -v r="$round" -v rev=$((n % 2)) '{ a[NR] = $0 }
			END { for (i = 0; i < NR; i++) print a[((rev ? NR - 1 - i : i) + r) % NR + 1] }')
		for c in $order; do
			name=${c%%:*}
			[ "$cur" = "$name" ] || { reload "${c#*:}"; cur=$name; }
			d=$(disk)
			echo "$rw $bs $qd $jobs $name $round $(fio_cell --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$jobs" --group_reporting)" >> "$OUT/matrix.txt"
		done
	done
	echo "round $round done"
done
sgl_unload
kill %1 2>/dev/null
