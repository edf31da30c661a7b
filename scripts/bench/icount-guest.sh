# Guest side of the deterministic matrix (scripts/bench/run.sh, part icount),
# booted with -icount shift=0,sleep=off on null-co disks: the guest clock
# counts executed instructions, and `iobench spin` keeps the vCPU busy so the
# clock never warps; `iobench run` reports instructions per I/O with the
# spinner's turns taken out (tests/vm/iobench.c). What it measures is the
# CPU work of the whole I/O path (iobench, syscalls, block layer, driver,
# interrupt), not cache or memory-bandwidth effects, which TCG does not model.
#
# One line per cell, configuration and round in $OUT/icount.txt:
#   layout rw bs qd config round ipio wait_share chained_pct [prog_ipio] irq=IRQS
# ipio, wait_share (the time spent waiting, in the spinner or polling) and
# IRQS (virtio interrupts per I/O) are means over BENCH_IC_REPS consecutive
# runs, with the guest's background rate (iobench base, measured once at
# start) taken out (BENCH_IC_LAT_REPS runs, of BENCH_IC_LAT_N I/Os, at the
# queue depths BENCH_IC_LAT_QD that run on a latency disk); prog_ipio, for
# the *-stats configurations only (that tracer attached with
# kernel.bpf_stats_enabled=1): the run_time_ns its BPF programs accumulated
# (their prog fds' fdinfo), per I/O the block layer completed over the
# run's reps; under -icount a nanosecond is an instruction, so this is what
# the programs themselves execute per I/O;
# layouts: frag (THP off, memory fragmented by `segbuf hog`, 4 KiB buffer
# pages: requests span a segment per page) and contig (THP on, buffers in
# huge pages: one segment, nothing chains). Configurations run in blocks
# (the measure does not drift with the host, unlike wall-clock IOPS), in a
# rotated order per round. A run that stalls (no completion for 20 s of
# guest clock) is reported as a "stall" line with the disk's state.
set -u
ROUNDS=${BENCH_IC_ROUNDS:-5}
N=${BENCH_IC_N:-3000}
REPS=${BENCH_IC_REPS:-2}
BSS=${BENCH_IC_BS:-"512 4096 16384 65536 131072"}
QDS=${BENCH_IC_QD:-"1 8 64 128"}
RWS=${BENCH_IC_RW:-"read write"}
LAYOUTS=${BENCH_IC_LAYOUTS:-"frag contig"}
# configurations: prealloc inline2 tuned intree, and sglstat / sglstat-setup
# (--setup-time) / biolatency (inline 2 with that tracer attached:
# scripts/bench/run.sh part icount-tracers), and each of those with -stats
# (the same with bpf_stats)
CONFIGS=${BENCH_IC_CONFIGS:-"prealloc inline2 tuned intree"}
TUNED=${BENCH_TUNED:-}
# the disk's I/O scheduler (BENCH_IC_SCHED=none: blk-mq ends completions in
# batches only without one); unset: the kernel's default (mq-deadline on a
# single-queue disk)
SCHED=${BENCH_IC_SCHED:-}
# BENCH_IC_POLL=1 (the default): iobench reaps completions from the AIO
# ring, spinning (its turns taken out like the spinner's), instead of
# sleeping in io_getevents. Sleeping, a lone request was completed by QEMU's
# main loop sometimes before iobench slept and sometimes after, so the path
# (a context switch and a wake-up, or none) changed from run to run: QD 1
# moved by up to 5% and ran on a second disk with latency to be stable.
# Polling, every wait takes the same path (QD 1: 0.05% between rounds).
POLL=${BENCH_IC_POLL:-1}
export IOBENCH_POLL=$POLL
# The queue depths run on that second disk (serial null0lat: a null-co disk
# with latency-ns, scripts/bench/run.sh adds it when they are set or
# BENCH_IC_POLL=0); BENCH_IC_LATDISK (set by run.sh): its latency-ns
LAT_QDS=${BENCH_IC_LAT_QD-$([ "$POLL" = 1 ] || echo 1)}
LAT_N=${BENCH_IC_LAT_N:-1000}
# one run a cell there: every run takes the same path, and each costs a
# second and a half of host time (the latency timer fires late under TCG)
LAT_REPS=${BENCH_IC_LAT_REPS:-1}
HAS_LAT=${BENCH_IC_LATDISK:-}
on_lat_disk() { [ -n "$HAS_LAT" ] && case " $LAT_QDS " in *" $1 "*) true ;; *) false ;; esac; }
SPIN=/tmp/iobench.spin

# Quiet the guest: what runs besides the I/O path counts as its cost, and
# kernel housekeeping that comes at random (proactive compaction of the
# fragmented memory, vmstat folding, the lockup watchdogs) showed up as
# single runs 10-25% above their round's others.
for k in vm/compaction_proactiveness=0 vm/stat_interval=3600 kernel/watchdog=0 kernel/nmi_watchdog=0; do
	echo "${k#*=}" >/proc/sys/${k%=*} 2>/dev/null
done
iobench rep >"$OUT/rep.txt"
iobench spin $SPIN &
wait_for 10 test -s $SPIN || { echo "bench: iobench spin did not start"; exit 1; }
# the background rate runs subtract, per guest ns (iobench base)
export IOBENCH_BASE=$(iobench base $SPIN 3000)
echo "base $IOBENCH_BASE" >"$OUT/base.txt"

# the attached tracer's pid (load runs in a command substitution: a file,
# not a variable); it goes before the module, which it holds
TRACER_PID=/tmp/bench.tracer
gone() { ! kill -0 "$1" 2>/dev/null; }
unload_all() {
	if [ -s $TRACER_PID ]; then
		kill "$(cat $TRACER_PID)" 2>/dev/null
		wait_for 20 gone "$(cat $TRACER_PID)" || echo "bench: tracer $(cat $TRACER_PID) did not exit" >&2
		rm -f $TRACER_PID
	fi
	sgl_unload 2>/dev/null; rmmod virtio_blk 2>/dev/null; true
}
# holds_progs PID: the process holds BPF programs (fds whose fdinfo has a prog_id)
holds_progs() { grep -q '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null; }
# attach TOOL...: start a tracer in the background and wait until it holds
# its BPF programs; its long interval keeps its own reports out of the runs
attach() {
	"$@" >/dev/null 2>&1 &
	echo $! >$TRACER_PID
	wait_for 30 holds_progs $! || { echo "bench: $1 did not attach" >&2; return 1; }
	sleep 0.5
}
# the disk with serial $1 of the loaded driver (the in-tree one's: vd*)
bench_disk() { disk_of_serial "$1" "$PREFIX"; }
# for wait_for, which reruns its command: the disk with serial $1 is there
has_disk() { [ -n "$(bench_disk "$1")" ]; }
# load CONFIG: the driver and parameters of a configuration (sglstat and
# biolatency: inline 2 with that tracer attached); prints the disk and the
# latency disk (- when the guest has none)
load() {
	unload_all
	case $1 in
	prealloc) sgl_load prealloc=1 ;;
	inline2|sglstat*|biolatency*) sgl_load inline_sg_cnt=2 ;;
	tuned) sgl_load inline_sg_cnt="$TUNED" ;;
	intree) intree_load ;;
	esac || { echo "bench: cannot load $1" >&2; return 1; }
	PREFIX=vsgl
	[ "$1" != intree ] || PREFIX=vd
	wait_for 10 has_disk null0 || { echo "bench: no disk under $1" >&2; return 1; }
	_d=$(bench_disk null0) _dl=-
	[ -z "$HAS_LAT" ] || { wait_for 10 has_disk null0lat && _dl=$(bench_disk null0lat); } ||
		{ echo "bench: no latency disk under $1" >&2; return 1; }
	for _q in /sys/block/$_d /sys/block/$_dl; do
		[ -z "$SCHED" ] || [ ! -d $_q ] || echo "$SCHED" >$_q/queue/scheduler ||
			{ echo "bench: cannot set scheduler $SCHED" >&2; return 1; }
	done
	case $1 in *-stats) echo 1 ;; *) echo 0 ;; esac >/proc/sys/kernel/bpf_stats_enabled
	case $1 in
	sglstat-setup*) attach sglstat --mode driver --setup-time 3600 >&2 || return 1 ;;
	sglstat*) attach sglstat --mode driver 3600 >&2 || return 1 ;;
	biolatency*) attach biolatency 3600 >&2 || return 1 ;;
	esac
	echo "$_d $_dl"
}
chained() { [ -d "/sys/block/$1/sgl" ] && sgl_get "$1" requests_chained || echo -; }
mapped() { [ -d "/sys/block/$1/sgl" ] && sgl_get "$1" requests_mapped || echo -; }
# prog_ns: run_time_ns summed over the attached tracer's BPF programs
prog_ns() {
	cat /proc/"$(cat $TRACER_PID)"/fdinfo/* 2>/dev/null | awk '$1 == "run_time_ns:" { s += $2 } END { print s + 0 }'
}

layout() {
	case $1 in
	frag)
		echo never >/sys/kernel/mm/transparent_hugepage/enabled
		[ -n "${HOG:-}" ] || { segbuf hog 128 & HOG=$!; sleep 1; }
		export IOBENCH_HUGE=0 ;;
	contig)
		[ -z "${HOG:-}" ] || { kill "$HOG"; wait "$HOG" 2>/dev/null; HOG=; }
		echo always >/sys/kernel/mm/transparent_hugepage/enabled
		echo 1 >/proc/sys/vm/compact_memory
		export IOBENCH_HUGE=1 ;;
	esac
}

# The tuned count: what sglstat tune recommends for the matrix's sizes
# (fragmented memory, one iobench run per size meanwhile).
case " $CONFIGS " in *" tuned "*) ;; *) TUNED=${TUNED:-none} ;; esac
if [ -z "$TUNED" ]; then
	layout frag
	d=$(load inline2) || exit 1
	d=${d% *}
	sglstat tune -d "$d" --duration 6 >"$OUT/tune.txt" 2>&1 &
	tp=$!
	wait_for 20 grep -q '^Tracing' "$OUT/tune.txt"
	while kill -0 $tp 2>/dev/null; do
		for bs in $BSS; do iobench run /dev/$d read $bs 8 300 $SPIN >/dev/null; done
	done
	wait $tp
	TUNED=$(sed -n 's/^options virtio_blk_sgl inline_sg_cnt=\([0-9]*\).*/\1/p' "$OUT/tune.txt")
	[ -n "$TUNED" ] || { echo "bench: no recommendation from sglstat tune"; cat "$OUT/tune.txt"; exit 1; }
fi
echo "tuned $TUNED" >"$OUT/tuned.txt"
echo "$ROUNDS" >"$OUT/rounds.txt"
[ "$POLL" = 1 ] && echo poll >"$OUT/wait.txt" || echo sleep >"$OUT/wait.txt"
if [ -n "$HAS_LAT" ] && [ -n "$LAT_QDS" ]; then echo "$LAT_QDS|$HAS_LAT|$LAT_N|$LAT_REPS"; fi >"$OUT/latdisk.txt"

# BENCH_IC_FIRST_ROUND: where a boot after a guest that died goes on
# (scripts/bench/run.sh); rounds-done.txt gets each round as it completes
: >"$OUT/icount.txt"
: >"$OUT/rounds-done.txt"
for round in $(seq "${BENCH_IC_FIRST_ROUND:-1}" "$ROUNDS"); do
	for lay in $LAYOUTS; do
		layout "$lay"
		order=$(echo $CONFIGS | tr ' ' '\n' | awk -v r="$round" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + r) % NR + 1] }')
		for cfg in $order; do
			disks=$(load "$cfg") || exit 1
			for rw in $RWS; do for bs in $BSS; do for qd in $QDS; do
				d=${disks% *} n=$N reps=$REPS
				! on_lat_disk "$qd" || d=${disks#* } n=$LAT_N reps=$LAT_REPS
				# the mean of REPS runs: from QD 8 on, a run's count
				# moves both ways with how QEMU's main loop batched
				# its completions (the cheapest of them was the
				# noisier pick: tests of 5 rounds, 2026-12-05)
				c0=$(chained "$d") m0=$(mapped "$d") r="" rc=0 runs=
				case $cfg in *-stats) p0=$(prog_ns) io0=$(blk_ios "$d") ;; esac
				for _rep in $(seq "$reps"); do
					_r=$(iobench run "/dev/$d" "$rw" "$bs" "$qd" "$n" $SPIN) || { rc=$?; r=$_r; break; }
					runs="$runs$_r
"
				done
				[ $rc != 0 ] || r=$(printf %s "$runs" | awk '{ i += $4; w += $5; q += $6 } END { printf "n - - %.1f %.4f %.4f", i / NR, w / NR, q / NR }')
				if [ $rc != 0 ]; then
					{
						echo "stall $lay $rw $bs $qd $cfg $round rc=$rc: $r"
						echo "  inflight $(cat /sys/block/$d/inflight)"
						[ -d /sys/block/$d/sgl ] && grep . /sys/block/$d/sgl/* | sed 's/^/  /'
						dmesg | tail -20 | sed 's/^/  /'
					} >>"$OUT/stalls.txt"
					echo "$lay $rw $bs $qd $cfg $round stall" >>"$OUT/icount.txt"
					continue
				fi
				c1=$(chained "$d") m1=$(mapped "$d")
				pct=-
				[ "$c0" = - ] || pct=$(awk -v c=$((c1 - c0)) -v m=$((m1 - m0)) 'BEGIN { printf "%.1f", m ? 100 * c / m : 0 }')
				progs=
				case $cfg in *-stats) progs=$(awk -v p=$(($(prog_ns) - p0)) -v n=$(($(blk_ios "$d") - io0)) \
					'BEGIN { printf " %.0f", n ? p / n : 0 }') ;; esac
				set -- $r
				echo "$lay $rw $bs $qd $cfg $round $4 $5 $pct$progs irq=$6" >>"$OUT/icount.txt"
			done; done; done
		done
	done
	echo "$round" >>"$OUT/rounds-done.txt"
done
unload_all
exit 0
