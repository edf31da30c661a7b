#!/bin/bash
# How many block_rq_complete events reach BPF programs on this host, side by
# side in one run: the block layer's own count (/sys/block/vda/stat), perf's
# count of the tracepoint, and bpf_stats run_cnt of sglstat's issue and
# complete programs, during fio O_DIRECT reads of a file on vda.
#
# Usage: scripts/bench/complete-delivery.sh [RUNS] [SECONDS]   (root)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
FILE=${SGLSTAT_TEST_FILE:-/var/tmp/sglstat-test.dat}
RUNS=${1:-3} SECS=${2:-6}
TMP=$(mktemp -d /tmp/complete-delivery.XXXXXX)
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$old; rm -rf "$TMP"' EXIT
[ -f "$FILE" ] || dd if=/dev/urandom of="$FILE" bs=1M count=64 conv=fsync status=none
sysctl -qw kernel.bpf_stats_enabled=1

runs_of() { # PID NAME-PREFIX -> run_cnt
	local id
	for id in $(grep -h '^prog_id:' /proc/$1/fdinfo/* | awk '{ print $2 }' | sort -u); do
		bpftool -j prog show id "$id"; echo
	done | python3 -c '
import json, sys
print(sum(p.get("run_cnt", 0) for p in map(json.loads, filter(str.strip, sys.stdin))
          if p["name"].startswith(sys.argv[1])))' "$2"
}
completed() { awk '{ print $1 + $5 + $12 + $16 }' /sys/block/vda/stat; }

echo "# run engine: block-layer completions, perf block_rq_complete, sglstat issue runs, complete runs, not delivered (%)"
for r in $(seq "$RUNS"); do
	for engine in psync libaio; do
		"$SGLSTAT" -d vda >/dev/null 2>"$TMP/err" &
		pid=$!
		until grep -q '^Tracing' "$TMP/err"; do sleep 0.1; done
		c1=$(completed); i1=$(runs_of $pid stock_issue); k1=$(runs_of $pid stock_complete)
		perf stat -x, -a -e block:block_rq_complete -o "$TMP/perf" -- \
			fio --name=d --filename="$FILE" --size=64M --rw=randread --direct=1 --bs=4k \
			--ioengine=$engine --iodepth=16 --runtime="$SECS" --time_based=1 \
			--output-format=terse >/dev/null
		c2=$(completed); i2=$(runs_of $pid stock_issue); k2=$(runs_of $pid stock_complete)
		kill -INT $pid; wait $pid || true
		p=$(awk -F, '/block_rq_complete/ { print $1 }' "$TMP/perf")
		c=$((c2 - c1)) k=$((k2 - k1))
		printf '%d %s %d %d %d %d %.3f\n' "$r" $engine $c "$p" $((i2 - i1)) $k \
			"$(echo "100 * ($c - $k) / $c" | bc -l)"
	done
done
