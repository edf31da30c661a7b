#!/bin/bash
# sglstat's userspace cost against libbpf-tools' biolatency, interleaved:
# start-up (exec to the end of the first 1 s interval, minus that second),
# peak RSS, and CPU time while it runs at a 1 s interval under fio load.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
REPS=${USER_REPS:-5}
RUN_S=${USER_RUN_S:-20}
FILE=${FILE:-/var/tmp/sglstat-bench.dat}
[ -e "$FILE" ] || fio --name=mk --filename="$FILE" --size=256M --rw=write --bs=1M --end_fsync=1 --output=/dev/null
cmd() { case $1 in sglstat) echo "$SGLSTAT --mode stock" ;; biolatency) echo biolatency ;; esac; }
med() { sort -n | awk '{ a[NR] = $1 } END { print NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$REPS"); do
	for t in sglstat biolatency; do
		s=$(date +%s%N)
		$(cmd $t) 1 1 >/dev/null 2>&1
		e=$(date +%s%N)
		echo $(((e - s) / 1000000 - 1000)) >> "$tmp/start-$t"
	done
done
fio --name=load --filename="$FILE" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
	--iodepth=16 --time_based --runtime=$((RUN_S * 2 + 10)) --output=/dev/null &
fpid=$!
for t in sglstat biolatency; do
	$(cmd $t) 1 >/dev/null 2>&1 &
	p=$!
	sleep "$RUN_S"
	read -r ut st <<<"$(awk '{ print $14, $15 }' /proc/$p/stat)"
	awk '/^VmHWM:/ { print $2 }' /proc/$p/status > "$tmp/rss-$t"
	echo $(((ut + st) * 1000 / $(getconf CLK_TCK))) > "$tmp/cpu-$t"
	kill -INT $p
	wait $p || true
done
kill $fpid 2>/dev/null || true
wait $fpid 2>/dev/null || true
echo "| tool | start-up ms (median of $REPS, min..max) | peak RSS KiB | CPU ms in ${RUN_S} s at 1 s interval, 4k randread QD16 |"
echo "|---|---|---|---|"
for t in sglstat biolatency; do
	printf '| %s | %s (%s..%s) | %s | %s |\n' "$t" "$(med < "$tmp/start-$t")" \
		"$(sort -n "$tmp/start-$t" | head -1)" "$(sort -n "$tmp/start-$t" | tail -1)" \
		"$(cat "$tmp/rss-$t")" "$(cat "$tmp/cpu-$t")"
done
