# Guest side of scripts/bench/driver-insns.sh: one driver, one scheduler, one
# block size per boot, while QEMU logs every translation block it executes
# in the module area (-d exec,nochain,in_asm). Writes the loaded modules'
# .text addresses and the disk's I/O count, which the host side needs to turn
# the log into instructions per I/O and function.
set -u
CFG=${BENCH_DI_CFG:?} SCHED=${BENCH_DI_SCHED:?} BS=${BENCH_DI_BS:?}
N=${BENCH_DI_N:-2000}
echo never >/sys/kernel/mm/transparent_hugepage/enabled
segbuf hog 128 & sleep 1
export IOBENCH_HUGE=0
SPIN=/tmp/iobench.spin
iobench spin $SPIN &
wait_for 10 test -s $SPIN || { echo "driver-insns: iobench spin did not start"; exit 1; }
case $CFG in
inline2) sgl_load inline_sg_cnt=2 ;;
intree) intree_load ;;
*) echo "driver-insns: unknown configuration $CFG"; exit 1 ;;
esac || { echo "driver-insns: cannot load $CFG"; exit 1; }
wait_for 10 sh -c 'ls /sys/block | grep -q "^vsgl\|^vd"' || { echo "driver-insns: no disk"; exit 1; }
d=$(ls /sys/block | grep -m1 '^vsgl\|^vd')
echo "$SCHED" >"/sys/block/$d/queue/scheduler" || { echo "driver-insns: cannot set scheduler $SCHED"; exit 1; }
iobench run "/dev/$d" read "$BS" 8 "$N" $SPIN >"$OUT/run.txt" || { echo "driver-insns: iobench failed"; exit 1; }
# each module's .text address and its core size (/proc/modules): code past
# it (BPF JIT images share the module area) is no module's
for t in /sys/module/*/sections/.text; do
	m=${t#/sys/module/}
	m=${m%%/*}
	echo "$(cat "$t") $m $(awk -v m="$m" '$1 == m { print $2 }' /proc/modules)"
done >"$OUT/text.txt"
uname -r >"$OUT/kver.txt"
echo "$d $(blk_ios "$d")" >"$OUT/ios.txt"
