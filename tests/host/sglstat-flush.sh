#!/bin/bash
# expect-results: 6 (tests/host/run fails this script with fewer result lines)
# Stock mode under flush sequences on the host's /dev/vda (in-tree
# virtio_blk, write-back cache, no FUA): writes with fsync and O_DSYNC to a
# file on the root filesystem. The block layer fires block_rq_complete more
# than once for such a request (its data part, then the end of the flush
# sequence) and once for flushes that its own flush request carried out, so
# counting every event gave more completions than requests (seen: 142 write
# requests, 202 completions). Each issued request must complete once.
#
# The oracle is the kernel's own count of issues: the run count of sglstat's
# block_rq_issue program (kernel.bpf_stats_enabled), over the same attach
# window, against sglstat's requests; completions are bounded by requests
# and by what was in flight at the edges.
#
# Usage: tests/host/sglstat-flush.sh (root; never writes to the device)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
FILE=${SGLSTAT_FLUSH_FILE:-/var/tmp/sglstat-flush.dat}
DISK=vda
TMP=$(mktemp -d /tmp/sglstat-flush.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)
trap 'sysctl -qw kernel.bpf_stats_enabled=${old_stats:-0}; [ -n "${KEEP:-}" ] && cp "$TMP/out.json" "$KEEP"; rm -rf "$TMP" "$FILE"' EXIT
pass() { echo "PASS: host_flush/$1"; }
fail() { echo "FAIL: host_flush/$1: $2"; }

[ "$(id -u)" = 0 ] || { fail setup "needs root"; exit 1; }
[ -x "$SGLSTAT" ] || { fail setup "no $SGLSTAT (run make)"; exit 1; }
[ "$(basename "$(readlink -f /sys/block/$DISK/device/driver 2>/dev/null)")" = virtio_blk ] ||
	{ fail setup "/dev/$DISK is not an in-tree virtio_blk disk"; exit 1; }
grep -q 'write back' /sys/block/$DISK/queue/write_cache ||
	{ fail setup "/dev/$DISK has no write-back cache: no flush sequences to test"; exit 1; }
sysctl -qw kernel.bpf_stats_enabled=1 || { fail setup "cannot set kernel.bpf_stats_enabled"; exit 1; }

# run_cnt of this sglstat's programs whose names start with $2
prog_runs() {
	local id
	for id in $(grep -h '^prog_id:' /proc/$1/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
		bpftool -j prog show id "$id" 2>/dev/null; echo
	done | jq -s --arg p "$2" '[.[] | select(.name | startswith($p)) | .run_cnt // 0] | add // 0'
}
inflight() { awk '{ print $1 + $2 }' /sys/block/$DISK/inflight; }

"$SGLSTAT" -d $DISK -j --cumulative >"$TMP/out.json" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do grep -q '^Tracing' "$TMP/err" && break; sleep 0.1; done
grep -q '^Tracing' "$TMP/err" || { fail start "sglstat did not start: $(head -3 "$TMP/err")"; kill $pid; exit 1; }
F1=$(inflight) I1=$(prog_runs $pid stock_issue)
for i in $(seq 60); do
	dd if=/dev/zero of="$FILE" bs=4k count=1 seek=$i conv=fsync,notrunc status=none || break
done
fio --name=dsync --filename="$FILE" --size=4M --bs=4k --rw=randwrite --sync=dsync --fsync=1 \
	--io_size=400k --ioengine=psync --output=/dev/null >"$TMP/fio.log" 2>&1 ||
	fail fio "$(tail -1 "$TMP/fio.log")"
sync
I2=$(prog_runs $pid stock_issue) F2=$(inflight)
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] && pass sglstat-exit-0 || fail sglstat-exit-0 "rc $rc: $(tail -1 "$TMP/err")"

set -- $(jq -r '.disks[] | select(.name == "vda") |
	"\(.total.requests) \(.total.requeues) \(.total.completions) \(.ops.write.requests) \(.ops.write.completions) \(.ops.flush.requests) \(.ops.flush.completions)"' \
	"$TMP/out.json" | tail -1)
req=${1:-0} rq=${2:-0} comp=${3:-0} wreq=${4:-0} wcomp=${5:-0} freq=${6:-0} fcomp=${7:-0}
issued=$((I2 - I1))
echo "# vda: requests $req, requeued $rq (issue program ran $issued times in [S1,S2]), completions $comp; writes $wreq/$wcomp, flushes $freq/$fcomp; in flight $F1 at attach, $F2 before detach"

[ "$wreq" -ge 60 ] && [ "$freq" -ge 60 ] && pass workload-issued-writes-and-flushes ||
	fail workload-issued-writes-and-flushes "writes $wreq, flushes $freq: expected >= 60 each"
# every issue in the window is a request of sglstat's or a requeued attempt
# of one (counted once, at its last attempt); vda is the only traced disk
[ $((req + rq)) -ge "$issued" ] && pass requests-cover-issues ||
	fail requests-cover-issues "sglstat $req requests + $rq requeues < $issued issues run in the window"
# a completion is an issued request's: at most requests + those in flight at attach
[ "$comp" -le $((req + F1)) ] && pass completions-at-most-requests ||
	fail completions-at-most-requests "completions $comp > requests $req + $F1 in flight at attach"
[ "$wcomp" -le $((wreq + F1)) ] && [ "$fcomp" -le $((freq + F1)) ] && pass per-op-completions-at-most-requests ||
	fail per-op-completions-at-most-requests "write $wcomp/$wreq, flush $fcomp/$freq (+$F1 in flight)"
# and no fewer than the requests, less those in flight at detach and the
# kernel's own loss of BPF runs on 6.18 (docs/SGLSTAT.md; <= 5 % as sanity)
[ $((comp * 100)) -ge $(((req - F2) * 95)) ] && pass completions-at-least-requests ||
	fail completions-at-least-requests "completions $comp < 95 % of requests $req - $F2"
exit 0
