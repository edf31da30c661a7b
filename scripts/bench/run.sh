#!/bin/bash
# make bench: every benchmark of docs/BENCHMARKS.md, side by side in one run.
# Raw outputs go to build/bench/, tables and plots to docs/bench/, and
# docs/BENCHMARKS.md is written from them (never typed in).
# Knobs: BENCH_ROUNDS (3), BENCH_RUNTIME (3 s per fio run of the guest
# matrix), BENCH_COST_REPS (5) and BENCH_COST_RUNTIME (5 s) for the guest
# cost, HOST_REPS (5), HOST_RUNTIME (10 s), BENCH_IC_* for the icount
# matrix (scripts/bench/icount-guest.sh; BENCH_IC_LAT_NS (100000) is the
# latency of its second disk), BENCH_PARTS ("host icount
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
	BENCH_IC_LATDISK=$lat guest icount "$TOP/scripts/bench/icount-guest.sh" --disks 0 --smp 1 --mem 1024 --timeout 21600 \
		--qemu-args "-icount shift=0,sleep=off -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0 $latdisk"
	cp "$B/icount/latdisk.txt" "$D/icount.latdisk"
	cp "$B/icount/wait.txt" "$D/icount.wait"
	awk -v dat="$D/icount" -f "$TOP/scripts/bench/icount-stats.awk" -f "$TOP/scripts/bench/summarize-icount.awk" "$B/icount/icount.txt" > "$D/icount.md"
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
			guest "icount-ioa$ioa" "$TOP/scripts/bench/icount-guest.sh" --disks 0 --smp 1 --mem 1024 \
			--timeout 7200 --append "init_on_alloc=$ioa" \
			--qemu-args "-icount shift=0,sleep=off -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0"
		sed "s/^/init_on_alloc=$ioa /" "$B/icount-ioa$ioa/icount.txt" >> "$B/icount-parts.txt"
	done
	awk -f "$TOP/scripts/bench/icount-stats.awk" -f "$TOP/scripts/bench/summarize-icount-parts.awk" "$B/icount-parts.txt" > "$D/icount-parts.md"
fi
if has icount-tracers; then
	stamp "guest: what an attached sglstat or biolatency costs per I/O, under -icount"
	BENCH_IC_CONFIGS="inline2 sglstat sglstat-setup biolatency sglstat-stats sglstat-setup-stats biolatency-stats" BENCH_IC_BS=${BENCH_IC_BS:-"4096 65536"} BENCH_IC_QD=${BENCH_IC_QD:-8} \
	BENCH_IC_RW=${BENCH_IC_RW:-read} BENCH_IC_LAYOUTS=${BENCH_IC_LAYOUTS:-frag} BENCH_TUNED=none \
		guest icount-tracers "$TOP/scripts/bench/icount-guest.sh" --disks 0 --smp 1 --mem 1024 --timeout 7200 \
		--qemu-args "-icount shift=0,sleep=off -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0"
	awk -f "$TOP/scripts/bench/icount-stats.awk" -f "$TOP/scripts/bench/summarize-icount-tracers.awk" \
		"$B/icount-tracers/icount.txt" > "$D/icount-tracers.md"
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
