# Guest side of the instrumentation cost: driver mode on our disk, the
# same interleaved runs as on the host (scripts/bench/host-cost.sh).
d=$(sgl_disks | head -1)
MODE=driver DISK=$d FILE=/dev/$d SGLSTAT=sglstat REPS=${BENCH_REPS:-3} RUNTIME=${BENCH_RUNTIME:-5} \
	bash /mnt/host/files/host-cost.sh > "$OUT/guest-cost.txt"
