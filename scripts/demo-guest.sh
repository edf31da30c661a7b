# Runs inside the demo guest (see scripts/demo.sh). Prints sglstat's report
# of a short mixed fio run, then checks its figures against counters sglstat
# does not compute: the block layer's completions (/sys/block/DISK/stat) and
# the driver's own chained count. Any mismatch, or a failing sglstat, makes
# the demo (and so `make demo`) fail.
set -u
disk=$(sgl_disks | head -1)
[ -n "$disk" ] || { echo "demo: virtio_blk_sgl bound no disk"; exit 1; }
inline=$(sgl_get "$disk" inline_sg_cnt)
echo "=== virtio_blk_sgl bound /dev/$disk: inline_sg_cnt=$inline," \
	"max_segments=$(sgl_get "$disk" max_segments), queues=$(sgl_get "$disk" nr_hw_queues)," \
	"depth=$(sgl_get "$disk" queue_depth)"
command -v sglstat >/dev/null || { echo "demo: sglstat is not on PATH (run 'make')"; exit 1; }

# A freshly booted guest hands fio physically contiguous buffers (THP, or
# pages that happen to be adjacent), which the block layer merges into one
# or two segments: then nothing chains and the demo shows nothing.  A host
# that has run for a while has fragmented memory; make the guest look like
# one: no THP, and segbuf hog keeps every other page of 128 MiB.
echo never >/sys/kernel/mm/transparent_hugepage/enabled
command -v segbuf >/dev/null || { echo "demo: segbuf is not on PATH (run 'make guest-tools')"; exit 1; }
segbuf hog 128 >/tmp/hog.txt &
wait_for 60 grep -q '^segbuf: holding' /tmp/hog.txt ||
	{ echo "demo: segbuf hog did not fragment memory:"; cat /tmp/hog.txt; exit 1; }

sglstat --mode driver >/tmp/report.txt 2>/tmp/sglstat.err &
pid=$!
wait_for 20 grep -q '^Tracing' /tmp/sglstat.err ||
	{ echo "demo: sglstat did not start:"; cat /tmp/sglstat.err; exit 1; }
ios0=$(blk_ios "$disk") chained0=$(sgl_get "$disk" requests_chained)
fio --name=mix --filename="/dev/$disk" --direct=1 --ioengine=libaio --size=64M \
	--rw=randrw --bssplit=4k/40:16k/20:64k/20:256k/20 --iodepth=16 \
	--time_based --runtime=8 --output-format=terse >/dev/null ||
	{ echo "demo: fio failed"; exit 1; }
ios1=$(blk_ios "$disk") chained1=$(sgl_get "$disk" requests_chained)
kill -INT $pid
wait $pid
rc=$?
echo "=== sglstat (driver mode, over the fio run)"
cat /tmp/sglstat.err /tmp/report.txt
[ $rc = 0 ] || { echo "demo: sglstat exited $rc"; exit 1; }
echo "=== sglstat memory"
sglstat memory || { echo "demo: sglstat memory exited $?"; exit 1; }
echo "=== /sys/block/$disk/sgl"
for f in /sys/block/$disk/sgl/*; do printf '%-24s %s\n' "${f##*/}" "$(cat "$f")"; done

# From the text report: requests per segment count (both ops), requests above
# the inline count, the chained column of the total line, latency samples.
set -- $(awk -v inline="$inline" '
	/: segments per request/ { seg = 1; next }
	/: I\/O latency/ { seg = 0 }
	seg && $2 == ":" && $1 ~ /^[0-9]+$/ { reqs += $3; if ($1 + 0 > inline) above += $3 }
	$1 == "total" { chained = $4 }
	/^  latency: n=/ { sub(/.*n=/, ""); lat += $1 }
	END { print reqs + 0, above + 0, chained + 0, lat + 0 }' /tmp/report.txt)
reqs=$1 above=$2 chained=$3 lat=$4
want_ios=$((ios1 - ios0)) want_chained=$((chained1 - chained0))
echo "=== check: sglstat vs the block layer and the driver"
bad=0
check() { # what sglstat oracle
	if [ "$2" = "$3" ] && [ "$2" -gt 0 ]; then echo "  ok   $1: $2"
	else echo "  FAIL $1: sglstat $2, expected $3"; bad=1; fi
}
check "requests (segment table) = /sys/block/$disk/stat completions" "$reqs" "$want_ios"
check "latency samples = requests completed" "$lat" "$want_ios"
check "chained (total line) = sgl/requests_chained" "$chained" "$want_chained"
check "requests above inline $inline segments = chained" "$above" "$want_chained"
[ $bad = 0 ] || { echo "demo: sglstat's figures disagree with the kernel's"; exit 1; }
echo "demo check: ok"
