#!/bin/bash
# make demo: boot the test guest with one virtio-blk disk, load
# virtio_blk_sgl, run a short mixed fio workload under sglstat and print
# its report and the driver's own counters next to it.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
exec "$TOP/tests/vm/guest-run" --disks 1 --disk-size 256M --smp 2 \
	--qemu-args "-global virtio-blk-pci.queue-size=1024" \
	--out "${BUILD:-$TOP/build}/demo" "$TOP/scripts/demo-guest.sh"
