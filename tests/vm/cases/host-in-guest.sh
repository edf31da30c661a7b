# guest-run-args: --stock --disks 1 --disk-size 256M --smp 4 --mem 1024 --timeout 500
# guest-run-kernels: 6.1
# expect-results: 124 (at least; tests/vm/run-cases fails the case with fewer result lines)
# The host layer's stock-mode scripts (tests/host: sglstat-stock, -flush,
# -perf) need an in-tree virtio_blk disk holding /var/tmp, which this
# machine's root happens to be and an NVMe laptop, bare metal or a CI
# runner's is not. Here the suite provides one: Debian's 6.1 with the
# in-tree virtio_blk on vda, an ext4 on it mounted at /var/tmp, and the
# scripts run unchanged by tests/host/run from a chroot of the host's root
# (read-only over 9p, inode numbers remapped), with the guest's /proc, /sys,
# /dev, tracefs and a tmpfs /tmp, on 4 vCPUs (this host has 2: the scripts'
# per-CPU map reads hold on more). tests/host/run runs this case itself on a
# machine without such a disk; the guest layer runs it everywhere, so that
# the path is tested here too.
R=/mnt/hostroot
TOPH=$GUEST_HOST_TOP
[ -n "$TOPH" ] && [ -x "$R$TOPH/tests/host/run" ] || { fail prereq "no checkout at '$TOPH' in the host's root"; exit 1; }
check_eq "more-cpus-than-the-host-has" 4 "$(grep -c '^processor' /proc/cpuinfo)"
check_eq "disk-is-in-tree-virtio_blk" virtio_blk "$(basename "$(readlink -f /sys/block/vda/device/driver)")"
mount -t proc proc $R/proc && mount -t sysfs sysfs $R/sys && mount -t devtmpfs devtmpfs $R/dev &&
	mount -t tmpfs tmpfs $R/tmp && mount -t tracefs tracefs $R/sys/kernel/tracing &&
	mount -t debugfs debugfs $R/sys/kernel/debug && mount -t bpf bpf $R/sys/fs/bpf ||
	{ fail chroot-mounts "cannot mount the guest's filesystems in the chroot"; exit 1; }
# what udev would make: bash's process substitution needs /dev/fd
ln -s /proc/self/fd $R/dev/fd && ln -s /proc/self/fd/0 $R/dev/stdin &&
	ln -s /proc/self/fd/1 $R/dev/stdout && ln -s /proc/self/fd/2 $R/dev/stderr
# ext4 and loop (a disk that is not virtio, for sglstat's refusal) are
# modules, not in the test bed's initramfs: the host's root has the guest
# kernel's modules (its linux-image package)
chroot $R /sbin/modprobe loop >"$OUT/mkfs.txt" 2>&1 && chroot $R /sbin/modprobe ext4 >>"$OUT/mkfs.txt" 2>&1 &&
	chroot $R /sbin/mkfs.ext4 -q -F /dev/vda >>"$OUT/mkfs.txt" 2>&1 && mount -t ext4 /dev/vda $R/var/tmp ||
	{ fail var-tmp-on-vda "mkfs/mount of vda: $(cat "$OUT/mkfs.txt")"; exit 1; }
pass var-tmp-on-vda
# the results come back through run-cases (the guest's OUT); BUILD is the
# host's, read-only here: scratch files go to /tmp
chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root BUILD="$GUEST_HOST_BUILD" "$TOPH/tests/host/run" sglstat-stock.sh sglstat-flush.sh sglstat-perf.sh \
	>"$OUT/host-run.txt" 2>&1
echo "host/run exit $?" >>"$OUT/host-run.txt"
grep -E '^(PASS|FAIL|SKIP): ' "$OUT/host-run.txt" | while IFS= read -r l; do result "$l"; done
grep -q '^SKIP: ' "$OUT/host-run.txt" && fail no-skips "a script skipped in the provided guest: $(grep -m1 '^SKIP: ' "$OUT/host-run.txt")"
umount $R/var/tmp $R/sys/fs/bpf $R/sys/kernel/debug $R/sys/kernel/tracing $R/tmp $R/dev $R/sys $R/proc
exit 0
