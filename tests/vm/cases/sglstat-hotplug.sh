# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 400
# expect-results: 9 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-share: yes
# sglstat follows disks that go away and come back: stock mode (which holds
# no reference on the module) runs without -d and reports every second while
# virtio_blk_sgl is unloaded (vsgla disappears: present false, counters kept)
# and loaded again (vsgla reappears, possibly with another major, and is
# traced again).  The requests counted between a report taken after the
# pickup and the last report equal the driver's requests_mapped delta.
D=vsgla
for t in sglstat segbuf jq; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done
[ -e /sys/block/$D ] || { fail prereq "no $D"; exit 0; }

sglstat --mode stock -j --cumulative 1 > "$OUT/hp.json" 2> "$OUT/hp.err" &
pid=$!
i=0
while ! grep -q '^Tracing' "$OUT/hp.err" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
grep -q '^Tracing' "$OUT/hp.err" || { fail start "$(cat "$OUT/hp.err")"; exit 0; }

sel='.disks[] | select(.name == "vsgla")'
# REQ: requests of vsgla (all ops but the driver-internal "other") in a report line
REQ="[$sel | .ops | to_entries[] | select(.key != \"other\") | .value.requests] | add"
line() { json_last "$OUT/hp.json" | jq -c "$1"; }
# no sleeps: wait for what a report says (sglstat rescans /sys/block every
# second), then check it
present_is() { [ "$(line "[$sel | .present][0]")" = "$1" ]; }
seq_now() { json_seq "$OUT/hp.json"; }
# reports_after SEQ: wait for two reports after SEQ (the first of them may
# have been taken while SEQ was still being written)
seq_above() { [ "$(seq_now)" -gt "$1" ]; }
reports_after() { wait_for 30 seq_above $(($1 + 1)); }

wait_for 30 present_is true
check_eq "present-at-start" true "$(line "[$sel | .present][0]")"
check_eq "unload" 0 "$(sgl_unload; echo $?)"
wait_for 30 present_is false
check_eq "gone-not-present" false "$(line "[$sel | .present][0]")"

sgl_load || { fail load "insmod failed"; kill -INT $pid; exit 0; }
wait_for 20 [ -e /sys/block/$D ]
# the probe's own reads (partition scan) done: one request served
wait_for 20 dd if=/dev/$D of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
wait_for 30 present_is true
check_eq "back-present" true "$(line "[$sel | .present][0]")"
check_eq "back-dev" "\"$(cat /sys/block/$D/dev)\"" "$(line "[$sel | .dev][0]")"
# a report written after the disk went quiet: it holds all of its I/O so far
s=$(seq_now); reports_after "$s"
t0=$(line "$REQ")
m0=$(sgl_get $D requests_mapped)
segbuf write /dev/$D 5 10 2048 || fail segbuf "write failed"
segbuf read /dev/$D 5 10 2048 || fail segbuf "read failed"
m1=$(sgl_get $D requests_mapped)
s=$(seq_now); reports_after "$s"
kill -INT $pid; wait $pid
check_eq "exit" 0 "$?"
t1=$(line "$REQ")
check_eq "requests-vs-mapped-after-replug" $((m1 - m0)) $((t1 - t0))
check "saw-io-after-replug" [ $((t1 - t0)) -ge 20 ]
check_eq "one-vsgla-entry" 1 "$(line "[$sel] | length")"
exit 0
