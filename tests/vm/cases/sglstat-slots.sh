# guest-run-args: --disks 3 --disk-size 16M --smp 2 --timeout 400
# expect-results: 20 (at least; tests/vm/run-cases fails the case with fewer result lines)
# A long-running sglstat with fewer disk slots than disks come and go:
# --max-disks 2 on a guest with 3 disks, then 2 rounds of hot-remove and
# hot-add through the QEMU monitor (5 disk arrivals for 2 slots).  A disk
# without a slot is traced as soon as one frees; a departed disk's last
# counts reach the report before its slot is reused; every traced disk's read
# requests equal its /sys/block stat reads over the same window.
for t in sglstat jq; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH"; exit 0; }
done
SERIALS="sgl-disk0 sgl-disk1 sgl-disk2"
hmp "info block" >"$OUT/info-block.txt"
reads() { awk '{ print $1 }' /sys/block/$1/stat; }
# newer: wait for a report collected after now, take it as
# "seq" and lines "NAME PRESENT TRACED READ_REQUESTS" (one jq per report:
# each jq start costs ~0.3 s under TCG)
newer() {
	# newer than the last one written now: collected after this call
	_s=$(json_seq "$OUT/s.json") _w=0
	while :; do
		json_last "$OUT/s.json" |
			jq -r '.seq, (.disks[] | "\(.name) \(.present) \(.traced) \(.ops.read.requests)")' \
			>"$OUT/last.txt" 2>/dev/null
		[ "$(head -1 "$OUT/last.txt")" -gt "$_s" ] 2>/dev/null && break
		_w=$((_w + 1)); [ $_w -gt 50 ] && break
		sleep 0.3
	done
}
# fig NAME present|traced|reads: on the report taken
fig() { awk -v d="$1" -v f="$2" 'NR > 1 && $1 == d { print f == "present" ? $2 : f == "traced" ? $3 : $4; exit }' "$OUT/last.txt"; }
count() { awk -v f="$1" 'NR > 1 { if ((f == "present" && $2 == "true") || (f == "traced" && $3 == "true" && $2 == "true")) n++ } END { print n + 0 }' "$OUT/last.txt"; }
traced() { [ "$(fig "$1" traced)" = true ]; }
back() { [ -n "$(disk_of_serial "sgl-disk$1")" ]; }

sglstat --mode auto --max-disks 2 -j --cumulative 1 >"$OUT/s.json" 2>"$OUT/s.err" &
pid=$!
wait_for 60 grep -q '^Tracing' "$OUT/s.err" || { fail start "$(head -3 "$OUT/s.err")"; exit 0; }
check "startup-2-slots" grep -q ', 2 disk slots$' "$OUT/s.err"
newer; newer
check "slots-full-warned" grep -q 'all 2 disk slots in use' "$OUT/s.err"
check_eq "two-of-three-traced" 2 "$(count traced)"

# measure NAME: 20 reads, sglstat's read requests against sysfs over the window
measure() {
	_r0=$(reads "$1"); newer; _q0=$(fig "$1" reads)
	dd if=/dev/$1 of=/dev/null bs=4k count=20 iflag=direct status=none
	newer
	check_eq "round$R-$1-reads-equal-sysfs" "$(($(reads "$1") - _r0))" "$(($(fig "$1" reads) - _q0))"
}
ADDS=0
for R in 1 2; do
	DIDX=$((R - 1))	# (not i or n: hmp and check use them)
	X=$(disk_of_serial sgl-disk$DIDX)
	[ -n "$X" ] || { fail "round$R-disk" "no disk with serial sgl-disk$DIDX"; break; }
	newer
	traced "$X" || {
		# the untraced one: measure the others, remove a traced one instead
		for s in $SERIALS; do d=$(disk_of_serial $s); traced "$d" && { X=$d; DIDX=${s#sgl-disk}; break; }; done
	}
	waiting=""
	for s in $SERIALS; do d=$(disk_of_serial $s); traced "$d" || waiting=$d; done
	for s in $SERIALS; do d=$(disk_of_serial $s); traced "$d" && measure "$d"; done
	# last reads right before the removal: they must reach a report
	newer
	r0=$(reads "$X") q0=$(fig "$X" reads)
	dd if=/dev/$X of=/dev/null bs=4k count=30 iflag=direct status=none
	r1=$(reads "$X")
	hmp "device_del vd$DIDX" >>"$OUT/hmp.txt"
	wait_for 30 sh -c "[ ! -e /sys/block/$X ]" || fail "round$R-removed" "$X still there"
	sleep 1	# sglstat rescans every second
	newer
	check_eq "round$R-$X-gone" false "$(fig "$X" present)"
	check_eq "round$R-$X-last-reads-flushed" "$((r1 - r0))" "$(($(fig "$X" reads) - q0))"
	if [ -n "$waiting" ]; then
		traced "$waiting" || { sleep 1; newer; }
		check "round$R-$waiting-traced-once-a-slot-freed" traced "$waiting"
		measure "$waiting"
	fi
	# back again: drive d$DIDX went with its device; a new drive on the same image
	img=$(sed -n "s/^d$DIDX ([^)]*): \([^ ]*\) .*/\1/p" "$OUT/info-block.txt" | head -1)
	r=$(hmp "device_add virtio-blk-pci,drive=d$DIDX,id=vd$DIDX,serial=sgl-disk$DIDX")
	if [ -n "$r" ]; then
		ADDS=$((ADDS + 1))
		hmp "drive_add 0 if=none,id=d${DIDX}r$ADDS,file=$img,format=raw,cache=writeback" >>"$OUT/hmp.txt"
		hmp "device_add virtio-blk-pci,drive=d${DIDX}r$ADDS,id=vd$DIDX,serial=sgl-disk$DIDX" >>"$OUT/hmp.txt"
	fi
	wait_for 30 back "$DIDX" || { fail "round$R-readded" "sgl-disk$DIDX did not come back"; break; }
	sleep 1
	newer
	check_eq "round$R-three-present" 3 "$(count present)"
	check_eq "round$R-two-traced" 2 "$(count traced)"
done
kill -INT $pid
wait $pid
check_eq exit 0 $?
exit 0
