#!/bin/bash
# Instrumentation cost on this host, in stock mode on the root virtio disk
# (or in the guest: MODE=driver DISK=vsgla FILE=/dev/vsgla):
# fio O_DIRECT random reads of a file (never writes to the device itself),
# with each tool attached in turn and with nothing attached, interleaved
# (none, sglstat, biolatency, bitesize, none, ...) for REPS rounds.
# Prints one line per run:  RUN tool rep iops ios run_time_ns run_cnt progs
# where run_time_ns/run_cnt are summed over the tool's BPF programs
# (kernel.bpf_stats_enabled), and ios is the /sys/block/DISK/stat read delta.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
REPS=${REPS:-3}
RUNTIME=${RUNTIME:-10}
FILE=${FILE:-/var/tmp/sglstat-bench.dat}
BS=${BS:-4k}
QD=${QD:-32}
# the whole disk under the file's filesystem
if [ -z "${DISK:-}" ]; then
	src=$(df --output=source "$(dirname "$FILE")" | tail -1)
	DISK=$(basename "$src")
	[ -e "/sys/block/$DISK" ] || DISK=$(lsblk -no pkname "$src")
fi

[ "$(id -u)" = 0 ] || { echo "host-cost: run as root" >&2; exit 1; }
[ -e "$FILE" ] || [ -n "${DISK:-}" ] || fio --name=mk --filename="$FILE" --size=256M --rw=write --bs=1M \
	--end_fsync=1 --output=/dev/null
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; kill $tpid 2>/dev/null || true' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
tpid=

start_tool() { # tool -> sets tpid
	case "$1" in
	sglstat) "$SGLSTAT" --mode "${MODE:-stock}" 1 >/dev/null 2>&1 & tpid=$! ;;
	biolatency) biolatency 1 >/dev/null 2>&1 & tpid=$! ;;
	bitesize) bitesize 1 >/dev/null 2>&1 & tpid=$! ;;
	none) tpid=; return ;;
	esac
	# attached once its programs show up under its pid
	for _ in $(seq 100); do
		[ -n "$(prog_ids "$tpid")" ] && { sleep 0.5; return; }
		sleep 0.1
	done
	echo "host-cost: $1 did not attach" >&2
	exit 1
}
# BPF programs a process holds, from its fds (bpftool's pid column needs a
# bpftool built with pid iterators, which Debian's is not)
prog_ids() { grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u; }
prog_totals() { # pid -> "run_time_ns run_cnt nprogs"
	local id t=0 c=0 n=0 j
	for id in $(prog_ids "$1"); do
		j=$(bpftool prog show id "$id" -j)
		t=$((t + $(jq '.run_time_ns // 0' <<<"$j")))
		c=$((c + $(jq '.run_cnt // 0' <<<"$j")))
		n=$((n + 1))
	done
	echo "$t $c $n"
}
reads() { awk '{ print $1 }' "/sys/block/$DISK/stat"; }

echo "# host-cost: disk $DISK file $FILE bs $BS iodepth $QD runtime ${RUNTIME}s reps $REPS"
echo "# kernel $(uname -r), $(nproc) CPUs"
for rep in $(seq "$REPS"); do
	for tool in none sglstat biolatency bitesize; do
		start_tool "$tool"
		t0=(0 0 0)
		[ -n "$tpid" ] && read -r -a t0 <<<"$(prog_totals "$tpid")"
		r0=$(reads)
		iops=$(fio --name=cost --filename="$FILE" --rw=randread --bs="$BS" --direct=1 \
			--ioengine=libaio --iodepth="$QD" --time_based --runtime="$RUNTIME" \
			--output-format=json | jq '.jobs[0].read.iops')
		r1=$(reads)
		t1=(0 0 0)
		[ -n "$tpid" ] && read -r -a t1 <<<"$(prog_totals "$tpid")"
		if [ -n "$tpid" ]; then kill -INT "$tpid"; wait "$tpid" 2>/dev/null || true; fi
		tpid=
		echo "RUN $tool $rep $iops $((r1 - r0)) $((t1[0] - t0[0])) $((t1[1] - t0[1])) ${t1[2]}"
	done
done
