#!/bin/bash
# Compose docs/BENCHMARKS.md from the tables the last `make bench` wrote.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
D=$TOP/docs/bench
part() { # title file command note
	local k=${2%.md}
	[ "$k" = matrix ] && k=guest-matrix
	[ "$k" = host-cost ] && k=host
	[ "$k" = guest-cost ] && k=guest-cost
	echo "## $1"
	echo
	echo "Command: \`$3\`"
	echo "Run: $(cat "$D/$k.when" 2>/dev/null || echo "before run dates were recorded (an earlier make bench)")"
	[ -s "$D/$k.knobs" ] && echo "(knobs of the run shown: \`$(cat "$D/$k.knobs")\`; unset ones at their defaults)"
	echo
	[ -n "$4" ] && { echo "$4"; echo; }
	[ -s "$D/$k.note" ] && { cat "$D/$k.note"; echo; }
	if [ -s "$D/$2" ]; then cat "$D/$2"; else echo "_not run in the last \`make bench\`_"; fi
	echo
	[ -z "${5:-}" ] || { echo "$5"; echo; }
}
# how iobench waited for completions in the icount run, and which queue
# depths ran on its latency disk
wait_note() {
	local qds lat n reps
	IFS='|' read -r qds lat n reps <"$D/icount.latdisk" 2>/dev/null || true
	if [ "$(cat "$D/icount.wait" 2>/dev/null)" = poll ]; then
		echo "iobench polled for its completions (BENCH_IC_POLL=1): it reaps them from the AIO completion ring in a loop of six instructions a turn, which it takes out as it does the spinner's, so the vCPU never sleeps in the I/O path. Sleeping in io_getevents instead (BENCH_IC_POLL=0), QEMU's main loop completed a lone request sometimes before iobench slept and sometimes after, so the path itself (a context switch and a wake-up, or neither) changed between runs, and QD 1 cells moved between rounds by more than their 1% goal; polling, QD 1 is the same path every run. Each cell per round is the mean of BENCH_IC_REPS runs: from QD 8 on a run's count moves both ways with how many completions QEMU's main loop delivered per interrupt, and the cheapest run was the noisier pick."
	else
		echo "iobench slept in io_getevents for its completions (BENCH_IC_POLL=0); each cell per round is the mean of BENCH_IC_REPS runs."
	fi
	echo
	if [ -z "${lat:-}" ]; then
		echo "All queue depths ran on the null-co disk without latency. The column "cells with CI >= 1%, by QD" lists the cells whose 95% interval is not narrower than 1%."
	else
		echo "QD $qds ran on a second null-co disk with latency-ns=$lat ($n I/Os a run, $reps run a cell per round): there the completion always arrives while the spinner runs, the same path every time. The column "cells with CI >= 1%, by QD" lists the cells whose 95% interval is not narrower than 1%."
	fi
	echo
	echo "Goals of issue 18 against this table: inline 2 / prealloc >= 0.99 in every cell (the summary's cells >= 0.99: the cells that miss are the ones that chain, and the two sections below show what those instructions are: the sg_pool chunk's allocation, zeroing and free, which the in-tree driver pays alike), tuned / prealloc >= 1.00 (instructions cannot show the smaller PDU's cache and memory gain, so the tuned count can only tie here: see the cells whose interval reaches 1.00), inline 2 / in-tree >= 1.00 (what virtio_blk_sgl does beyond virtio_blk, function by function and each for a documented behaviour, is the driver-insns section)."
}
cat <<HDR
# Benchmarks

Written by \`make bench\` (scripts/bench/run.sh) on $(date -u +%Y-%m-%d); every figure below
comes from the raw output in build/bench/ of the run named under its part's command (a run with
BENCH_PARTS redoes those parts and keeps the others). Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo),
host kernel $(uname -r), guest kernel $(ls /boot/vmlinuz-6.1.* 2>/dev/null | sed 's|.*/vmlinuz-||' | tail -1) under
qemu-system-x86_64 -accel tcg (software emulation: absolute guest IOPS are small and noisy;
compare the ratios measured side by side, and mind the min..max spread, which is the noise seen).
Configurations are interleaved (rotated order per round), medians are reported.

HDR
part "Instructions per I/O under -icount: prealloc vs inline 2 vs tuned vs in-tree virtio_blk" icount.md \
	"BENCH_PARTS=icount make bench" \
	"QEMU \`-icount shift=0,sleep=off\` makes the guest clock count executed instructions (1 ns each) while the vCPU runs; \`iobench spin\` (tests/vm/iobench.c) keeps the single vCPU busy at SCHED_IDLE so the clock never warps over idle time, and \`iobench run\` takes its turns (two instructions each) out: what is left over a fixed number of O_DIRECT Linux-AIO I/Os (BENCH_IC_N, after a warm-up) is the CPU work of the whole I/O path per I/O (iobench, syscalls, block layer, driver, interrupt). The host still reaches in through one door: QEMU's main loop completes the requests, and how many completions each interrupt brings follows the host's timing (a busy host: fewer interrupts, cheaper runs). From QD 8 on, a run's instructions per I/O move with its virtio interrupts per I/O along a straight line (the fit of each cell is in its last column). So each cell's runs are moved along that line, one slope fitted over all its configurations and rounds, to the cell's mean interrupts per I/O: the configurations are then compared at the same interrupt rate, which the host, not the driver, sets; the summary gives the ratios without this adjustment too, and the interrupts per I/O of each configuration, so that a driver that changed its interrupt rate would show. Run it alone all the same (a run beside another TCG guest moved cells by a few percent); the wait share column shows how often the vCPU waited for the device. It cannot see cache or memory-bandwidth effects, where the smaller PDU should win; the wall-clock matrix below keeps those, with its noise. Disk: null-co (no backend work). Ratio = prealloc's (or the in-tree driver's) instructions per I/O / the configuration's, per round, as IOPS would compare them (> 1: cheaper); mean ± 95% CI over BENCH_IC_ROUNDS rounds (Student's t). Layouts: frag = THP off, memory fragmented (\`segbuf hog\`), buffers in 4 KiB pages (a request spans a segment per page); contig = buffers in transparent huge pages (one segment, nothing chains). Chained = the driver's requests_chained / requests_mapped over the run. Configurations run in blocks, rotated per round. Tuned inline count: $(sed "s/^tuned //" "$D/icount.tuned" 2>/dev/null || echo unknown). Caveat measured in the same guest: each iteration of a rep-prefixed string instruction counts as one instruction ($(cat "$D/icount.rep" 2>/dev/null || echo not measured)); the guest CPU has ERMS, so the kernel's memset weighs about one instruction per byte here, far more than on hardware. Plots: [fragmented](bench/icount-frag.svg), [contiguous](bench/icount-contig.svg)." \
	"$(wait_note)"
part "Where the chained path's instructions go" icount-parts.md "BENCH_PARTS=icount-parts make bench" \
	"Two boots of the icount guest, with Debian's default init_on_alloc=1 and with init_on_alloc=0: the slab zeroes every sg_pool chunk it hands out, and sg_init_table() clears it again, so part of the chained path's extra count is that zeroing (about one instruction per byte here, see the caveat above). The rest is the mempool and slab allocation and free of the chunk and the chaining itself: the cost of allocating at runtime instead of preallocating, which upstream accepted. The last column is what virtio_blk_sgl does beyond the in-tree driver per I/O when nobody traces."
part "What an attached tracer costs per I/O, under -icount: sglstat vs biolatency" icount-tracers.md "BENCH_PARTS=icount-tracers make bench" \
	"The icount guest above (null-co disk, one busy vCPU, fixed number of I/Os per run) with the driver at inline 2, detached and with a tracer attached: \`sglstat --mode driver\` (by default one BPF program per I/O, on the driver's complete tracepoint), \`sglstat --mode driver --setup-time\` (programs on the setup and complete tracepoints; an enabled setup tracepoint also makes the driver take its two setup timestamps) or libbpf-tools' \`biolatency\` (on the block layer's tracepoints); each tracer's interval is an hour, so its reports do not fall inside the runs. Attached / detached = detached instructions per I/O / attached, per round, as IOPS would compare them; cost = attached - detached instructions per I/O. \"Of it, in its BPF programs\": the same tracer attached once more with \`kernel.bpf_stats_enabled=1\`, the run_time_ns its programs accumulate (their fdinfo) per I/O the block layer completed; under -icount a nanosecond is an instruction, so that is what the programs themselves execute (map lookups and helpers included, plus part of the two sched_clock() reads bpf_stats wraps each run in). The rest of the cost is the tracepoints' dispatch (raw_tp: argument copy, recursion guard, RCU) and, with --setup-time, the driver's setup timestamps, which it takes only while its setup tracepoint is enabled. sglstat runs one program per I/O (two with --setup-time) where biolatency runs two or three (insert, issue, complete). Configurations run in blocks, rotated per round; mean ± 95% CI over rounds; runs compared at each cell's mean interrupt rate, as in the matrix above." \
	"Where sglstat's cost goes, by default: one raw tracepoint dispatch per I/O (the driver's out-of-line call with the complete event's 12 arguments, the tracepoint's walk of its probes, bpf_trace_run12()'s copy of the arguments, the recursion guard and RCU), then its one program (its share is the column above): the clock read for the latency sample (bpf_ktime_get_ns(): the block layer takes its own completion time only after the driver's tracepoint, so there is none to reuse), the disk and per-CPU stats map lookups, and the latency and segment slot arithmetic. What is left to remove is the latency histogram itself, which sglstat exists to print. With --setup-time the setup event comes on top: a second dispatch and program, and the driver's two setup timestamps."
part "The drivers' own instructions per I/O, function by function: virtio_blk_sgl vs in-tree virtio_blk" driver-insns.md "BENCH_PARTS=driver-insns make bench" \
	"Exact counts, not samples: the icount guest (null-co disk, 8 random O_DIRECT reads in flight, fragmented memory) booted once per driver, scheduler and block size with QEMU logging every translation block it executes in the module area (\`-d exec,nochain,in_asm\`); scripts/bench/tb-insns.pl multiplies each block's executions by its instructions and places it in a function of the .ko (the module's .text address from the guest's /sys/module). Per I/O = over every I/O the disk completed since boot (the partition scan and iobench's warm-up included; probe and module load are in the count too, a few per I/O). Only the driver's own code: what it calls in the kernel (block layer, sg_alloc_table_chained(), the slab) is not in these rows, and virtio_ring, a module too, is shown as a check that both drivers drive the ring alike. With mq-deadline, blk-mq never ends a request in a batch (RQF_ELV), so each completion runs the driver's full completion path; with none, virtio_blk_sgl ends interrupt completions in batches (virtio_blk does not) and the batch's own cost lands in the block layer, not here. Functions below 0.5 instructions per I/O are left out." \
	"What virtio_blk_sgl does beyond virtio_blk in these rows, each for a behaviour docs/DRIVER.md and docs/ABI.md promise, so that taking it out takes that behaviour out: **vsgl_prep_rq** clears the reset-recovery state of the PDU (aborted, reissue), notes the length the device must write (the used-length check), presets the status byte to 0xff (a device that never writes it fails the request instead of passing with a stale 0), counts a setup that succeeds after a failed sg_pool allocation (retries), bounds blk_rq_map_sg()'s count and keeps discard and write-zeroes ranges out of the SG table; where it chains (64 KiB) it also adds the request's sg_pool bytes to this CPU's in-flight gauge and its peak (chained_bytes_now, chained_bytes_peak). **vsgl_queue_rq** counts requests_mapped and requests_chained before the request can complete (a reader never sees more completed than mapped), tells a re-issued request from a new one, and fails requests of a torn-down device instead of touching its ring. **vsgl_add_req** sends a discard's ranges as their own descriptor. **vsgl_done** stores the used length, notes the queue's last completion (the timeout handler resets the device only when its queue made no progress) and asks whether the request may end in a batch: with mq-deadline blk-mq refuses, with none it ends in vsgl_complete_batch and the block layer frees tags and takes the clock once per batch. **vsgl_complete_rq** tests the reset-recovery state, checks the used length and the status, clears the PDU's mapping state for its next request and counts requests_completed and io_errors. Each tracepoint costs one patched no-op while nothing is attached; the setup timestamps are taken only while the setup tracepoint is enabled."
part "Upstream fio matrix in the guest: prealloc vs inline 2 vs tuned" matrix.md \
	"BENCH_PARTS=guest-matrix make bench" \
	"IOPS median (min..max) over BENCH_ROUNDS rounds; ratio = configuration / prealloc; chained = median share of requests that needed a chained SG table (the driver's requests_chained / requests_mapped over the run; prealloc never chains). Transparent huge pages are off and guest memory is fragmented first (\`segbuf hog\`), so that fio's buffers span one physical segment per page as on a long-running host; with huge pages every request is a single segment and no configuration chains. Plots: [SVG](bench/matrix.svg), [PNG](bench/matrix.png). The tuned inline count: $(sed "s/^tuned //" "$D/matrix.tuned" 2>/dev/null || echo unknown), $(grep -q BENCH_TUNED= "$D/guest-matrix.knobs" 2>/dev/null && echo "given by BENCH_TUNED" || echo "what \`sglstat tune\` recommended for a mix of the matrix's block sizes")."
part "Memory saved per device: measured vs model" memory.md "BENCH_PARTS=memory make bench" \
	"Measured: MemFree drop when loading the driver (caches dropped), median over rounds. Model: \`sglstat memory\` (full preallocation minus inline arrays)."
part "Instrumentation cost on the host (stock mode, /dev/vda, O_DIRECT file reads)" host-cost.md \
	"BENCH_PARTS=host make bench" "BPF figures from kernel.bpf_stats_enabled run_time_ns / run_cnt of each tool's own programs."
part "Instrumentation cost in the guest (driver mode)" guest-cost.md "BENCH_PARTS=guest-cost make bench" ""
part "Userspace: start-up, RSS, CPU (host)" userspace.md "BENCH_PARTS=userspace make bench" ""
