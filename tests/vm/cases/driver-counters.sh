# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 300
# expect-results: 82 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# guest-run-share: yes
# virtio_blk_sgl counters against ground truth: requests_mapped against the
# block layer's own completion counts, requests_chained against requests
# built by segbuf with a known number of segments each, chained bytes
# against the sg_pool model, and the tracepoints' view of the same requests.
# Needs segbuf (tests/vm/segbuf.c) on PATH.
D=vsgla
DEV=/dev/$D
T=/sys/kernel/tracing
NS="1 2 3 4 5 16 64 200"	# segments per request
REPS=3				# requests per direction and size

command -v segbuf >/dev/null || { fail prereq "segbuf helper not built (make guest-tools)"; exit 1; }

chained() { [ "$(sgpool_bytes "$1" "$2")" -gt 0 ]; }

# the scatterlist entry the memory figures count in is the kernel's own
# (its BTF says; 40 bytes with CONFIG_DEBUG_SG)
sgl_load 2>/dev/null
btf_sg=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw | sed -n "s/.*STRUCT 'scatterlist' size=\([0-9]*\) .*/\1/p")
check_eq sg-entry-bytes-is-btf-size "${btf_sg:-no BTF}" "$(sgl_get $D sg_entry_bytes)"

for mode in inline_sg_cnt=2 inline_sg_cnt=0 inline_sg_cnt=1 inline_sg_cnt=4 prealloc=1; do
	sgl_unload 2>/dev/null
	if ! sgl_load "$mode"; then fail "load/$mode" "insmod failed"; continue; fi
	inl=$(sgl_get $D inline_sg_cnt)
	case $mode in
	prealloc=1) check_eq "inline-count/$mode" "$(sgl_get $D max_segments)" "$inl" ;;
	*) check_eq "inline-count/$mode" "${mode#inline_sg_cnt=}" "$inl" ;;
	esac

	m0=$(sgl_get $D requests_mapped) c0=$(sgl_get $D requests_chained)
	expect=0 sector=2048 ok=1
	for n in $NS; do
		segbuf write $DEV "$n" $REPS $sector || ok=0
		segbuf read $DEV "$n" $REPS $sector || ok=0
		chained "$n" "$inl" && expect=$((expect + 2 * REPS))
		sector=$((sector + n * 4 * REPS + 64))
	done
	check "segbuf-io/$mode" [ $ok = 1 ]
	m1=$(sgl_get $D requests_mapped) c1=$(sgl_get $D requests_chained)
	# every segbuf request is one block request
	nreq=0
	for n in $NS; do nreq=$((nreq + 2 * REPS)); done
	check_eq "requests-mapped-delta/$mode" $nreq $((m1 - m0))
	check_eq "requests-chained/$mode" $expect $((c1 - c0))
	check_eq "mapped-vs-diskstats/$mode" "$(blk_ios $D)" "$m1"
	check_eq "completed-vs-mapped/$mode" "$m1" "$(sgl_get $D requests_completed)"
	check_eq "chained-bytes-now-idle/$mode" 0 "$(sgl_get $D chained_bytes_now)"
	check_eq "no-io-errors/$mode" 0 "$(sgl_get $D io_errors)"
	check_eq "no-alloc-failures/$mode" 0 "$(sgl_get $D chain_alloc_failures)"

	# the peak of one lone request is exactly what the model says
	echo 0 > /sys/block/$D/sgl/chained_bytes_peak
	check_eq "peak-reset/$mode" 0 "$(sgl_get $D chained_bytes_peak)"
	segbuf write $DEV 200 1 2048
	check_eq "peak-200-segs/$mode" "$(sgpool_bytes 200 "$inl")" "$(sgl_get $D chained_bytes_peak)"
	# The peak is the sum of per-CPU peaks (docs/ABI.md): one request at a
	# time, first set up on CPU 0, then on CPU 1, counts twice.
	echo 0 > /sys/block/$D/sgl/chained_bytes_peak
	busybox taskset -c 0 segbuf write $DEV 200 1 2048
	busybox taskset -c 1 segbuf write $DEV 200 1 2048
	check_eq "peak-per-cpu-sum/$mode" $((2 * $(sgpool_bytes 200 "$inl"))) "$(sgl_get $D chained_bytes_peak)"
	check_eq "chained-bytes-now-idle-after-peak/$mode" 0 "$(sgl_get $D chained_bytes_now)"

	# the tracepoints see the same numbers
	if [ -d $T/events/virtio_blk_sgl ]; then
		echo > $T/trace
		echo 1 > $T/events/virtio_blk_sgl/virtio_blk_sgl_setup/enable
		echo 1 > $T/events/virtio_blk_sgl/virtio_blk_sgl_complete/enable
		segbuf read $DEV 16 1 2048
		echo 0 > $T/events/virtio_blk_sgl/enable
		want_c=0
		chained 16 "$inl" && want_c=1
		s=$(grep 'virtio_blk_sgl_setup:' $T/trace | grep 'nsegs=16 ' | head -1)
		c=$(grep 'virtio_blk_sgl_complete:' $T/trace | grep 'nsegs=16 ' | head -1)
		echo "$s" >> "$OUT/trace-$mode.txt"
		echo "$c" >> "$OUT/trace-$mode.txt"
		case $s in
		*"inline=$inl chained=$want_c chained_bytes=$(sgpool_bytes 16 "$inl") err=0 retry=0 setup_ns="[1-9]*) pass "trace-setup/$mode" ;;
		*) fail "trace-setup/$mode" "got '$s'" ;;
		esac
		case $c in
		*"chained=$want_c chained_bytes=$(sgpool_bytes 16 "$inl") vstatus=0 blk_status=0"*) pass "trace-complete/$mode" ;;
		*) fail "trace-complete/$mode" "got '$c'" ;;
		esac
	else
		fail "tracepoints/$mode" "no events/virtio_blk_sgl in tracefs"
	fi
done

# Flushes and discards.  In 6.1 an fsync is an empty PREFLUSH write: the
# stat file counts it once as a (0-sector) write in field 5 and once as a
# flush in field 16, but the driver gets one request, the flush.  So with
# fsyncs the driver's count is fields 1+5+12, and field 16 equals the flush
# requests the driver saw (counted with the setup tracepoint, op=2).
sgl_unload; sgl_load
echo > $T/trace
echo 1 > $T/events/virtio_blk_sgl/virtio_blk_sgl_setup/enable
segbuf discard $DEV 8192 2048 || fail discard-ioctl "BLKDISCARD failed"
fio --name=fl --filename=$DEV --rw=write --bs=4k --size=256k --direct=1 --fsync=4 --output-format=terse >/dev/null ||
	fail flush-fio "fio failed"
echo 0 > $T/events/virtio_blk_sgl/enable
set -- $(cat /sys/block/$D/stat)
check "diskstats-saw-discards" [ "${12}" -gt 0 ]
check "diskstats-saw-flushes" [ "${16}" -gt 0 ]
check_eq "flushes-vs-diskstats" "${16}" "$(grep -c 'virtio_blk_sgl_setup:.* op=2 ' $T/trace)"
check_eq "mapped-vs-diskstats/flush-discard" $(($1 + $5 + ${12})) "$(sgl_get $D requests_mapped)"
# the internal GET_ID (serial) is not a mapped request
m=$(sgl_get $D requests_mapped)
cat /sys/block/$D/serial >/dev/null
check_eq "get-id-not-counted" "$m" "$(sgl_get $D requests_mapped)"

# requests_mapped counts a request before it can complete: sampled under
# load (one awk reading both files back to back, completed first), completed
# never exceeds mapped
fio --name=race --filename=$DEV --rw=randread --bs=4k --size=16M --direct=1 --ioengine=libaio --iodepth=32 \
	--numjobs=2 --time_based --runtime=4 --output=/dev/null &
fp=$!
sleep 0.5
set -- $(awk -v fc=/sys/block/$D/sgl/requests_completed -v fm=/sys/block/$D/sgl/requests_mapped 'BEGIN {
	for (i = 0; i < 5000; i++) {
		getline c < fc; close(fc)
		getline m < fm; close(fm)
		if (c + 0 > m + 0) ahead++
	}
	print ahead + 0, i
}')
wait $fp
check "completed-never-ahead-of-mapped ($1 of $2 samples)" [ "$1" = 0 -a "$2" = 5000 ]
