# Guest side of the instrumentation cost: driver mode on our disk, the
# same interleaved runs as on the host (scripts/bench/host-cost.sh).
# Its own knobs (BENCH_COST_REPS, BENCH_COST_RUNTIME): the matrix's short
# BENCH_RUNTIME left 2 s runs whose IOPS spread hid the cost.
d=$(sgl_disks | head -1)
MODE=driver DISK=$d FILE=/dev/$d SGLSTAT=sglstat REPS=${BENCH_COST_REPS:-5} RUNTIME=${BENCH_COST_RUNTIME:-5} \
	bash /mnt/host/files/host-cost.sh > "$OUT/guest-cost.txt"
