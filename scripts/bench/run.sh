#!/bin/bash
# make bench: every benchmark of docs/BENCHMARKS.md, side by side in one run.
# Raw outputs go to build/bench/, tables and plots to docs/bench/, and
# docs/BENCHMARKS.md is written from them (never typed in).
# Knobs: BENCH_ROUNDS (3), BENCH_RUNTIME (3 s per fio run of the guest
# matrix), BENCH_COST_REPS (5) and BENCH_COST_RUNTIME (5 s) for the guest
# cost, HOST_REPS (5), HOST_RUNTIME (10 s), BENCH_IC_* for the icount
# matrix (scripts/bench/icount-guest.sh; BENCH_IC_LAT_NS (100000) is the
# latency of its second disk, when it has one; BENCH_IC_BOOTS (3) the boots
# an icount part may take), BENCH_PARTS ("host icount
# icount-parts icount-tracers driver-insns guest-matrix guest-cost memory userspace").  A docs/bench/PART.note, when present, is
# printed above that part's table (what the machine was doing meanwhile).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
B=$BUILD/bench
D=$TOP/docs/bench
PARTS=${BENCH_PARTS:-"host icount icount-parts icount-tracers driver-insns guest-matrix guest-cost memory userspace"}
mkdir -p "$B" "$D"
GR=$TOP/tests/vm/guest-run
has() { case " $PARTS " in *" $1 "*) knobs "$1"; when "$1"; return 0 ;; esac; return 1; }
# each part's table says which knobs produced it
knobs() { env | grep -E '^(BENCH|HOST|USER)_' | grep -v '^BENCH_PARTS=' | sort | tr '\n' ' ' > "$D/$1.knobs" || true; }
# and when, at which commit (parts of earlier runs keep theirs)
when() { echo "$(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)" > "$D/$1.when"; }
stamp() { echo "== $(date -u +%H:%M:%S) $*" >&2; }

guest() { # out-name script guest-run-args...
	local name=$1 script=$2
	shift 2
	# BENCH_* variables reach the guest through guest-run
	"$GR" --quiet "$@" --file "$TOP/scripts/bench/host-cost.sh" --out "$B/$name" "$script"
}

# icount_guest NAME GUEST-RUN-ARGS...: scripts/bench/icount-guest.sh in as
# many boots as it takes, up to BENCH_IC_BOOTS: a guest that dies loses
# only its unfinished round, and the next boot goes on from there with the
# same tuned count (under -icount, TCG once left a guest with impossible
# flags in a double fault, half an hour into the matrix: docs/RELIABILITY.md).
# Writes $B/NAME.txt (the completed rounds of every boot, in order) and
# $B/NAME.boots (a line a boot, with what its console said if it died).
icount_guest() {
	local name=$1 first=1 boot=1 rc last dir tuned=${BENCH_TUNED:-}
	shift
	: >"$B/$name.txt"
	: >"$B/$name.boots"
	while :; do
		dir=$name
		[ $boot = 1 ] || dir=$name.boot$boot
		rc=0
		BENCH_TUNED=$tuned BENCH_IC_FIRST_ROUND=$first guest "$dir" "$TOP/scripts/bench/icount-guest.sh" "$@" || rc=$?
		last=$(tail -1 "$B/$dir/rounds-done.txt" 2>/dev/null || true)
		awk -v last="${last:-0}" '$6 + 0 <= last + 0' "$B/$dir/icount.txt" >>"$B/$name.txt" 2>/dev/null || true
		[ -n "$tuned" ] || tuned=$(sed -n 's/^tuned //p' "$B/$dir/tuned.txt" 2>/dev/null || true)
		echo "boot $boot: rounds $first to ${last:-none} completed, guest-run exit $rc" >>"$B/$name.boots"
		[ $rc != 0 ] || return 0
		{ grep -m4 -E 'PANIC|BUG:|Oops|panic|RIP:' "$B/$dir/console.log" || true; } | sed 's/^/  /' >>"$B/$name.boots"
		if [ -z "$last" ] || [ "$last" -lt "$first" ]; then
			echo "bench: $name: boot $boot completed no round" >&2
			return 1
		fi
		[ "$last" -lt "$(cat "$B/$dir/rounds.txt")" ] || return 0
		first=$((last + 1)) boot=$((boot + 1))
		if [ $boot -gt "${BENCH_IC_BOOTS:-3}" ]; then
			echo "bench: $name: the guest died in $((boot - 1)) boots" >&2
			return 1
		fi
		stamp "$name: the guest died (guest-run exit $rc); boot $boot goes on from round $first"
	done
}
# what icount_guest's boots were, below a part's table
boots_note() { # NAME
	local n
	n=$(grep -c '^boot' "$B/$1.boots")
	echo
	if [ "$n" = 1 ]; then
		echo "Guest boots: 1, every round in one boot."
		return
	fi
	echo "Guest boots: $n; each boot after the first went on from the round the one before it died in (that round's runs were measured again):"
	echo
	sed 's/^/    /' "$B/$1.boots"
}

if has host; then
	stamp "host: instrumentation cost, stock mode on the root disk"
	REPS=${HOST_REPS:-5} RUNTIME=${HOST_RUNTIME:-10} "$TOP/scripts/bench/host-cost.sh" > "$B/host-cost.txt"
	awk -f "$TOP/scripts/bench/summarize-cost.awk" "$B/host-cost.txt" > "$D/host-cost.md"
fi
if has icount; then
	stamp "guest: instructions per I/O under -icount on a null-co disk"
	# a second disk, with latency, serves the queue depths BENCH_IC_LAT_QD
	# (by default none; QD 1 when iobench sleeps, BENCH_IC_POLL=0:
	# scripts/bench/icount-guest.sh says why)
	lat= latdisk=
	if [ -n "${BENCH_IC_LAT_QD:-}" ] || [ "${BENCH_IC_POLL:-1}" = 0 ]; then
		lat=${BENCH_IC_LAT_NS:-100000}
		latdisk="-drive driver=null-co,id=n1,if=none,size=1G,latency-ns=$lat -device virtio-blk-pci,drive=n1,serial=null0lat"
	fi
	BENCH_IC_LATDISK=$lat icount_guest icount --disks 0 --smp 1 --mem 1024 --timeout 21600 \
		--qemu-args "-icount shift=0,sleep=off -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0 $latdisk"
	cp "$B/icount/latdisk.txt" "$D/icount.latdisk"
	cp "$B/icount/wait.txt" "$D/icount.wait"
	{
		awk -v dat="$D/icount" -f "$TOP/scripts/bench/icount-stats.awk" -f "$TOP/scripts/bench/summarize-icount.awk" "$B/icount.txt"
		boots_note icount
	} > "$D/icount.md"
	cp "$B/icount/tuned.txt" "$D/icount.tuned"
	cp "$B/icount/rep.txt" "$D/icount.rep"
	for lay in frag contig; do
		[ -s "$D/icount.$lay.read.dat" ] || continue
		for t in svg png; do
			gnuplot -e "pre='$D/icount'; lay='$lay'; out='$D/icount-$lay.$t'; term='$t'" "$TOP/scripts/bench/plot-icount.gp"
		done
	done
fi
if has icount-parts; then
	stamp "guest: where the chained path's instructions go (init_on_alloc on and off)"
	: > "$B/icount-parts.txt"
	for ioa in 1 0; do
		BENCH_IC_CONFIGS="prealloc inline2 intree" BENCH_IC_BS="4096 16384 65536" BENCH_IC_QD=8 \
		BENCH_IC_RW=read BENCH_IC_LAYOUTS=frag BENCH_IC_ROUNDS=${BENCH_IC_ROUNDS:-5} \
			icount_guest "icount-ioa$ioa" --disks 0 --smp 1 --mem 1024 \
			--timeout 7200 --append "init_on_alloc=$ioa" \
			--qemu-args "-icount shift=0,sleep=off -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0"
		sed "s/^/init_on_alloc=$ioa /" "$B/icount-ioa$ioa.txt" >> "$B/icount-parts.txt"
	done
	awk -f "$TOP/scripts/bench/icount-stats.awk" -f "$TOP/scripts/bench/summarize-icount-parts.awk" "$B/icount-parts.txt" > "$D/icount-parts.md"
fi
if has icount-tracers; then
	stamp "guest: what an attached sglstat or biolatency costs per I/O, under -icount"
	BENCH_IC_CONFIGS="inline2 sglstat sglstat-setup biolatency sglstat-stats sglstat-setup-stats biolatency-stats" BENCH_IC_BS=${BENCH_IC_BS:-"4096 65536"} BENCH_IC_QD=${BENCH_IC_QD:-8} \
	BENCH_IC_RW=${BENCH_IC_RW:-read} BENCH_IC_LAYOUTS=${BENCH_IC_LAYOUTS:-frag} BENCH_TUNED=none \
		icount_guest icount-tracers --disks 0 --smp 1 --mem 1024 --timeout 7200 \
		--qemu-args "-icount shift=0,sleep=off -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0"
	{
		awk -f "$TOP/scripts/bench/icount-stats.awk" -f "$TOP/scripts/bench/summarize-icount-tracers.awk" "$B/icount-tracers.txt"
		boots_note icount-tracers
	} > "$D/icount-tracers.md"
fi
if has driver-insns; then
	stamp "guest: each driver's own instructions per I/O, function by function (QEMU's executed-block log)"
	"$TOP/scripts/bench/driver-insns.sh" "$B/driver-insns" > "$D/driver-insns.md"
fi
if has guest-matrix; then
	stamp "guest: fio matrix, prealloc vs inline 2 vs tuned"
	guest matrix "$TOP/scripts/bench/guest-matrix.sh" --disks 1 --disk-size 1G --smp 2 --timeout 5400
	awk -v dat="$D/matrix.dat" -f "$TOP/scripts/bench/summarize-matrix.awk" "$B/matrix/matrix.txt" > "$D/matrix.md"
	cp "$B/matrix/tuned.txt" "$D/matrix.tuned"
	for t in svg png; do
		gnuplot -e "dat='$D/matrix.dat'; out='$D/matrix.$t'; term='$t'" "$TOP/scripts/bench/plot-matrix.gp"
	done
fi
if has guest-cost; then
	stamp "guest: instrumentation cost, driver mode"
	guest cost "$TOP/scripts/bench/guest-cost.sh" --disks 1 --disk-size 256M --smp 2 --timeout 1800
	awk -f "$TOP/scripts/bench/summarize-cost.awk" "$B/cost/guest-cost.txt" > "$D/guest-cost.md"
fi
if has memory; then
	stamp "guest: memory saved, measured vs sglstat's model"
	: > "$B/memory.txt"
	for qs in 256 1024; do
		for nq in 1 2; do
			guest "mem-$qs-$nq" "$TOP/scripts/bench/guest-memory.sh" --disks 1 --disk-size 16M --smp 2 \
				--disk-props "queue-size=$qs,num-queues=$nq" --timeout 900
			sed "s/^MEM /MEM qs=$qs nq=$nq /" "$B/mem-$qs-$nq/memory.txt" >> "$B/memory.txt"
		done
	done
	"$TOP/scripts/bench/summarize-memory.sh" "$B/memory.txt" > "$D/memory.md"
fi
if has userspace; then
	stamp "host: userspace start-up, RSS, CPU"
	"$TOP/scripts/bench/userspace.sh" > "$D/userspace.md"
fi
"$TOP/scripts/bench/write-doc.sh" > "$TOP/docs/BENCHMARKS.md.tmp"
mv "$TOP/docs/BENCHMARKS.md.tmp" "$TOP/docs/BENCHMARKS.md"
# the other docs' copies of these figures (<!-- generated by scripts/doc-gen.sh include ... -->)
"$TOP/scripts/doc-gen.sh"
stamp "done: docs/BENCHMARKS.md"
