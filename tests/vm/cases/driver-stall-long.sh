# guest-run-args: --disks 2 --disk-size 64M --smp 2 --timeout 700
# expect-results: 17 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# guest-run-idle: yes
# Issue 26: a slow or resetting device never becomes an I/O error. Two
# faults at once, one per disk, each under fio:
# - disk 1: the QEMU backend stalls for STALL_S (300) seconds: an I/O
#   throttle of 1 byte/s on its drive (HMP block_set_io_throttle; the host
#   side, the guest runs on). Every request waits; the driver resets the
#   device after each io_timeout without a completion (QEMU's reset drains
#   the throttled requests), and nothing may fail. Released, fio's writes
#   verify.
# - disk 2: PCI bus mastering toggled off and on every 0.2 s for TOGGLE_S
#   (220) seconds under 4 KiB random reads at 250 IOPS (each off period
#   loses what the device was sent meanwhile, so requests are re-issued
#   again and again: a cap on re-issues failed reads with ETIMEDOUT here
#   before). The rate keeps the vCPU mostly idle: this boot runs beside the
#   others, and an unthrottled fio made it the busiest of the layer.
# The disks' io_timeout is 2 s, so both faults take dozens of resets.
# 0 fio errors, 0 io_errors, mapped == completed, resets counted and
# traced, data verified, the kernel clean (guest-run fails the boot on an
# Oops/BUG/WARNING).
STALL_S=${GUEST_STALL_S:-300}
TOGGLE_S=${GUEST_TOGGLE_S:-220}
for t in setpci pcitoggle; do
	command -v $t >/dev/null || { fail prereq "$t not on PATH (pciutils: make deps; pcitoggle: make guest-tools)"; exit 0; }
done
set -- $(sgl_disks)
A=$1 B=$2
[ -n "$B" ] || { fail prereq "two vsgl disks wanted, have: $(sgl_disks | tr '\n' ' ')"; exit 0; }
for d in $A $B; do echo 2000 >/sys/block/$d/queue/io_timeout; done
T=/sys/kernel/tracing
echo 1 >$T/events/virtio_blk_sgl/virtio_blk_sgl_reset/enable
# the drive (QEMU -drive id) behind disk A: guest-run names disk N's drive dN
drv=d$(( $(cat /sys/block/$A/serial | sed 's/^sgl-disk//') ))
echo "disk $A drive $drv, disk $B" >"$OUT/setup.txt"

# -- disk B: data written before the toggling, verified after it
fio --name=before --filename=/dev/$B --direct=1 --ioengine=libaio --rw=write --bs=64k \
	--offset=0 --size=8M --iodepth=8 --verify=crc32c --do_verify=0 \
	--output-format=terse >"$OUT/fio-b-before.txt" 2>&1 || fail b/before-write "$(tail -1 "$OUT/fio-b-before.txt")"

# -- disk A: random writes with crc32c verify across the stall (fio writes
# its region, then reads it back and checks every block)
fio --name=stall --filename=/dev/$A --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
	--offset=0 --size=16M --iodepth=16 --verify=crc32c --verify_fatal=1 \
	--output-format=terse >"$OUT/fio-a.txt" 2>&1 &
FA=$!
mapped_above() { [ "$(sgl_get $1 requests_mapped)" -gt "$2" ]; }
wait_for 60 mapped_above $A 50
reply=$(hmp "block_set_io_throttle $drv 1 0 0 0 0 0")
info=$(hmp "info block $drv")
echo "throttle: $reply / $(echo "$info" | tr '\n' ' ')" >>"$OUT/setup.txt"
check "a/backend-throttled ($(echo "$info" | grep -m1 -i 'throttl\|bps' | tr -s ' '))" \
	sh -c "echo \"\$1\" | grep -qi 'I/O throttling'" _ "$info"
ca0=$(sgl_get $A requests_completed) ra0=$(sgl_get $A resets)
t0=$(cut -d. -f1 /proc/uptime)

# -- disk B: 4 KiB random reads while its bus mastering toggles
slot=$(basename "$(readlink -f /sys/block/$B/device/..)")
cmd0=$(setpci -s "$slot" COMMAND)
echo "disk $B slot $slot COMMAND $cmd0" >>"$OUT/setup.txt"
fio --name=toggle --filename=/dev/$B --direct=1 --ioengine=libaio --rw=randread --bs=4k \
	--offset=16M --size=16M --iodepth=16 --rate_iops=250 --time_based --runtime=$((TOGGLE_S + 30)) \
	--output-format=terse >"$OUT/fio-b.txt" 2>&1 &
FB=$!
wait_for 60 mapped_above $B 100
left=$((TOGGLE_S - ($(cut -d. -f1 /proc/uptime) - t0)))
toggles=$(pcitoggle "/sys/bus/pci/devices/$slot/config" $((left > 0 ? left : 1)) 100 2>>"$OUT/setup.txt" | sed -n 's/^toggles //p')
check "b/bus-master-restored" [ "$(setpci -s "$slot" COMMAND)" = "$cmd0" ]
echo "toggles $toggles" >>"$OUT/setup.txt"
wait $FB
rc=$?
check "b/toggled ($toggles times)" [ "$toggles" -ge 100 ]
check "b/fio-no-errors (rc $rc: $(grep -m1 -i 'error' "$OUT/fio-b.txt" | cut -c1-200))" [ $rc -eq 0 ]
check "b/device-reset ($(sgl_get $B resets) resets)" [ "$(sgl_get $B resets)" -ge 1 ]
check_eq b/no-io-errors 0 "$(sgl_get $B io_errors)"
check_eq b/mapped-equals-completed "$(sgl_get $B requests_mapped)" "$(sgl_get $B requests_completed)"
if fio --name=before --filename=/dev/$B --direct=1 --ioengine=libaio --rw=read --bs=64k \
	--offset=0 --size=8M --iodepth=8 --verify=crc32c --verify_only \
	--output-format=terse >"$OUT/fio-b-verify.txt" 2>&1; then
	pass b/data-before-verifies
else
	fail b/data-before-verifies "$(grep -m1 -i 'error\|verify' "$OUT/fio-b-verify.txt")"
fi

# -- disk A: the rest of the stall, then release the backend
while [ $(($(cut -d. -f1 /proc/uptime) - t0)) -lt "$STALL_S" ]; do sleep 5; done
ca1=$(sgl_get $A requests_completed) ra1=$(sgl_get $A resets)
hmp "block_set_io_throttle $drv 0 0 0 0 0 0" >>"$OUT/setup.txt"
echo "stall: completed $ca0 -> $ca1, resets $ra0 -> $ra1 over $STALL_S s" >>"$OUT/setup.txt"
# the oracle that the backend stalled: without resets QEMU completes
# nothing, so fewer completions than one per reset per queue depth
check "a/backend-stalled (completed $((ca1 - ca0)) with $((ra1 - ra0)) resets)" \
	[ $((ca1 - ca0)) -le $(((ra1 - ra0 + 1) * 16)) ]
check "a/device-reset-during-stall ($((ra1 - ra0)) resets)" [ $((ra1 - ra0)) -ge 2 ]
wait $FA
rc=$?
check "a/fio-verifies (rc $rc: $(grep -m1 -i 'error\|verify' "$OUT/fio-a.txt" | cut -c1-200))" [ $rc -eq 0 ]
check_eq a/no-io-errors 0 "$(sgl_get $A io_errors)"
check_eq a/mapped-equals-completed "$(sgl_get $A requests_mapped)" "$(sgl_get $A requests_completed)"

grep virtio_blk_sgl_reset $T/trace >"$OUT/trace-reset.txt"
r=$(( $(sgl_get $A resets) + $(sgl_get $B resets) ))
check_eq resets-traced-ok "$r" "$(grep -c 'virtio_blk_sgl_reset:.*err=0' "$OUT/trace-reset.txt")"
check_eq no-reset-failed 0 "$(grep -c 'virtio_blk_sgl_reset:.*err=-' "$OUT/trace-reset.txt")"
check "no-request-failed-in-kernel-log" sh -c '! dmesg | grep -qE "I/O error|requests failed|critical"'
dmesg | grep -iE "virtio_blk_sgl|reset|error" | tail -40 >"$OUT/dmesg.txt"
if fio --name=after --filename=/dev/$A --direct=1 --ioengine=libaio --rw=randwrite \
	--bsrange=4k-64k --offset=32M --size=2M --iodepth=8 --verify=crc32c --verify_fatal=1 \
	--output-format=terse >"$OUT/fio-after.txt" 2>&1; then
	pass after/new-io-verifies
else
	fail after/new-io-verifies "$(grep -m1 -i 'error\|verify' "$OUT/fio-after.txt")"
fi
