# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 200
# expect-results: 10 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# guest-run-transports: pci mmio
# Defect 6 of issue 14: a device that stops answering. Under fio, the
# device stops completing for 3 s: on virtio-pci its function loses bus
# mastering (setpci clears bit 2 of COMMAND: QEMU's virtio-pci completes
# nothing meanwhile, and what it held then stays pending), on virtio-mmio
# its QEMU drive is throttled to 1 byte/s (guest-lib's stall_disk). With
# the disk's timeout at 2 s the driver must reset the device, set its
# queues up again and re-issue what it held: fio ends without an error, the
# data written before verifies, sgl/resets and the virtio_blk_sgl_reset
# tracepoint count the reset, and the kernel stays clean (guest-run fails
# the boot on Oops/WARNING).
[ "$GUEST_TRANSPORT" = mmio ] || command -v setpci >/dev/null ||
	{ fail prereq "setpci not on PATH (pciutils: make deps)"; exit 0; }
D=$(sgl_disks | head -1)
echo "disk $D on $(disk_transport $D)" >"$OUT/pci.txt"
echo 2000 >/sys/block/$D/queue/io_timeout
T=/sys/kernel/tracing
echo 1 >$T/events/virtio_blk_sgl/virtio_blk_sgl_reset/enable

# data written before the event, verified after it
fio --name=before --filename=/dev/$D --direct=1 --ioengine=libaio --rw=write --bs=64k \
	--offset=0 --size=8M --iodepth=8 --verify=crc32c --do_verify=0 \
	--output-format=terse >"$OUT/fio-before.txt" 2>&1 || fail before/write "$(tail -1 "$OUT/fio-before.txt")"

# the event under random writes on another region (verify's checksums cost
# too much CPU under TCG to keep requests in flight; the region written
# before is verified after, and a verified job runs after the event)
timeout 120 fio --name=stall --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randwrite \
	--bsrange=4k-64k --offset=16M --size=8M --iodepth=16 --time_based --runtime=12 \
	--output-format=terse >"$OUT/fio-stall.txt" 2>&1 &
F=$!
mapped_above() { [ "$(sgl_get $D requests_mapped)" -gt "$1" ]; }
m0=$(sgl_get $D requests_mapped)
wait_for 30 mapped_above $((m0 + 100))
# requests in flight when the device goes silent
n=0
while set -- $(cat /sys/block/$D/inflight) && [ $(($1 + $2)) -lt 1 ] && [ $n -lt 100 ]; do
	sleep 0.05; n=$((n + 1))
done
inflight=$(($1 + $2))
check "stall/device-silenced ($GUEST_TRANSPORT)" stall_disk $D on
c0=$(sgl_get $D requests_completed)
check "stall/io-in-flight-when-silenced ($inflight)" [ "$inflight" -ge 1 ]
sleep 3
c1=$(sgl_get $D requests_completed)
stall_disk $D off || fail stall/device-back "stall_disk $D off failed"
echo "completed $c0 -> $c1 in the 3 s silent" >>"$OUT/pci.txt"
wait $F
rc=$?
check "stall/fio-ends-clean (rc $rc: $(grep -m1 -i 'error\|verify' "$OUT/fio-stall.txt"))" [ $rc -eq 0 ]
r=$(sgl_get $D resets)
check "stall/device-reset (resets $r)" [ "$r" -ge 1 ]
if [ "$GUEST_TRANSPORT" = mmio ]; then
	# the backend holds the requests and QEMU's reset drains them: they
	# complete rather than being re-issued; that it completed next to
	# nothing while silent is the oracle that it stalled
	check "stall/backend-stalled (completed $((c1 - c0)) in 3 s, $r resets)" [ $((c1 - c0)) -le $(((r + 1) * 16)) ]
else
	check "stall/requests-reissued ($(sgl_get $D requests_reissued))" [ "$(sgl_get $D requests_reissued)" -ge 1 ]
fi
grep virtio_blk_sgl_reset $T/trace >"$OUT/trace-reset.txt"
check "stall/reset-traced ($(head -1 "$OUT/trace-reset.txt" | sed 's/.*virtio_blk_sgl_reset: //'))" \
	[ "$(grep -c 'virtio_blk_sgl_reset:.*err=0' "$OUT/trace-reset.txt")" -eq "$r" ]
check_eq stall/no-io-errors 0 "$(sgl_get $D io_errors)"
check_eq stall/mapped-equals-completed "$(sgl_get $D requests_mapped)" "$(sgl_get $D requests_completed)"
if fio --name=before --filename=/dev/$D --direct=1 --ioengine=libaio --rw=read --bs=64k \
	--offset=0 --size=8M --iodepth=8 --verify=crc32c --verify_only \
	--output-format=terse >"$OUT/fio-verify.txt" 2>&1; then
	pass after/data-before-verifies
else
	fail after/data-before-verifies "$(grep -m1 -i 'error\|verify' "$OUT/fio-verify.txt")"
fi
if fio --name=after --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randwrite \
	--bsrange=4k-64k --offset=32M --size=2M --iodepth=8 --verify=crc32c --verify_fatal=1 \
	--output-format=terse >"$OUT/fio-after.txt" 2>&1; then
	pass after/new-io-verifies
else
	fail after/new-io-verifies "$(grep -m1 -i 'error\|verify' "$OUT/fio-after.txt")"
fi
dmesg | grep -E "virtio_blk_sgl|reset" | tail -20 >"$OUT/dmesg-reset.txt"; cat /sys/block/$D/queue/io_timeout >>"$OUT/pci.txt"
