#!/bin/bash
# make bench part driver-insns: the instructions each driver's own code
# executes per I/O, function by function: virtio_blk_sgl (inline 2) and the
# in-tree virtio_blk on the same null-co disk, 8 random reads in flight,
# 4 KiB and 64 KiB, with the default scheduler (mq-deadline) and none. QEMU
# logs every translation block the guest executes in the module area
# (-d exec,nochain,in_asm); tb-insns.pl multiplies each block's executions
# by its instructions and places it in a function of the .ko. Exact counts,
# not samples: no interval needed. Usage: driver-insns.sh OUT-DIR > TABLE.md
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
OUTD=${1:?usage: driver-insns.sh OUT-DIR}
KVER=${KVER:-$("$TOP/scripts/kernel-6.1")}
OURS=$BUILD/driver/$KVER/virtio_blk_sgl.ko
INTREE=/usr/lib/modules/$KVER/kernel/drivers/block/virtio_blk.ko
for f in "$OURS" "$INTREE"; do
	[ -f "$f" ] || { echo "driver-insns: no $f: run make (and make deps for the guest kernel)" >&2; exit 1; }
done
mkdir -p "$OUTD"
: >"$OUTD/insns.txt"
for sched in mq-deadline none; do
	for bs in 4096 65536; do
		for cfg in inline2 intree; do
			o=$OUTD/$cfg-$sched-$bs
			BENCH_DI_CFG=$cfg BENCH_DI_SCHED=$sched BENCH_DI_BS=$bs \
				"$TOP/tests/vm/guest-run" --quiet --kernel "$KVER" --disks 0 --smp 1 --mem 1024 \
				--no-module --timeout 900 --out "$o" \
				--qemu-args "-icount shift=0,sleep=off -d exec,nochain,in_asm -dfilter 0xffffffffa0000000..0xffffffffff000000 -D $o.log -drive driver=null-co,id=n0,if=none,size=1G -device virtio-blk-pci,drive=n0,serial=null0" \
				"$TOP/scripts/bench/driver-insns-guest.sh" >&2
			ios=$(awk '{ print $2 }' "$o/ios.txt")
			case $cfg in
			inline2) mod=virtio_blk_sgl ko=$OURS ;;
			intree) mod=virtio_blk ko=$INTREE ;;
			esac
			perl "$TOP/scripts/bench/tb-insns.pl" "$o.log" "$o/text.txt" "$mod" "$ko" "$ios" |
				sed "s/^/$cfg $sched $bs /" >>"$OUTD/insns.txt"
			rm -f "$o.log"
		done
	done
done
awk -f "$TOP/scripts/bench/summarize-driver-insns.awk" "$OUTD/insns.txt"
