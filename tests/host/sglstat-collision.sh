#!/bin/bash
# expect-results: 7 (tests/host/run fails this script with fewer result lines)
# A disk whose disk map key collides with a traced disk's (same low four
# bits of the major, same index) is reported untraced, and traced as soon as
# the other disk is gone: sglstat must not give up on it (issue 15, item 3).
# A fake sysfs (SGLSTAT_SYSFS_ROOT) holds two virtio disks, 252:0 and 236:0
# (252 & 15 == 236 & 15), that see no I/O; the first is removed while sglstat
# runs. Oracles: sglstat's JSON, and the BPF disks map itself (bpftool), which
# must then hold the second disk's major.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
TMP=$(mktemp -d /tmp/sglstat-collision.XXXXXX)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$TMP"' EXIT
pass() { echo "PASS: host_collision/$1"; }
fail() { echo "FAIL: host_collision/$1: $2"; }

# may-skip: host_collision -- not root (BPF needs it)
if [ "$(id -u)" != 0 ]; then echo "SKIP: host_collision: needs root"; exit 0; fi
for t in jq bpftool; do
	command -v $t >/dev/null || { fail prereq "$t not installed (make deps)"; exit 0; }
done
F=$TMP/sys
mkdir -p "$F/kernel/btf"
ln -s /sys/kernel/btf/vmlinux "$F/kernel/btf/vmlinux"
for d in vdy:252 vdz:236; do
	mkdir -p "$F/block/${d%:*}/device"
	echo "virtio:d00000002v00001AF4" >"$F/block/${d%:*}/device/modalias"
	echo "${d#*:}:0" >"$F/block/${d%:*}/dev"
done
SGLSTAT_SYSFS_ROOT=$F "$SGLSTAT" --mode stock -j 1 >"$TMP/out.json" 2>"$TMP/err" &
pid=$!
# traced NAME [SEQ]: the "traced" field of NAME in the first report after SEQ
traced() {
	jq -r --arg d "$1" --argjson s "${2:-0}" 'select(.seq > $s) | .disks[] | select(.name == $d) | .traced' \
		"$TMP/out.json" 2>/dev/null | head -1
}
for _ in $(seq 100); do [ -n "$(traced vdz)" ] && break; sleep 0.1; done
[ "$(traced vdy)" = true ] && pass first-disk-traced || fail first-disk-traced "vdy traced: '$(traced vdy)'"
[ "$(traced vdz)" = false ] && pass colliding-disk-untraced || fail colliding-disk-untraced "vdz traced: '$(traced vdz)'"
grep -q 'vdz shares disk map entry .* with vdy' "$TMP/err" && pass collision-warned ||
	fail collision-warned "no warning naming both disks: $(head -2 "$TMP/err")"

seq0=$(tail -1 "$TMP/out.json" | jq .seq)
rm -rf "$F/block/vdy"
for _ in $(seq 100); do [ "$(traced vdz "$seq0")" = true ] && break; sleep 0.1; done
[ "$(traced vdz "$seq0")" = true ] && pass traced-once-the-key-frees ||
	fail traced-once-the-key-frees "vdz still untraced after vdy left: $(tail -1 "$TMP/out.json" | head -c 300)"
[ "$(jq -r --argjson s "$seq0" 'select(.seq > $s) | .disks[] | select(.name == "vdy") | .present' "$TMP/out.json" | tail -1)" = false ] &&
	pass gone-disk-reported-absent || fail gone-disk-reported-absent "vdy not reported with present: false"

# the kernel side: sglstat's disks map now names 236:0 and no longer 252:0
mid=""
for f in /proc/$pid/fdinfo/*; do
	id=$(awk '$1 == "map_id:" { print $2 }' "$f" 2>/dev/null)
	[ -n "$id" ] && bpftool -j map show id "$id" 2>/dev/null | jq -e '.name == "disks"' >/dev/null && mid=$id
done
if [ -z "$mid" ]; then
	fail map-holds-second-disk "no map named disks among sglstat's fds"
	fail map-forgot-first-disk "no map named disks among sglstat's fds"
else
	bpftool -j map dump id "$mid" >"$TMP/map.json"
	majors=$(jq -r '[.[] | (.formatted.value.major // empty)] | map(select(. != 0)) | sort | join(" ")' "$TMP/map.json")
	[[ " $majors " == *" 236 "* ]] && pass map-holds-second-disk || fail map-holds-second-disk "majors in the map: '$majors'"
	[[ " $majors " != *" 252 "* ]] && pass map-forgot-first-disk || fail map-forgot-first-disk "majors in the map: '$majors'"
fi
kill -INT $pid
wait $pid
pid=
