# guest-run-args: --disks 2 --disk-size 16M --smp 2 --timeout 180 --append "slub_debug=P"
# expect-results: 9 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.1 6.12
# Defect 1 of issue 14: a descriptor held open across hot-unplug.  vd1 is
# opened by holdopen, removed through the QEMU monitor (device_del), and
# plugged again while the old descriptor is still open; then the old
# descriptor is used: HDIO_GETGEO must answer ENXIO (not the freed device's
# geometry, nor slab poison 0x6b: slub_debug=P poisons freed objects), read
# must fail, close must succeed.  The disk plugged again must get another
# name (the old index lives while its gendisk does) and serve verified I/O.
command -v holdopen >/dev/null || { fail prereq "holdopen helper not built (make guest-tools)"; exit 0; }
gone() { [ ! -e "/sys/block/$1" ]; }
serial_present() { [ -n "$(disk_of_serial "$1")" ]; }

B=$(disk_of_serial sgl-disk1)
[ -n "$B" ] || { fail prereq "no sgl-disk1: $(sgl_disks | tr '\n' ' ')"; exit 0; }
hmp "info block" >"$OUT/info-block.txt"
IMG1=$(sed -n 's/^d1 ([^)]*): \([^ ]*\) .*/\1/p' "$OUT/info-block.txt" | head -1)
segbuf geo /dev/$B >"$OUT/geo-before.txt" 2>&1
# the production module, loaded at boot (its probe lines are in the log),
# does not say it is the testing build (driver-hostile.sh: the testing one does)
check production-build-not-warned sh -c 'dmesg | grep -q "virtio_blk_sgl virtio.*: vsgl" &&
	! dmesg | grep -q "testing build (VSGL_TESTING=1)"'
dmesg -c >/dev/null

holdopen /dev/$B /tmp/go >"$OUT/holdopen.txt" 2>&1 &
H=$!
wait_for 30 grep -q '^opened' "$OUT/holdopen.txt" || fail holdopen-opened "$(cat "$OUT/holdopen.txt")"
hmp "device_del vd1" >"$OUT/hmp-del.txt"
check unplug/disk-gone wait_for 60 gone $B

# plug it again while the old gendisk is still open
rep=$(hmp "device_add virtio-blk-pci,drive=d1,id=vd1,serial=sgl-disk1")
echo "$rep" >"$OUT/hmp-add.txt"
if [ -n "$rep" ] && [ -n "$IMG1" ]; then
	hmp "drive_add 0 if=none,id=d1r,file=$IMG1,format=raw,cache=writeback" >>"$OUT/hmp-add.txt"
	hmp "device_add virtio-blk-pci,drive=d1r,id=vd1,serial=sgl-disk1" >>"$OUT/hmp-add.txt"
fi
if wait_for 60 serial_present sgl-disk1; then
	B2=$(disk_of_serial sgl-disk1)
	check "replug/new-name-while-old-open ($B -> $B2)" [ "$B2" != "$B" ]
	if fio --name=replug --filename=/dev/$B2 --direct=1 --ioengine=libaio --rw=randwrite \
		--bsrange=4k-64k --size=1M --iodepth=4 --verify=crc32c --verify_fatal=1 \
		--output-format=terse >"$OUT/fio-replug.txt" 2>&1; then
		pass replug/verify
	else
		fail replug/verify "$(grep -m1 -i error "$OUT/fio-replug.txt")"
	fi
else
	fail replug/disk-back "no sgl-disk1 after device_add: $(tr '\n' ' ' <"$OUT/hmp-add.txt")"
fi

touch /tmp/go
wait_for 30 sh -c "! kill -0 $H 2>/dev/null"
wait $H
check_eq holdopen-exit 0 $?
cat "$OUT/holdopen.txt"
field() { awk -v k="$1" -v n="$2" '$1 == k { print $n }' "$OUT/holdopen.txt"; }
check_eq "old-fd/getgeo-enxio ($(grep ^getgeo "$OUT/holdopen.txt"))" ENXIO "$(field getgeo 3)"
check "old-fd/read-returns-no-data ($(grep ^read "$OUT/holdopen.txt"))" [ "$(field read 2)" -le 0 ]
check_eq old-fd/close-ok 0 "$(field close 2)"
if dmesg | grep -q -E 'WARNING:|BUG:|Oops|Call Trace|Poison overwritten'; then
	fail kernel-clean "$(dmesg | grep -m1 -E 'WARNING:|BUG:|Oops|Call Trace|Poison overwritten')"
else
	pass kernel-clean
fi
