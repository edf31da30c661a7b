#!/bin/bash
# expect-results: 8 (tests/host/run fails this script with fewer result lines)
# The BPF maps are sized at load for the disks sglstat traces (issue 15):
# --max-disks N gives N * 6 per-CPU stats entries and N inflight entries;
# without it, the virtio disks present + 4.  Before, the stats map always had
# 96 entries (16 disks x 6 ops) on every possible CPU.  The oracle is the
# kernel's own view of the maps (bpftool map show), matched by the map ids
# the running sglstat holds (/proc/PID/fdinfo map_id).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
pass() { echo "PASS: host_maps_$1"; }
fail() { echo "FAIL: host_maps_$1: $2"; }
check_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi; }
# may-skip: host_maps -- not root (BPF needs it)
[ "$(id -u)" = 0 ] || { echo "SKIP: host_maps: needs root"; exit 0; }
command -v bpftool >/dev/null || { fail prereq "bpftool missing"; exit 0; }
TMP=$(mktemp -d /tmp/sglstat-maps.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# entries NAME PID: max_entries of the map NAME that process PID holds
entries() {
	local id
	for id in $(sed -n 's/^map_id:[[:space:]]*//p' /proc/$2/fdinfo/* 2>/dev/null | sort -u); do
		bpftool map show id "$id" 2>/dev/null | awk -v n="$1" '$3 == "name" && $4 == n { f = 1 }
			f && /max_entries/ { for (i = 1; i <= NF; i++) if ($i == "max_entries") print $(i + 1); exit }'
	done | head -1
}
run() { # run NAME ARGS...: start sglstat, wait for Tracing, record map sizes, stop
	local name=$1; shift
	"$SGLSTAT" --mode stock "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	local pid=$! i=0
	while ! grep -q '^Tracing' "$TMP/$name.err" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	echo "$(entries stats $pid) $(entries inflight $pid)" >"$TMP/$name.maps"
	kill -INT $pid; wait $pid
	echo $? >"$TMP/$name.rc"
}
run three --max-disks 3
read -r s f <"$TMP/three.maps"
check_eq stats_entries_max_disks_3 18 "$s"
check_eq inflight_entries_max_disks_3 3 "$f"
check_eq exit_max_disks_3 0 "$(cat "$TMP/three.rc")"
check_eq startup_line_names_slots 1 "$(grep -c ', 3 disk slots$' "$TMP/three.err")"
# default: the virtio disks present + 4
n=0
for d in /sys/block/*; do
	case "$(readlink -f "$d/device/driver" 2>/dev/null)" in */virtio_blk|*/virtio_blk_sgl) n=$((n + 1)) ;; esac
done
run default
read -r s f <"$TMP/default.maps"
check_eq stats_entries_default $((6 * (n + 4))) "$s"
check_eq inflight_entries_default $((n + 4)) "$f"
"$SGLSTAT" --max-disks 0 >/dev/null 2>"$TMP/bad.err"
check_eq bad_max_disks_rc 2 $?
check_eq bad_max_disks_one_line 1 "$(wc -l <"$TMP/bad.err")"
exit 0
