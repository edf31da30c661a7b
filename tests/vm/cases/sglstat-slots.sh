# guest-run-args: --disks 3 --disk-size 16M --smp 2 --timeout 400
# A long-running sglstat with fewer disk slots than disks come and go:
# --max-disks 2 on a guest with 3 disks, then 4 rounds of hot-remove and
# hot-add through the QEMU monitor (7 disk arrivals for 2 slots).  A disk
# without a slot is traced as soon as one frees; a departed disk's last
# counts reach the report before its slot is reused; every traced disk's read
# requests equal its /sys/block stat reads over the same window.
for t in sglstat jq; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH"; exit 0; }
done
SERIALS="sgl-disk0 sgl-disk1 sgl-disk2"
hmp "info block" >"$OUT/info-block.txt"
reads() { awk '{ print $1 }' /sys/block/$1/stat; }
# fig NAME FILTER: on the last report
fig() { json_last "$OUT/s.json" | jq -r --arg d "$1" "[.disks[] | select(.name == \$d)][0] | $2"; }
newer() { # wait for a report newer than the one there now
	_s=$(json_seq "$OUT/s.json") _i=0
	while [ "$(json_seq "$OUT/s.json")" -le "$_s" ] && [ $_i -lt 50 ]; do sleep 0.2; _i=$((_i + 1)); done
}
traced() { [ "$(fig "$1" .traced)" = true ]; }
back() { [ -n "$(disk_of_serial "sgl-disk$1")" ]; }

sglstat --mode auto --max-disks 2 -j --cumulative 1 >"$OUT/s.json" 2>"$OUT/s.err" &
pid=$!
wait_for 60 grep -q '^Tracing' "$OUT/s.err" || { fail start "$(head -3 "$OUT/s.err")"; exit 0; }
check "startup-2-slots" grep -q ', 2 disk slots$' "$OUT/s.err"
newer; newer
check "slots-full-warned" grep -q 'all 2 disk slots in use' "$OUT/s.err"
check_eq "two-of-three-traced" 2 "$(json_last "$OUT/s.json" | jq '[.disks[] | select(.traced)] | length')"

# measure NAME: 20 reads, sglstat's read requests against sysfs over the window
measure() {
	_r0=$(reads "$1"); newer; _q0=$(fig "$1" .ops.read.requests)
	dd if=/dev/$1 of=/dev/null bs=4k count=20 iflag=direct status=none
	newer; newer
	check_eq "round$R-$1-reads-equal-sysfs" "$(($(reads "$1") - _r0))" "$(($(fig "$1" .ops.read.requests) - _q0))"
}
ADDS=0
for R in 1 2 3 4; do
	i=$(((R - 1) % 3))
	X=$(disk_of_serial sgl-disk$i)
	[ -n "$X" ] || { fail "round$R-disk" "no disk with serial sgl-disk$i"; break; }
	wait_for 5 traced "$X" || {
		# the untraced one: measure the others, remove a traced one instead
		for s in $SERIALS; do d=$(disk_of_serial $s); traced "$d" && { X=$d; i=${s#sgl-disk}; break; }; done
	}
	waiting=""
	for s in $SERIALS; do d=$(disk_of_serial $s); traced "$d" || waiting=$d; done
	for s in $SERIALS; do d=$(disk_of_serial $s); traced "$d" && measure "$d"; done
	# last reads right before the removal: they must reach a report
	newer
	r0=$(reads "$X") q0=$(fig "$X" .ops.read.requests)
	dd if=/dev/$X of=/dev/null bs=4k count=30 iflag=direct status=none
	r1=$(reads "$X")
	hmp "device_del vd$i" >>"$OUT/hmp.txt"
	wait_for 30 sh -c "[ ! -e /sys/block/$X ]" || fail "round$R-removed" "$X still there"
	newer; newer
	check_eq "round$R-$X-gone" false "$(fig "$X" .present)"
	check_eq "round$R-$X-last-reads-flushed" "$((r1 - r0))" "$(($(fig "$X" .ops.read.requests) - q0))"
	if [ -n "$waiting" ]; then
		wait_for 5 traced "$waiting"
		check "round$R-$waiting-traced-once-a-slot-freed" traced "$waiting"
		measure "$waiting"
	fi
	# back again: drive d$i went with its device; a new drive on the same image
	img=$(sed -n "s/^d$i ([^)]*): \([^ ]*\) .*/\1/p" "$OUT/info-block.txt" | head -1)
	r=$(hmp "device_add virtio-blk-pci,drive=d$i,id=vd$i,serial=sgl-disk$i")
	if [ -n "$r" ]; then
		ADDS=$((ADDS + 1))
		hmp "drive_add 0 if=none,id=d${i}r$ADDS,file=$img,format=raw,cache=writeback" >>"$OUT/hmp.txt"
		hmp "device_add virtio-blk-pci,drive=d${i}r$ADDS,id=vd$i,serial=sgl-disk$i" >>"$OUT/hmp.txt"
	fi
	wait_for 30 back "$i" || { fail "round$R-readded" "sgl-disk$i did not come back"; break; }
	newer; newer
	check_eq "round$R-three-present" 3 "$(json_last "$OUT/s.json" | jq '[.disks[] | select(.present)] | length')"
	check_eq "round$R-two-traced" 2 "$(json_last "$OUT/s.json" | jq '[.disks[] | select(.present and .traced)] | length')"
done
kill -INT $pid
wait $pid
check_eq exit 0 $?
exit 0
