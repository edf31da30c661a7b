# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 400
# guest-run-share: yes
# sglstat follows disks that go away and come back: stock mode (which holds
# no reference on the module) runs without -d and reports every second while
# virtio_blk_sgl is unloaded (vsgla disappears: present false, counters kept)
# and loaded again (vsgla reappears, possibly with another major, and is
# traced again).  The requests counted between a report taken after the
# pickup and the last report equal the driver's requests_mapped delta.
D=vsgla
for t in sglstat segbuf jq; do
	command -v $t >/dev/null || { skip prereq "$t not on PATH"; exit 0; }
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

sleep 1.5
check_eq "present-at-start" true "$(line "[$sel | .present][0]")"
check_eq "unload" 0 "$(sgl_unload; echo $?)"
sleep 2.5	# sglstat rescans /sys/block every second
check_eq "gone-not-present" false "$(line "[$sel | .present][0]")"

sgl_load || { fail load "insmod failed"; kill -INT $pid; exit 0; }
i=0
while [ ! -e /sys/block/$D ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2.5
check_eq "back-present" true "$(line "[$sel | .present][0]")"
check_eq "back-dev" "\"$(cat /sys/block/$D/dev)\"" "$(line "[$sel | .dev][0]")"
t0=$(line "$REQ")
m0=$(sgl_get $D requests_mapped)
segbuf write /dev/$D 5 10 2048 || fail segbuf "write failed"
segbuf read /dev/$D 5 10 2048 || fail segbuf "read failed"
m1=$(sgl_get $D requests_mapped)
sleep 1.5
kill -INT $pid; wait $pid
check_eq "exit" 0 "$?"
t1=$(line "$REQ")
check_eq "requests-vs-mapped-after-replug" $((m1 - m0)) $((t1 - t0))
check "saw-io-after-replug" [ $((t1 - t0)) -ge 20 ]
check_eq "one-vsgla-entry" 1 "$(line "[$sel] | length")"
exit 0
