#!/bin/bash
# expect-results: 5 (tests/host/run fails this script with fewer result lines)
# Each report leaves sglstat in one write(2), so that a reader tailing the
# output file (log shippers, `tail -1 | jq`, the guest tests) never catches a
# line torn at a stdio buffer boundary.  Reports are made bigger than the
# default 4 kB buffer with a fake sysfs (SGLSTAT_SYSFS_ROOT) of four
# virtio-blk disks that see no I/O; strace counts the writes to stdout.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
TMP=$(mktemp -d /tmp/sglstat-output.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass() { echo "PASS: host_output/$1"; }
fail() { echo "FAIL: host_output/$1: $2"; }

# may-skip: host_output -- not root (BPF needs it)
if [ "$(id -u)" != 0 ]; then echo "SKIP: host_output: needs root"; exit 0; fi
command -v strace >/dev/null || { fail strace "strace not installed (make deps)"; exit 0; }
F=$TMP/sys
mkdir -p "$F/kernel/btf"
ln -s /sys/kernel/btf/vmlinux "$F/kernel/btf/vmlinux"
for i in 0 1 2 3; do
	mkdir -p "$F/block/vdz$i/device"
	echo "virtio:d00000002v00001AF4" >"$F/block/vdz$i/device/modalias"
	echo "252:$((160 + 16 * i))" >"$F/block/vdz$i/dev"	# no such disk: no I/O
done
N=3
SGLSTAT_SYSFS_ROOT=$F strace -qq -e trace=write -o "$TMP/trace" \
	"$SGLSTAT" --mode stock -j --cumulative 1 $N >"$TMP/out.json" 2>"$TMP/err"
rc=$?
[ $rc = 0 ] && pass exit || fail exit "rc $rc: $(head -2 "$TMP/err")"
lines=$(wc -l <"$TMP/out.json")
[ "$lines" = $N ] && pass "reports ($N)" || fail reports "expected $N lines, got $lines"
short=$(awk 'length($0) <= 4096' "$TMP/out.json" | wc -l)
[ "$short" = 0 ] && pass "reports-exceed-4k ($(head -1 "$TMP/out.json" | wc -c) bytes)" ||
	fail reports-exceed-4k "$short reports of 4 kB or less: the test would prove nothing"
bad=$(jq -c .seq "$TMP/out.json" 2>&1 | tr '\n' ' ')
[ "$bad" = "1 2 3 " ] && pass json-lines || fail json-lines "seq values: $bad"
writes=$(grep -c '^write(1,' "$TMP/trace")
[ "$writes" = $N ] && pass "one-write-per-report" || fail one-write-per-report "$writes writes to stdout for $N reports"
