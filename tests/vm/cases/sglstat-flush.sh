# guest-run-args: --disks 2 --disk-size 64M --smp 2 --timeout 400
# expect-results: 19 (at least; tests/vm/run-cases fails the case with fewer result lines)
# Every request completes once in sglstat's figures under flush sequences,
# in stock mode (in-tree virtio_blk) and driver mode (virtio_blk_sgl) at
# once. QEMU's virtio-blk has a write-back cache and no FUA, so O_DSYNC
# writes (REQ_FUA), fsync (empty PREFLUSH flushes) and buffered writes with
# conv=fsync all run through the block layer's flush machinery, which fires
# block_rq_complete more often than requests are issued.
#
# The oracle is the kernel's own tracefs: hist triggers count block_rq_issue
# and block_rq_complete per device, exactly (no trace buffer to overflow).
for t in sglstat jq fio; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH"; exit 0; }
done
T=/sys/kernel/tracing
[ -d $T/events/block ] || mount -t tracefs nodev $T 2>/dev/null
[ -w $T/events/block/block_rq_issue/trigger ] || { fail prereq "no tracefs block events"; exit 0; }

# the second disk moves to the in-tree driver, as the README's migration does
move_to_intree vsglb && wait_for 10 test -b /dev/vda || { fail prereq "virtio_blk did not take vsglb's device"; exit 0; }
SD=vda DD=vsgla
for d in $SD $DD; do
	check "$d-write-back-cache" grep -q 'write back' /sys/block/$d/queue/write_cache
done

# dev_t as the block tracepoints print it: major << 20 | minor
kdev() { IFS=: read -r _ma _mi </sys/block/$1/dev; echo $(((_ma << 20) | _mi)); }
hits() { # EVENT DISK: hist trigger count for DISK
	awk -v d="$(kdev "$2")" '$1 == "{" && $2 == "dev:" && $3 == d "" { sub(/.*hitcount: */, ""); print $1 + 0; f = 1 }
		END { if (!f) print 0 }' $T/events/block/$1/hist
}
for e in block_rq_issue block_rq_complete; do
	echo 'hist:keys=dev' >$T/events/block/$e/trigger || { fail prereq "hist trigger on $e"; exit 0; }
done
sglstat --mode stock -d $SD -j --cumulative >"$OUT/stock.json" 2>"$OUT/stock.err" &
ps=$!
sglstat --mode driver -d $DD -j --cumulative >"$OUT/drv.json" 2>"$OUT/drv.err" &
pd=$!
for n in stock drv; do
	wait_for 60 grep -q '^Tracing' "$OUT/$n.err" || fail "$n-start" "$(head -2 "$OUT/$n.err")"
done
for d in $SD $DD; do
	eval "i0_$d=$(hits block_rq_issue $d) c0_$d=$(hits block_rq_complete $d)"
done
m0=$(sgl_get $DD requests_completed)

for d in $SD $DD; do
	fio --name=dsync --filename=/dev/$d --rw=randwrite --bs=4k --size=16M --io_size=200k \
		--direct=1 --sync=dsync --ioengine=psync --output=/dev/null || fail "$d-fio-dsync" "fio failed"
	fio --name=fsync --filename=/dev/$d --rw=write --bsrange=4k-64k --size=16M --io_size=400k \
		--fsync=1 --ioengine=psync --output=/dev/null || fail "$d-fio-fsync" "fio failed"
	for i in $(seq 20); do
		dd if=/dev/zero of=/dev/$d bs=8k count=1 seek=$((4000 + i)) conv=fsync,notrunc status=none ||
			fail "$d-dd-fsync" "dd failed"
	done
done
sync
for d in $SD $DD; do
	wait_for 10 sh -c "[ \"\$(awk '{ print \$1 + \$2 }' /sys/block/$d/inflight)\" = 0 ]"
	eval "ni_$d=\$((\$(hits block_rq_issue $d) - i0_$d)) nc_$d=\$((\$(hits block_rq_complete $d) - c0_$d))"
done
m1=$(sgl_get $DD requests_completed)
kill -INT $ps $pd
wait $ps; rs=$?
wait $pd; rd=$?
for e in block_rq_issue block_rq_complete; do echo '!hist:keys=dev' >$T/events/block/$e/trigger; done
check_eq stock-exit 0 $rs
check_eq driver-exit 0 $rd

# figures NAME DISK JSON: requests, requeues, completions, write and flush requests
figures() {
	json_last "$1" | jq -r --arg d "$2" '.disks[] | select(.name == $d) |
		"\(.total.requests) \(.total.requeues) \(.total.completions) \(.ops.write.requests) \(.ops.flush.requests) \(.ops.write.completions) \(.ops.flush.completions)"'
}
for n in stock:$SD drv:$DD; do
	mode=${n%%:*} d=${n#*:}
	set -- $(figures "$OUT/$mode.json" $d)
	req=${1:-x} rq=${2:-0} comp=${3:-x} wr=${4:-0} fl=${5:-0} wc=${6:-x} fc=${7:-x}
	eval "ni=\$ni_$d nc=\$nc_$d"
	echo "$mode $d: tracefs issue $ni complete $nc; sglstat requests $req (+$rq requeued), completions $comp, writes $wr/$wc, flushes $fl/$fc" >>"$OUT/summary.txt"
	# the workload really ran flush sequences: more complete events than issues
	check "$mode-flush-sequences-seen" [ "$nc" -gt "$ni" -a "$fl" -gt 0 ]
	check_eq "$mode-requests-equal-tracefs-issues" "$ni" "$((req + rq))"
	check_eq "$mode-completions-equal-requests" "$req" "$comp"
	check_eq "$mode-write-completions-equal-requests" "$wr" "$wc"
	check_eq "$mode-flush-completions-equal-requests" "$fl" "$fc"
	lat=$(json_last "$OUT/$mode.json" | jq --arg d $d '[.disks[] | select(.name == $d) | .total.lat_ns[].count] | add')
	check_eq "$mode-latency-samples-equal-requests" "$req" "$lat"
	check_eq "$mode-inflight-chained-bytes-zero" 0 "$(json_last "$OUT/$mode.json" | jq --arg d $d '.disks[] | select(.name == $d) | .chained_bytes_inflight')"
done
check_eq driver-completions-equal-driver-counter "$((m1 - m0))" "$(figures "$OUT/drv.json" $DD | awk '{ print $3 }')"
exit 0
