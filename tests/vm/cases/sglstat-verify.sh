# guest-run-args: --disks 1 --disk-size 64M --smp 2 --timeout 300
# expect-results: 11 (at least; tests/vm/run-cases fails the case with fewer result lines)
# guest-run-kernels: 6.12
# guest-run-share: yes
# fio crc32c write-then-verify with an inline count other than the default
# (inline_sg_cnt=4), on fragmented memory so that requests chain, while
# sglstat traces in driver mode: the verify must be clean (fio, and the
# driver's io_errors) and sglstat's cumulative counts must equal the
# driver's own counters over the same span (sysfs before/after): requests
# vs requests_mapped, chained, completions, alloc_failures, retries,
# io_errors. On 6.12 only (README: supported kernels): on 6.1 driver-integrity
# and sglstat-driver cover the same with every layout.
D=vsgla
DEV=/dev/$D
INLINE=4

for t in sglstat segbuf jq fio; do
	command -v $t >/dev/null || { skip prereq "$t not on PATH"; exit 0; }
done
sgl_unload 2>/dev/null
sgl_load inline_sg_cnt=$INLINE || { fail load "insmod inline_sg_cnt=$INLINE failed"; exit 0; }
wait_for 10 [ -d /sys/block/$D/sgl ]
check_eq "inline-count" "$INLINE" "$(sgl_get $D inline_sg_cnt)"

# physically scattered buffers (see driver-integrity.sh)
# THP off and memory fragmented for this case only: a shared boot's next
# case must find the THP setting as it was (tests/vm/run-cases checks it)
THP=/sys/kernel/mm/transparent_hugepage/enabled
thp0=$(sed 's/.*\[\(.*\)\].*/\1/' $THP)
trap 'echo "$thp0" > $THP' EXIT
echo never > $THP
segbuf hog 128 &
HOG=$!
sleep 1

counters() {
	for f in requests_mapped requests_chained chain_alloc_failures retries \
		requests_completed io_errors; do
		echo "$f $(sgl_get $D $f)"
	done > "$OUT/$1.sysfs"
}
delta() { echo $(( $(awk -v f=$1 '$1 == f { print $2 }' "$OUT/after.sysfs") - \
		$(awk -v f=$1 '$1 == f { print $2 }' "$OUT/before.sysfs") )); }

counters before
sglstat -j --cumulative --mode driver -d $D > "$OUT/drv.json" 2> "$OUT/drv.err" &
PID=$!
wait_for 60 grep -q '^Tracing' "$OUT/drv.err" || { fail start "$(cat "$OUT/drv.err")"; kill $HOG; exit 0; }
if fio --name=v --filename=$DEV --direct=1 --ioengine=libaio --rw=randwrite --bsrange=4k-256k \
	--size=12M --iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 \
	--output-format=terse >"$OUT/fio.txt" 2>&1; then
	pass "fio-verify"
else
	fail "fio-verify" "$(grep -i -m1 -E 'verify|error|err=' "$OUT/fio.txt")"
fi
kill -INT $PID; wait $PID
counters after
kill $HOG 2>/dev/null; wait $HOG 2>/dev/null

# sglstat's last cumulative report, summed over its ops but "other" (the
# driver does not count GET_ID), in one jq start (~2 s each under TCG)
set -- $(json_last "$OUT/drv.json" | jq -r '.disks[0] as $d |
	[$d.ops | to_entries[] | select(.key != "other") | .value] as $o |
	["requests", "chained", "completions", "alloc_failures", "retries", "io_errors"] |
	map(. as $k | [$o[][$k]] | add) + [$d.inline_cnt] | @tsv')
[ $# = 7 ] || { fail report "no usable sglstat report: $(tail -c 300 "$OUT/drv.json")"; exit 0; }
check_eq "no-io-errors" 0 "$(delta io_errors)"
check "chained-some" [ "$(delta requests_chained)" -gt 0 ]
check_eq "requests-vs-mapped" "$(delta requests_mapped)" "$1"
check_eq "chained-vs-sysfs" "$(delta requests_chained)" "$2"
check_eq "completions-vs-sysfs" "$(delta requests_completed)" "$3"
check_eq "failures-vs-sysfs" "$(delta chain_alloc_failures)" "$4"
check_eq "retries-vs-sysfs" "$(delta retries)" "$5"
check_eq "io-errors-vs-sysfs" "$(delta io_errors)" "$6"
check_eq "inline-in-json" "$INLINE" "$7"
