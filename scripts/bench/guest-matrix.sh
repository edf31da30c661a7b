# Guest side of the upstream fio matrix (run by scripts/bench/run.sh through
# tests/vm/guest-run). Configurations are interleaved: each round loads
# every configuration once, in an order rotated per round (ABC, BCA, CAB...),
# and runs the whole matrix under it. One line per run in $OUT/matrix.txt:
#   rw bs iodepth numjobs config round iops
set -u
ROUNDS=${BENCH_ROUNDS:-3}
RUNTIME=${BENCH_RUNTIME:-3}
BSS=${BENCH_BS:-"512 4k 16k 64k 128k"}
QDS=${BENCH_QD:-"1 8 64"}
RWS=${BENCH_RW:-"randread randwrite"}
TUNED=${BENCH_TUNED:-}

reload() { sgl_unload 2>/dev/null; sgl_load "$@" || exit 1; sleep 1; }
disk() { sgl_disks | head -1; }

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
for round in $(seq "$ROUNDS"); do
	# rotate the configuration order by the round number
	order=$(echo "$cfgs" | tr ' ' '\n' | awk -v r="$round" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }')
	for c in $order; do
		name=${c%%:*}
		reload "${c#*:}"
		d=$(disk)
		echo "round $round config $name ($(sgl_get "$d" inline_sg_cnt) inline)"
		for rw in $RWS; do
			for bs in $BSS; do
				for qd in $QDS; do
					iops=$(fio --name=m --filename="/dev/$d" --direct=1 --ioengine=libaio \
						--rw="$rw" --bs="$bs" --iodepth="$qd" --time_based \
						--runtime="$RUNTIME" --ramp_time=1 --output-format=terse |
						awk -F';' '{ print $8 + $49 }')
					echo "$rw $bs $qd 1 $name $round $iops" >> "$OUT/matrix.txt"
				done
			done
			# upstream ran 16 jobs x iodepth 128; 2 vCPUs allow 2 x 128
			iops=$(fio --name=m --filename="/dev/$d" --direct=1 --ioengine=libaio \
				--rw="$rw" --bs=4k --iodepth=128 --numjobs=2 --group_reporting \
				--time_based --runtime="$RUNTIME" --ramp_time=1 --output-format=terse |
				awk -F';' '{ print $8 + $49 }')
			echo "$rw 4k 128 2 $name $round $iops" >> "$OUT/matrix.txt"
		done
	done
done
sgl_unload
