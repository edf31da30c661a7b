# Sourced by tests/vm/guest-run and tests/fleet/run.
#
# tcg_tsc_arg: "tsc_early_khz=N" for a TCG guest's kernel command line, N
# the host's TSC rate, which a TCG guest's TSC runs at (QEMU reads the
# host's TSC for it, unless -icount); empty when the rate is not known.
# Under load a guest's own calibration can go wrong: a 6.12 guest in a
# clean-clone CI run measured "PIT calibration deviates from HPET: 101267
# 2598842", took the PIT's 101 MHz, and its clock ran 25 times too fast:
# ACPI's _PRT hit its 30 s loop timeout, the NIC got no interrupt line, and
# that host never came on the network.
tcg_tsc_arg() {
	local mhz
	grep -q '^flags.* constant_tsc' /proc/cpuinfo || return 0
	# the host kernel's own calibration, when the log is readable
	mhz=$(dmesg 2>/dev/null | sed -n 's/.*Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p;
		s/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' | tail -1)
	# else "cpu MHz", which is the TSC rate only without frequency scaling
	[ -n "$mhz" ] || [ -d /sys/devices/system/cpu/cpu0/cpufreq ] ||
		mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	[ -n "$mhz" ] && awk -v m="$mhz" 'BEGIN { if (m > 100) printf "tsc_early_khz=%d\n", m * 1000 + 0.5 }'
	return 0
}
