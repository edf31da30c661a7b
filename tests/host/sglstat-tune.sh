#!/bin/bash
# expect-results: 23 (tests/host/run fails this script with fewer result lines)
# sglstat tune offline: --from with a capture (deltas summed, cumulative last
# line, geometry from the capture), --apply into a temporary --root (other
# lines and options kept, mode 0644, atomic: no temp file left), one-line
# errors.  Needs no root and no BPF.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SGLSTAT=${SGLSTAT:-$TOP/build/sglstat}
FIX=$TOP/tests/unit/fixtures/tune
TMP=$(mktemp -d /tmp/sglstat-tune.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass() { echo "PASS: host_tune_$1"; }
fail() { echo "FAIL: host_tune_$1: $2"; }
check_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi; }
[ -x "$SGLSTAT" ] || { fail build "no $SGLSTAT"; exit 1; }

# --from: 400 x 1, 300 x 3, 200 x 6, 100 x 12 segments over two interval lines
"$SGLSTAT" tune --from "$FIX/capture-deltas.json" --target-chain-rate 0.15 >"$TMP/t.txt" 2>"$TMP/t.err"
check_eq from_rc 0 $?
check_eq from_line "options virtio_blk_sgl inline_sg_cnt=6" "$(tail -1 "$TMP/t.txt")"
check_eq from_rule_line 1 "$(grep -c 'recommendation: inline_sg_cnt=6 (smallest N with predicted chained fraction <= 15.00%: 10.00%)' "$TMP/t.txt")"
"$SGLSTAT" tune --from "$FIX/capture-deltas.json" --target-chain-rate 0.15 -j >"$TMP/t.json"
check_eq from_json_pick 6 "$(jq .recommended "$TMP/t.json")"
check_eq from_json_requests 1000 "$(jq .disks[0].requests "$TMP/t.json")"
check_eq from_json_inline_6 $((258 * 6 * 32)) "$(jq '.disks[0].rows[] | select(.n == 6) | .inline_bytes' "$TMP/t.json")"
check_eq from_json_change $((258 * 4 * 32)) "$(jq .disks[0].change.inline_bytes "$TMP/t.json")"
check_eq from_json_frac 0.1 "$(jq .disks[0].picked.chained_frac "$TMP/t.json")"
# cumulative capture: the last line only (50 x 1, 50 x 4): 50% chain at 2
"$SGLSTAT" tune --from "$FIX/capture-cum.json" --target-chain-rate 0.4 -j >"$TMP/c.json"
check_eq cum_pick 4 "$(jq .recommended "$TMP/c.json")"
check_eq cum_requests 100 "$(jq .disks[0].requests "$TMP/c.json")"
check_eq stock_change $((1000 * 2 * 32)) "$(jq .disks[0].change.inline_bytes "$TMP/c.json")"
# errors are one line, exit 1
printf '{"disks":[' >"$TMP/bad.json"
"$SGLSTAT" tune --from "$TMP/bad.json" >/dev/null 2>"$TMP/e"
rc=$?
check_eq bad_capture_rc 1 $rc
check_eq bad_capture_one_line 1 "$(wc -l <"$TMP/e")"
"$SGLSTAT" tune --from "$TMP/missing.json" >/dev/null 2>"$TMP/e"
check_eq missing_capture_rc 1 $?

# --apply into a temporary root
R=$TMP/root
"$SGLSTAT" tune --from "$FIX/capture-deltas.json" --target-chain-rate 0.15 --apply --root "$R" >/dev/null 2>"$TMP/e"
check_eq apply_no_dir_rc 1 $?
check_eq apply_no_dir_msg 1 "$(grep -c 'etc/modprobe.d: No such file or directory' "$TMP/e")"
mkdir -p "$R/etc/modprobe.d"
printf '# site settings\noptions virtio_blk_sgl queue_depth=128 inline_sg_cnt=2\noptions loop max_loop=8\n' \
	>"$R/etc/modprobe.d/virtio_blk_sgl.conf"
chmod 600 "$R/etc/modprobe.d/virtio_blk_sgl.conf"
"$SGLSTAT" tune --from "$FIX/capture-deltas.json" --target-chain-rate 0.15 --apply --root "$R" >/dev/null 2>"$TMP/e"
check_eq apply_rc 0 $?
check_eq apply_content "$(printf '# site settings\noptions virtio_blk_sgl queue_depth=128 inline_sg_cnt=6\noptions loop max_loop=8')" \
	"$(cat "$R/etc/modprobe.d/virtio_blk_sgl.conf")"
check_eq apply_mode 644 "$(stat -c %a "$R/etc/modprobe.d/virtio_blk_sgl.conf")"
check_eq apply_no_temp 1 "$(ls -A "$R/etc/modprobe.d" | wc -l)"
rm "$R/etc/modprobe.d/virtio_blk_sgl.conf"
"$SGLSTAT" tune --from "$FIX/capture-deltas.json" --target-chain-rate 0.01 --apply --root "$R" >/dev/null 2>&1
check_eq apply_new_file "options virtio_blk_sgl inline_sg_cnt=12" "$(cat "$R/etc/modprobe.d/virtio_blk_sgl.conf")"
# fleet from a Prometheus textfile
"$SGLSTAT" tune --from-prom "$FIX/host1.prom" --target-chain-rate 0.15 -j >"$TMP/p.json" 2>"$TMP/e"
check_eq prom_rc 0 $?
check_eq prom_class_pick 8 "$(jq '.classes[0].pick' "$TMP/p.json")"
exit 0
