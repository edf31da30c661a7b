# guest-run-args: --testing --disks 2 --disk-size 64M --smp 2 --timeout 200
# expect-results: 12 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# may-skip: restore-fail/suspend-resume -- the guest kernel has no /sys/power/pm_test (built without CONFIG_PM_DEBUG)
# Issue 26, reset hygiene: a restore from suspend that fails. freeze
# deletes the virtqueues; the testing flavour's test_reset_fail=1 makes the
# next re-initialisation, the first disk's restore, fail (as a device that
# will not come back). That disk is then dead: its I/O fails with EIO
# instead of waiting, nothing is in flight, and when the module unloads its
# virtqueues are not deleted a second time (kprobe on vp_del_vqs: once for
# it, the freeze's; twice for the disk that restored). The other disk
# serves verified I/O after the resume. pm_test=devices runs the devices'
# suspend and resume callbacks without sleeping; virtio_9p has no restore
# callback, so the test goes on from tmpfs with the 9p shares unbound, as
# driver-suspend.sh does.
[ -w /sys/power/pm_test ] || { skip restore-fail/suspend-resume "no /sys/power/pm_test"; exit 0; }
P=/sys/module/virtio_blk_sgl/parameters
[ -w $P/test_reset_fail ] || { fail prereq "no test_reset_fail parameter (testing flavour?)"; exit 0; }
cp /mnt/host/lib/guest-lib.sh /tmp/guest-lib.sh
cat >/tmp/restore-fail.sh <<'R'
. /tmp/guest-lib.sh
REAL_OUT=$OUT
OUT=/tmp/out
mkdir -p $OUT
P=/sys/module/virtio_blk_sgl/parameters
T=/sys/kernel/tracing
set -- $(sgl_disks)
A=$1 B=$2
ninep=$(ls -d /sys/bus/virtio/drivers/9pnet_virtio/virtio* | sed 's|.*/||')
umount /mnt/hostroot || umount -l /mnt/hostroot
umount /mnt/host || umount -l /mnt/host
for v in $ninep; do echo $v > /sys/bus/virtio/drivers/9pnet_virtio/unbind; done
# (placed once 9p is unbound: its devices' deletions are not counted)
delvqs_watch
klines=$(dmesg | wc -l)
echo 1 >$P/test_reset_fail
echo devices > /sys/power/pm_test
if echo freeze > /sys/power/state 2>/tmp/suspend.err; then
	pass restore-fail/suspend-resume
else
	fail restore-fail/suspend-resume "$(cat /tmp/suspend.err)"
fi
echo none > /sys/power/pm_test
dmesg | tail -n +$((klines + 1)) >$OUT/dmesg-resume.txt
check_eq restore-fail/fault-used-up 0 "$(cat $P/test_reset_fail)"
check "restore-fail/one-restore-failed ($(grep -m1 -o 'restore failed.*' $OUT/dmesg-resume.txt))" \
	[ "$(grep -c 'restore failed (-5), disk is dead' $OUT/dmesg-resume.txt)" = 1 ]
# which disk: the one whose device logged it
dead=
for d in $A $B; do
	dev=$(basename "$(readlink -f /sys/block/$d/device)")
	grep -q "$dev: restore failed" $OUT/dmesg-resume.txt && dead=$d
done
live=$A
[ "$dead" = $A ] && live=$B
echo "dead $dead live $live" >$OUT/disks.txt
timeout 30 dd if=/dev/$dead of=/dev/null bs=4k count=1 iflag=direct 2>$OUT/dd-dead.txt
rc=$?
# 6.1 fails the read; 6.12's blk_mark_disk_dead() also sets the capacity
# to 0, so a read there ends at once with no data
sz=$(cat /sys/block/$dead/size)
check "restore-fail/dead-disk-io-fails (rc $rc: $(tail -1 $OUT/dd-dead.txt); size $sz)" \
	[ $rc -ne 124 -a \( $rc -ne 0 -o "$sz" = 0 \) ]
check "restore-fail/dead-disk-reads-nothing" sh -c "! grep -q '^[1-9][0-9]*+[0-9]* records in' $OUT/dd-dead.txt"
check_eq restore-fail/nothing-left-in-flight "0 0" "$(cat /sys/block/$dead/inflight | tr -s ' ' | sed 's/^ //')"
check_eq restore-fail/mapped-equals-completed "$(sgl_get $dead requests_mapped)" "$(sgl_get $dead requests_completed)"
# (fio lives on the unmounted host root: segbuf, 8-segment requests)
if segbuf write /dev/$live 8 64 4096 2>$OUT/segbuf-live.txt && segbuf read /dev/$live 8 64 4096 2>>$OUT/segbuf-live.txt; then
	pass restore-fail/other-disk-serves
else
	fail restore-fail/other-disk-serves "$(head -1 $OUT/segbuf-live.txt)"
fi
check_eq restore-fail/other-disk-no-io-errors 0 "$(sgl_get $live io_errors)"
check restore-fail/module-unloads timeout 60 rmmod virtio_blk_sgl
sleep 1
delvqs_unwatch
grep -o 'vsgl_delvqs:.*vdev=0x[0-9a-f]*' $OUT/del-vqs-trace.txt | sed 's/.*vdev=//' | sort | uniq -c |
	awk '{ print $1 }' | sort -n | tr '\n' ' ' >$OUT/del-vqs.txt
# one device deleted once (the freeze's), the other twice (freeze, unload)
check_eq restore-fail/virtqueues-deleted-once-after-failed-restore "1 2 " "$(cat $OUT/del-vqs.txt)"
bad=$(dmesg | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace|blocked for more than|already-free')
check "restore-fail/kernel-clean${bad:+ ($bad)}" [ -z "$bad" ]
for v in $ninep; do echo $v > /sys/bus/virtio/drivers/9pnet_virtio/bind; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /mnt/host
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hostroot /mnt/hostroot
cat $OUT/results >>$REAL_OUT/results
cp $OUT/*.txt $REAL_OUT/
R
exec sh /tmp/restore-fail.sh
