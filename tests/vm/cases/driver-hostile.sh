# guest-run-args: --testing --disks 1 --disk-size 32M --smp 2 --no-module --timeout 420 --disk-props "num-queues=2"
# expect-results: 101 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# A buggy or hostile device's config values, played through the driver's
# testing-only test_config parameter (QEMU will not offer them): each load
# must either refuse the device with one log line or clamp the value with
# one, never crash, warn or hang (guest-run fails the boot on any Oops,
# BUG or WARNING), and a disk that comes up must serve verified I/O.
for t in fio; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (a missing tool fails the case)"; exit 1; }
done

logged() { dmesg | grep -q "$1"; }
# up NAME CONFIG: load with test_config=CONFIG; the disk must come up
up() {
	dmesg -c >/dev/null
	if ! sgl_load "test_config=$2"; then
		fail "$1/load" "insmod test_config=$2 failed: $(dmesg | tail -1)"
		return 1
	fi
	check "$1/override-logged" logged "test_config: .* overridden to"
	D=$(sgl_disks | head -1)
	[ -n "$D" ] || { fail "$1/disk-up" "no disk: $(dmesg | grep virtio_blk_sgl | tail -1)"; sgl_unload; return 1; }
}
# verify NAME BSRANGE: write + crc32c verify on $D, no I/O errors
verify() {
	if fio --name="$1" --filename="/dev/$D" --direct=1 --ioengine=libaio --rw=randwrite \
		--bsrange="$2" --size=4M --iodepth=8 --verify=crc32c --verify_fatal=1 \
		--output-format=terse >"$OUT/fio-$1.txt" 2>&1; then
		pass "$1/verify"
	else
		fail "$1/verify" "$(grep -m1 -i error "$OUT/fio-$1.txt")"
	fi
	check_eq "$1/no-io-errors" 0 "$(sgl_get "$D" io_errors)"
}
down() { sgl_unload || fail "$1/unload" "rmmod failed"; }

# the testing flavour's parameters are module_param_unsafe: loading without
# them leaves TAINT_USER (bit 6 of /proc/sys/kernel/tainted) clear, setting
# one at run time sets it (and logs "Setting dangerous option"); the testing
# build says what it is at every load, parameters or not
dmesg -c >/dev/null
if sgl_load; then
	check taint/testing-build-warned logged "virtio_blk_sgl: testing build (VSGL_TESTING=1), not for production use"
	t0=$(cat /proc/sys/kernel/tainted)
	check_eq "taint/user-clear-after-plain-load ($t0)" 0 $((t0 & 64))
	echo 0 >/sys/module/virtio_blk_sgl/parameters/test_used_every
	t1=$(cat /proc/sys/kernel/tainted)
	check_eq "taint/user-set-by-test-param ($t0 -> $t1)" 64 $((t1 & 64))
	check taint/logged logged "Setting dangerous option test_used_every"
	sgl_unload
else
	fail taint/load "insmod failed"
fi

# bad parameter strings: refused at load with one line
for bad in bogus=1 seg_max seg_max=x; do
	dmesg -c >/dev/null
	if sgl_load "test_config=$bad" 2>/dev/null; then
		fail "param-$bad" "loaded"; sgl_unload
	else
		check "param-$bad-refused" logged "test_config=$bad is invalid"
	fi
done

# seg_max 0: one segment per request (the block layer splits)
if up seg-max-0 seg_max=0; then
	check_eq seg-max-0/max-segments 1 "$(cat /sys/block/$D/queue/max_segments)"
	verify seg-max-0 4k-256k
	down seg-max-0
fi
# seg_max 2^32-1: clamped to what the ring allows
if up seg-max-huge seg_max=4294967295; then
	check seg-max-huge/clamp-logged logged "seg_max 4294967295 exceeds what the queue allows"
	m=$(cat /sys/block/$D/queue/max_segments)
	check "seg-max-huge/max-segments-below-ring ($m)" [ "$m" -ge 1 -a "$m" -le 254 ]
	verify seg-max-huge 4k-1m
	down seg-max-huge
fi
# num_queues 0: requestq1 always exists, use one
if up queues-0 num_queues=0; then
	check queues-0/logged logged "device reports 0 queues, using 1"
	check_eq queues-0/nr-hw-queues 1 "$(sgl_get "$D" nr_hw_queues)"
	verify queues-0 4k-64k
	down queues-0
fi
# num_queues 65535: no more than the vCPUs (min of the device's value,
# num_request_queues and nr_cpu_ids: 2 here, which the device, with 2
# queues, has): the disk must come up with 2 hardware queues
if up queues-huge num_queues=65535; then
	check_eq queues-huge/nr-hw-queues 2 "$(sgl_get "$D" nr_hw_queues)"
	verify queues-huge 4k-64k
	down queues-huge
fi
# blk_size: not a power of two, 0, above a page: the device is refused
for v in 3 0 8192 4294967295; do
	dmesg -c >/dev/null
	if sgl_load "test_config=blk_size=$v"; then
		check_eq "blk-size-$v/no-disk" "" "$(sgl_disks)"
		check "blk-size-$v/logged" logged "unsupported block size $v"
		down "blk-size-$v"
	else
		fail "blk-size-$v/load" "insmod failed (the driver must load and refuse only the device)"
	fi
done
# blk_size 4096 is legal: 4 KiB logical blocks
if up blk-size-4096 blk_size=4096; then
	check_eq blk-size-4096/logical-block-size 4096 "$(cat /sys/block/$D/queue/logical_block_size)"
	verify blk-size-4096 4k-128k
	down blk-size-4096
fi
# size_max 0 is ignored; size_max 1 is raised to a page
if up size-max-0 size_max=0; then
	check size-max-0/logged logged "ignoring size_max 0"
	verify size-max-0 4k-256k
	down size-max-0
fi
if up size-max-1 size_max=1; then
	check size-max-1/logged logged "segment size limit 1 raised to 4096"
	check_eq size-max-1/max-segment-size 4096 "$(cat /sys/block/$D/queue/max_segment_size)"
	verify size-max-1 4k-256k
	down size-max-1
fi
# all of it at once
if up combined seg_max=0,size_max=1,blk_size=4096,num_queues=0; then
	check_eq combined/max-segments 1 "$(cat /sys/block/$D/queue/max_segments)"
	verify combined 4k-64k
	down combined
fi
# max_discard_seg 0 (out of spec): the in-tree driver takes it as sg_elems
# (max segments), capped at 256 ranges per discard (QEMU's default
# discard=ignore drops the discard itself: only the command path is tested)
if up discard-seg-0 max_discard_seg=0; then
	m=$(cat /sys/block/$D/queue/max_segments)
	[ "$m" -gt 256 ] && m=256
	check_eq discard-seg-0/max-discard-segments "$m" "$(cat /sys/block/$D/queue/max_discard_segments)"
	check discard-seg-0/discard segbuf discard /dev/$D 2048 4096
	verify discard-seg-0 4k-64k
	down discard-seg-0
fi
# capacity: 0 gives an empty disk; 2^64-1 sectors is clamped, and reads
# past the real image end fail as I/O errors, not as a crash
if up capacity-0 capacity=0; then
	check_eq capacity-0/size 0 "$(cat /sys/block/$D/size)"
	down capacity-0
fi
if up capacity-huge capacity=18446744073709551615; then
	check capacity-huge/logged logged "capacity 18446744073709551615 sectors is too large"
	sz=$(cat /sys/block/$D/size)
	check "capacity-huge/size-clamped ($sz)" [ "$sz" -gt $((1 << 40)) ]
	check capacity-huge/read-start dd if=/dev/$D of=/dev/null bs=4k count=1 iflag=direct
	e0=$(sgl_get "$D" io_errors)
	dd if=/dev/$D of=/dev/null bs=4k count=1 skip=$((1 << 30)) iflag=direct 2>"$OUT/dd-past-end.err"
	rc=$?
	check "capacity-huge/read-past-image-end-fails (dd rc $rc: $(tail -1 "$OUT/dd-past-end.err"))" \
		[ $rc -ne 0 ]
	check capacity-huge/read-past-image-end-io-error grep -q 'Input/output error' "$OUT/dd-past-end.err"
	check "capacity-huge/read-past-image-end-counted" [ "$(sgl_get "$D" io_errors)" -gt "$e0" ]
	down capacity-huge
fi

# ---- secure erase (VIRTIO_BLK_F_SECURE_ERASE). QEMU 7.2 offers none, so
# test_config makes the feature's fields present: the block layer then
# cuts an erase at max_secure_erase_sectors, each piece reaches QEMU as a
# VIRTIO_BLK_T_SECURE_ERASE request (its completion carries QEMU's own
# answer, VIRTIO_BLK_S_UNSUPP = 2) and the erase fails as unsupported; with
# a zero maximum (out of spec) the disk comes up without secure erase.
TR=/sys/kernel/tracing
erase_events() { # EVENT: op=5 (REQ_OP_SECURE_ERASE) lines of a driver event
	grep "virtio_blk_sgl_$1:.* op=5 " $TR/trace
}
erase_try() { # NAME: blkdiscard -s of the first 4 MiB, traced
	echo > $TR/trace
	echo 1 > $TR/events/virtio_blk_sgl/enable
	busybox blkdiscard -s -o 0 -l 4194304 /dev/$D >"$OUT/erase-$1.txt" 2>&1
	erase_rc=$?
	echo 0 > $TR/events/virtio_blk_sgl/enable
	erase_events setup >"$OUT/erase-$1.setup"
	erase_events complete >"$OUT/erase-$1.complete"
}
dmesg -c >/dev/null
if sgl_load; then
	D=$(sgl_disks | head -1)
	erase_try off
	check "erase-off/refused (rc $erase_rc: $(cat "$OUT/erase-off.txt"))" [ $erase_rc -ne 0 ]
	check_eq erase-off/no-request 0 "$(wc -l <"$OUT/erase-off.setup")"
	down erase-off
fi
if up erase-on max_secure_erase_sectors=2048,max_secure_erase_seg=1,secure_erase_sector_alignment=8; then
	e0=$(sgl_get "$D" io_errors)
	erase_try on
	check "erase-on/fails-unsupported (rc $erase_rc: $(cat "$OUT/erase-on.txt"))" [ $erase_rc -ne 0 ]
	check_eq erase-on/four-requests 4 "$(wc -l <"$OUT/erase-on.setup")"
	check_eq erase-on/each-2048-sectors "2048 2048 2048 2048" \
		"$(sed 's/.* nr_sectors=\([0-9]*\) .*/\1/' "$OUT/erase-on.setup" | tr '\n' ' ' | sed 's/ $//')"
	check_eq erase-on/device-answered-unsupp "2 2 2 2" \
		"$(sed 's/.* vstatus=\([0-9]*\) .*/\1/' "$OUT/erase-on.complete" | tr '\n' ' ' | sed 's/ $//')"
	check_eq erase-on/counted-as-errors $((e0 + 4)) "$(sgl_get "$D" io_errors)"
	check "erase-on/discard-still-served" busybox blkdiscard -o 0 -l 4194304 /dev/$D
	if fio --name=erase-on --filename="/dev/$D" --direct=1 --ioengine=libaio --rw=randwrite \
		--bsrange=4k-128k --size=4M --iodepth=8 --verify=crc32c --verify_fatal=1 \
		--output-format=terse >"$OUT/fio-erase-on.txt" 2>&1; then
		pass erase-on/verify-after
	else
		fail erase-on/verify-after "$(grep -m1 -i error "$OUT/fio-erase-on.txt")"
	fi
	down erase-on
fi
for nz in erase-zero-sectors:max_secure_erase_sectors=0,max_secure_erase_seg=1 \
	erase-zero-segs:max_secure_erase_sectors=2048,max_secure_erase_seg=0; do
	ez=${nz%%:*}
	if up $ez "${nz#*:},secure_erase_sector_alignment=8"; then
		check $ez/logged logged "secure erase off: max_secure_erase_sectors"
		erase_try $ez
		check "$ez/refused (rc $erase_rc)" [ $erase_rc -ne 0 ]
		check_eq $ez/no-request 0 "$(wc -l <"$OUT/erase-$ez.setup")"
		verify $ez 4k-128k
		down $ez
	fi
done

# ---- the used ring: status bytes and used lengths a device must not return,
# played through test_used_*: each corrupted request fails with an I/O error
# (counted in io_errors, and by sglstat from the completion tracepoint), an
# invalid value logs a line, and the disk serves verified I/O once it stops.
P=/sys/module/virtio_blk_sgl/parameters
dmesg -c >/dev/null
if sgl_load && D=$(sgl_disks | head -1) && [ -n "$D" ]; then
	sglstat --mode driver -d "$D" -j --cumulative >"$OUT/used-sglstat.json" 2>"$OUT/used-sglstat.err" &
	SG=$!
	wait_for 60 grep -q '^Tracing' "$OUT/used-sglstat.err" || fail used/sglstat-start "$(cat "$OUT/used-sglstat.err")"
	c0=$(sgl_get "$D" requests_completed) e0=$(sgl_get "$D" io_errors)
	# used_case NAME STATUS LEN_DELTA LOG_REGEX: corrupt every completion, one
	# 4 KiB O_DIRECT read (used length 4097 from a good device) must fail
	used_case() {
		dmesg -c >/dev/null
		_e=$(sgl_get "$D" io_errors)
		echo "$2" >$P/test_used_status
		echo "$3" >$P/test_used_len
		echo 1 >$P/test_used_every
		dd if=/dev/$D of=/dev/null bs=4k count=1 iflag=direct 2>"$OUT/dd-$1.err"
		_rc=$?
		echo 0 >$P/test_used_every
		check "$1/read-failed (dd rc $_rc: $(tail -1 "$OUT/dd-$1.err"))" [ "$_rc" != 0 ]
		check "$1/io-errors-counted" [ "$(sgl_get "$D" io_errors)" -gt "$_e" ]
		if [ -n "$4" ]; then check "$1/logged" logged "$4"; fi
	}
	used_case used-status-127 127 0 "invalid status 127 from device"
	used_case used-status-255 255 0 "invalid status 255 from device"
	used_case used-status-ioerr 1 0 ""
	used_case used-status-unsupp 2 0 ""
	# A used length below the device-writable size (real devices report 0
	# or the data length) is counted and logged once per disk, and the
	# status byte decides: the read succeeds. used_short NAME LEN_DELTA
	used_short() {
		dmesg -c >/dev/null
		_e=$(sgl_get "$D" io_errors) _m=$(sgl_get "$D" used_len_mismatch)
		echo -1 >$P/test_used_status
		echo "$2" >$P/test_used_len
		echo 1 >$P/test_used_every
		dd if=/dev/$D of=/dev/null bs=4k count=1 iflag=direct 2>"$OUT/dd-$1.err"
		_rc=$?
		echo 0 >$P/test_used_every
		check_eq "$1/read-succeeds ($(tail -1 "$OUT/dd-$1.err"))" 0 "$_rc"
		check_eq "$1/no-io-error" "$_e" "$(sgl_get "$D" io_errors)"
		check "$1/mismatch-counted" [ "$(sgl_get "$D" used_len_mismatch)" -gt "$_m" ]
	}
	used_short used-len-0 -4097
	check used-len-0/logged-once logged "used length 0, expected 4097; ignoring wrong used lengths"
	used_short used-len-minus-1 -1
	check used-len-minus-1/not-logged-again sh -c '! dmesg | grep -q "ignoring wrong used lengths"'
	# beyond the device-writable size: the status byte would be outside
	# the buffer, the request fails
	used_case used-len-plus-1 -1 1 "used length 4098 beyond the 4097 bytes the device may write"
	used_case used-len-huge -1 2147483647 "used length 2147487744 beyond the 4097 bytes"
	# every 3rd completion corrupted under a mixed load: errors, no crash
	echo 127 >$P/test_used_status
	echo 0 >$P/test_used_len
	echo 3 >$P/test_used_every
	fio --name=used-mixed --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randrw \
		--bsrange=4k-128k --size=8M --iodepth=8 --continue_on_error=all \
		--output-format=terse >"$OUT/fio-used-mixed.txt" 2>&1
	echo 0 >$P/test_used_every
	echo -1 >$P/test_used_status
	# the device's own values again: verified I/O without a new error
	e_mid=$(sgl_get "$D" io_errors)
	if fio --name=used-after --filename="/dev/$D" --direct=1 --ioengine=libaio --rw=randwrite \
		--bsrange=4k-256k --size=4M --iodepth=8 --verify=crc32c --verify_fatal=1 \
		--output-format=terse >"$OUT/fio-used-after.txt" 2>&1; then
		pass used-after/verify
	else
		fail used-after/verify "$(grep -m1 -i error "$OUT/fio-used-after.txt")"
	fi
	check_eq used-after/no-new-io-errors "$e_mid" "$(sgl_get "$D" io_errors)"
	check "used-mixed/errors-seen ($e0 -> $e_mid)" [ "$e_mid" -gt $((e0 + 7)) ]
	kill -INT $SG; wait $SG
	c1=$(sgl_get "$D" requests_completed) e1=$(sgl_get "$D" io_errors)
	j=$(json_last "$OUT/used-sglstat.json")
	check_eq used/sglstat-io-errors-equal-driver $((e1 - e0)) \
		"$(echo "$j" | jq '[.disks[0].ops[].io_errors] | add')"
	check_eq used/sglstat-completions-equal-driver $((c1 - c0)) \
		"$(echo "$j" | jq '[.disks[0].ops[].completions] | add')"
	down used
else
	fail used/load "$(dmesg | tail -1)"
fi
