# Guest side of the instrumentation cost: driver mode on our disk, the
# same interleaved runs as on the host (scripts/bench/host-cost.sh).
. /mnt/host/files/bench.env 2>/dev/null
d=$(sgl_disks | head -1)
MODE=driver DISK=$d FILE=/dev/$d SGLSTAT=sglstat REPS=${BENCH_REPS:-3} RUNTIME=${BENCH_RUNTIME:-5} \
	bash /mnt/host/files/host-cost.sh > "$OUT/guest-cost.txt"
