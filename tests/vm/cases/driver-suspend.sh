# guest-run-args: --disks 2 --disk-size 64M --smp 2 --timeout 240
# expect-results: 13 (at least; tests/vm/run-cases fails the case with fewer result lines)
# may-skip: suspend-resume -- the guest kernel has no /sys/power/pm_test (built without CONFIG_PM_DEBUG)
# Suspend/resume through the driver's freeze/restore (pm_test=devices runs
# every device's suspend and resume callbacks without sleeping for real).
# virtio_9p has no restore callback: the share would be dead after resume,
# so the test continues from tmpfs, unbinds 9p first and rebinds it after.
D=vsgla
command -v segbuf >/dev/null || { fail prereq "segbuf helper not built (make guest-tools)"; exit 1; }
[ -w /sys/power/pm_test ] || { skip suspend-resume "no /sys/power/pm_test"; exit 0; }

segbuf write /dev/$D 16 8 20480 || fail suspend-data-written "segbuf write failed"
# vsglb (d1) is throttled to 8 KiB/s of writes: writes issued just before the
# freeze are still in flight when its freeze callback runs (asserted below),
# so that callback drains them for seconds. Meanwhile d0 grows: its config
# interrupt arrives after user space and the freezable workqueues are frozen
# but before d0's own freeze (devices suspend in reverse order of
# registration), so d0's config work must not sit on a frozen workqueue that
# its freeze then flushes (issue 14, defect 4: that deadlocked).
thr=$(hmp "block_set_io_throttle d1 0 0 8192 0 0 0")
[ -z "$thr" ] || fail suspend-throttle "block_set_io_throttle: $thr"
hmp_after 7 "block_resize d0 96M"
cp /mnt/host/lib/guest-lib.sh /tmp/guest-lib.sh
cat >/tmp/resume.sh <<'R'
. /tmp/guest-lib.sh
REAL_OUT=$OUT
OUT=/tmp/out
mkdir -p $OUT
D=vsgla
ninep=$(ls -d /sys/bus/virtio/drivers/9pnet_virtio/virtio* | sed 's|.*/||')
umount /mnt/hostroot || umount -l /mnt/hostroot
umount /mnt/host || umount -l /mnt/host
for v in $ninep; do echo $v > /sys/bus/virtio/drivers/9pnet_virtio/unbind; done
m0=$(sgl_get $D requests_mapped)
# I/O in flight when the freeze starts must be drained, not lost
segbuf write /dev/$D 64 40 40960 &
wpid=$!
# eight 16 KiB writes at once, 2 s apiece at 8 KiB/s: aiowrite waits in an
# interruptible io_getevents, so the freezer does not wait for them and they
# are still in flight when the devices' freeze callbacks run
aiowrite /dev/vsglb 8 16 2048 2>$OUT/aiowrite.err &
apid=$!
n=0
while set -- $(cat /sys/block/vsglb/inflight) && [ $(($1 + $2)) -lt 4 ] && [ $n -lt 100 ]; do
	sleep 0.1; n=$((n + 1))
done
inflight=$(($1 + $2))
check "suspend-io-in-flight-at-freeze (vsglb inflight $inflight)" [ "$inflight" -ge 4 ]
echo devices > /sys/power/pm_test
if echo freeze > /sys/power/state 2>/tmp/suspend.err; then
	pass suspend-resume
else
	fail suspend-resume "$(cat /tmp/suspend.err)"
fi
echo none > /sys/power/pm_test
wait $wpid
check suspend-inflight-writes-done [ $? -eq 0 ]
wait $apid
check "suspend-throttled-writes-done-and-verified ($(cat $OUT/aiowrite.err))" [ $? -eq 0 ]
check_eq suspend-throttled-no-io-errors 0 "$(sgl_get vsglb io_errors)"
# the resize reached d0 while the system was suspending: handled by now
grown() { [ "$(cat /sys/block/$D/size)" = 196608 ]; }
wait_for 20 grown
check_eq "suspend-config-change-handled (d0 grown to 96M)" 196608 "$(cat /sys/block/$D/size)"
check suspend-data-after-resume segbuf read /dev/$D 16 8 20480
check suspend-inflight-data segbuf read /dev/$D 64 40 40960
segbuf write /dev/$D 32 8 81920
check suspend-new-io segbuf read /dev/$D 32 8 81920
check_eq suspend-no-io-errors 0 "$(sgl_get $D io_errors)"
check suspend-counters-moved [ "$(sgl_get $D requests_mapped)" -gt "$m0" ]
dmesg | grep -q "PM: suspend exit" && pass suspend-exit-logged || fail suspend-exit-logged "no PM: suspend exit"
if dmesg | grep -q -E 'WARNING:|BUG:|Oops|Call Trace'; then
	fail suspend-kernel-clean "$(dmesg | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace')"
else
	pass suspend-kernel-clean
fi
dmesg | tail -30 >$OUT/dmesg-tail.txt
for v in $ninep; do echo $v > /sys/bus/virtio/drivers/9pnet_virtio/bind; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /mnt/host
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot /mnt/hostroot
cat $OUT/results >>$REAL_OUT/results
cp $OUT/dmesg-tail.txt $REAL_OUT/
R
exec sh /tmp/resume.sh
