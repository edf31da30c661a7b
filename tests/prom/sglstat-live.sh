#!/bin/bash
# The real sglstat exporting: stock mode on this host's root disk while fio
# reads a file with O_DIRECT, -j --cumulative and --prom-file at the same
# intervals. The textfile of the last interval must carry exactly the
# counts of the last JSON line, directly and as scraped by a real
# node_exporter, which must report no textfile error.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
PORT=${LIVE_PORT:-19188}
T=$(mktemp -d "$BUILD/prom-live.XXXXXX")
FILE=/var/tmp/sglstat-prom-live.dat
nepid=
trap '[ -n "$nepid" ] && kill $nepid 2>/dev/null; rm -rf "$T"' EXIT
pass() { echo "PASS: prom/live/$1"; }
fail() { echo "FAIL: prom/live/$1: $2"; }

out=$("$TOP/build/sglstat" --prom-file "$T/x.prom" 2>&1); rc=$?
[ $rc != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q 'needs an interval' <<<"$out" && [ ! -e "$T/x.prom" ] &&
	pass needs-interval || fail needs-interval "rc $rc: $out"
out=$("$TOP/build/sglstat" --prom-file "$T/nodir/x.prom" 1 1 2>&1); rc=$?
[ $rc != 0 ] && grep -q 'does not exist' <<<"$out" && pass missing-dir || fail missing-dir "rc $rc: $out"
# may-skip: prom/live -- not root (BPF needs it)
if [ "$(id -u)" != 0 ]; then echo "SKIP: prom/live: needs root for BPF"; exit 0; fi
disk=$(basename "$(df --output=source /var/tmp | tail -1)")
[ -e "/sys/block/$disk" ] || disk=$(lsblk -no pkname "$(df --output=source /var/tmp | tail -1)")
[ -e "$FILE" ] || { fio --name=mk --filename="$FILE" --size=32M --rw=write --bs=1M --end_fsync=1 --output=/dev/null; }

"$TOP/build/sglstat" --mode stock -d "$disk" -j --cumulative --prom-file "$T/virtio_blk_sgl.prom" 1 4 \
	>"$T/out.json" 2>"$T/err.txt" &
sp=$!
for _ in $(seq 50); do grep -q Tracing "$T/err.txt" && break; sleep 0.1; done
fio --name=live --filename="$FILE" --rw=randread --bssplit=4k/50:64k/50 --direct=1 --ioengine=libaio \
	--iodepth=8 --time_based --runtime=3 --output=/dev/null
wait $sp
rc=$?
[ $rc = 0 ] && pass sglstat-exit || fail sglstat-exit "rc $rc: $(head -3 "$T/err.txt")"
last=$(tail -1 "$T/out.json")
reqs=$(jq ".disks[0].ops.read.requests" <<<"$last")
[ "${reqs:-0}" -gt 0 ] 2>/dev/null && pass reads-seen || fail reads-seen "read requests '$reqs'"
promtool check metrics <"$T/virtio_blk_sgl.prom" >"$T/lint.txt" 2>&1 && pass promtool-clean ||
	fail promtool-clean "$(head -3 "$T/lint.txt")"

# metric name  ->  jq path in the op object
pairs="requests_total:.requests chained_requests_total:.chained chained_bytes_total:.chained_bytes
data_bytes_total:.bytes io_errors_total:.io_errors completions_total:.completions
segments_sum:.segments segments_count:.requests io_latency_inline_seconds_count:.lat_ns.inline.count"
value() { # file metric op -> value (empty if absent); label order is free
	awk -v m="virtio_blk_sgl_$2" -v d="disk=\"$disk\"" -v o="op=\"$3\"" '
		index($1, m "{") == 1 && index($1, d) && index($1, o) && index($1, "mode=\"stock\"") { print $2 }' "$1"
}
compare() { # label file
	local bad="" m p want got op
	for op in read write; do
		for pr in $pairs; do
			m=${pr%%:*} p=${pr#*:}
			want=$(jq -r ".disks[0].ops.$op$p" <<<"$last")
			got=$(value "$2" "$m" "$op")
			[ "$want" = 0 ] && [ -z "$got" ] && continue	# histograms appear with the first observation
			[ "$(awk -v a="$want" -v b="$got" 'BEGIN { print (a + 0 == b + 0 && b != "") }')" = 1 ] ||
				bad="$bad $op/$m: json $want, prom '$got';"
		done
	done
	[ -z "$bad" ] && pass "$1" || fail "$1" "$bad"
}
compare file-equals-json "$T/virtio_blk_sgl.prom"

if [ -z "$NE" ]; then echo "FAIL: prom/live/node-exporter: not installed (make deps)"; exit 0; fi
"$NE" --web.listen-address="127.0.0.1:$PORT" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T" >"$T/ne.log" 2>&1 &
nepid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/scrape.txt" && break; sleep 0.1; done
err=$(awk '$1 == "node_textfile_scrape_error" { print $2 }' "$T/scrape.txt")
[ "$err" = 0 ] && pass scrape-error-0 || fail scrape-error-0 "node_textfile_scrape_error '$err'"
compare scraped-equals-json "$T/scrape.txt"
exit 0
