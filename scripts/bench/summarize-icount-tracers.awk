# What an attached tracer costs per I/O (scripts/bench/run.sh, part
# icount-tracers): icount.txt lines of configurations inline2 (detached),
# sglstat (sglstat --mode driver attached: one event per I/O),
# sglstat-setup (the same with --setup-time: setup and complete events) and
# biolatency (libbpf-tools' biolatency attached), all on the driver with
# inline 2:
#   layout rw bs qd config round ipio wait_share chained_pct ... irq=IRQS
# awk -f icount-stats.awk -f summarize-icount-tracers.awk icount.txt
# Per cell and tracer: median instructions per I/O; attached / detached as
# IOPS would compare them (detached ipio / attached ipio, per round); the
# cost (attached - detached instructions per I/O) and the cost / biolatency's,
# per round; means with their 95% CI over rounds. The *-stats configurations
# (the same tracer with kernel.bpf_stats_enabled=1) carry a 10th field, the
# instructions per I/O inside the tracer's BPF programs: of the cost, what
# the programs execute; the rest is the tracepoints' dispatch (and, for
# sglstat-setup, the driver's setup timestamps).
$7 == "stall" { stalls++; next }
NF >= 10 && $5 ~ /-stats$/ { c = $1 " " $2 " " $3 " " $4; sub(/-stats$/, "", $5); PR[c, $5] = PR[c, $5] " " $10; next }
NF >= 9 { add_run() }
function costs(cell, cfg,    r, l) {	# per-round attached - detached
	l = ""
	for (r = 1; r <= maxround; r++)
		if ((cell, cfg, r) in V && (cell, "inline2", r) in V) l = l " " (V[cell, cfg, r] - V[cell, "inline2", r])
	return l
}
function cost_ratio(cell, cfg,    r, l, b) {	# per-round cfg's cost / biolatency's cost
	l = ""
	for (r = 1; r <= maxround; r++) {
		if (!((cell, cfg, r) in V && (cell, "biolatency", r) in V && (cell, "inline2", r) in V)) continue
		b = V[cell, "biolatency", r] - V[cell, "inline2", r]
		if (b > 0) l = l " " ((V[cell, cfg, r] - V[cell, "inline2", r]) / b)
	}
	return l
}
function pm(list, f) {
	if (!mci(list)) return "-"
	return H == "" ? sprintf(f, M) : sprintf(f " ± " f, M, H)
}
END {
	# compared at each cell's mean interrupt rate, as the matrix is
	for (i = 1; i <= ncell; i++) adjust_irq(cells[i], "inline2 sglstat sglstat-setup biolatency")
	split("sglstat sglstat-setup biolatency", tr, " ")
	name["sglstat"] = "sglstat (default: complete event only)"
	name["sglstat-setup"] = "sglstat --setup-time (setup + complete)"
	name["biolatency"] = "biolatency"
	print "| layout | rw | bs | QD | tracer | instructions/I/O detached | attached | attached / detached | cost (instructions/I/O) | of it, in its BPF programs | cost / biolatency's |"
	print "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ncell; i++) {
		c = cells[i]
		split(c, f, " ")
		for (t = 1; t <= 3; t++) {
			cfg = tr[t]
			if (!((c, cfg) in IP)) continue
			printf "| %s | %s | %s | %s | %s | %.0f | %.0f | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], name[cfg],
				med(IP[c, "inline2"]), med(IP[c, cfg]), fmt(c, cfg, "inline2"),
				pm(costs(c, cfg), "%.0f"), pm(PR[c, cfg], "%.0f"),
				cfg == "biolatency" ? "1" : pm(cost_ratio(c, cfg), "%.2f")
		}
	}
	print ""
	printf "Goals (issue 18): sglstat attached >= 0.98x detached, its cost <= 0.5x biolatency's. %d rounds%s.\n",
		maxround, stalls ? sprintf("; %d runs stalled (not counted)", stalls) : ", no stalled run"
}
