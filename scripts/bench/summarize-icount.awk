# Summarize scripts/bench/icount-guest.sh's icount.txt:
#   layout rw bs qd config round ipio wait_share chained_pct ... irq=IRQS
# awk -v dat=PREFIX -f icount-stats.awk -f summarize-icount.awk icount.txt > icount.md
# Per cell and configuration: instructions per I/O (median over rounds), and
# the ratio to prealloc and to the in-tree driver as IOPS would show it
# (reference ipio / configuration ipio, so > 1 is cheaper), computed per
# round (the configurations of one round ran on the same guest) and given
# as mean with its 95% confidence interval (Student's t over rounds).
# Writes PREFIX.LAYOUT.RW.dat for the plot: cell label, then mean, low,
# high of each ratio to prealloc (inline2, tuned, intree).
BEGIN {
	ncfg = split("prealloc inline2 tuned intree", CFG, " ")
}
{ loads[$1, $5, $6] = 1 }
$7 == "stall" { stalls++; stall_list = stall_list sprintf("\n- %s %s %s QD %s, %s, round %s", $1, $2, $3, $4, $5, $6); next }
NF >= 9 {
	nrun++
	cell = add_run()
	SP[cell, $5] = SP[cell, $5] " " $8
	if ($9 != "-") CH[cell, $5] = CH[cell, $5] " " $9
	present[$5] = 1
}
END {
	split("inline2/prealloc tuned/prealloc intree/prealloc inline2/intree tuned/intree", keys, " ")
	# the ratios as measured, before the interrupt adjustment
	for (i = 1; i <= ncell; i++)
		for (k = 1; k <= 5; k++) {
			split(keys[k], kc, "/")
			if (!ratio(cells[i], kc[1], kc[2])) continue
			rawn[keys[k]]++; rawgm[keys[k]] += log(M)
			if (H != "" && H / M < 0.01) rawnarrow[keys[k]]++
		}
	for (i = 1; i <= ncell; i++) {
		c = cells[i]
		split(c, f, " ")
		for (j = 1; j <= ncfg; j++)
			for (r = 1; r <= maxround; r++)
				if (f[4] + 0 >= 8 && (c, CFG[j], r) in X) { xs[CFG[j]] += X[c, CFG[j], r]; xn[CFG[j]]++ }
		adjust_irq(c, "prealloc inline2 tuned intree")
	}
	print "| layout | rw | bs | QD | instructions/I/O prealloc | inline 2 | tuned | in-tree | inline 2 / prealloc | tuned / prealloc | in-tree / prealloc | inline 2 / in-tree | chained inline 2 | chained tuned | wait share | interrupts/I/O: mean (range) | instructions an interrupt (fit) |"
	print "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ncell; i++) {
		c = cells[i]
		split(c, f, " ")
		line = "| " f[1] " | " f[2] " | " f[3] " | " f[4]
		for (j = 1; j <= ncfg; j++)
			line = line " | " (IP[c, CFG[j]] != "" ? sprintf("%.0f", med(IP[c, CFG[j]])) : "-")
		line = line " | " fmt(c, "inline2", "prealloc") " | " fmt(c, "tuned", "prealloc") " | " fmt(c, "intree", "prealloc") " | " fmt(c, "inline2", "intree")
		line = line " | " (CH[c, "inline2"] != "" ? sprintf("%.1f%%", med(CH[c, "inline2"])) : "-")
		line = line " | " (CH[c, "tuned"] != "" ? sprintf("%.1f%%", med(CH[c, "tuned"])) : "-")
		line = line " | " (SP[c, "prealloc"] != "" ? sprintf("%.2f", med(SP[c, "prealloc"])) : "-")
		line = line " | " (c in XM ? sprintf("%.2f (%.2f-%.2f)", XM[c], XLO[c], XHI[c]) : "-")
		line = line " | " (c in SLOPE ? sprintf("%.0f", SLOPE[c]) : "-") " |"
		print line
		# goals and interval widths
		for (j = 2; j <= ncfg; j++) {
			for (g = 1; g <= 2; g++) {
				ref = g == 1 ? "prealloc" : "intree"
				if (!ratio(c, CFG[j], ref) || CFG[j] == ref) continue
				key = CFG[j] "/" ref
				n[key]++
				if (H != "" && H > wmax[key]) wmax[key] = H
				if (H != "" && H / M < 0.01) narrow[key]++
				else { wide[key, f[4]]++; qds[f[4]] = 1 }
				if (!(key in lo) || M < lo[key]) { lo[key] = M; locell[key] = c }
				if (!(key in hi) || M > hi[key]) hi[key] = M
				gm[key] += log(M)
				if (M >= 0.99) ge099[key]++
				if (M >= 1.00) ge100[key]++
				if (M + (H == "" ? 0 : H) >= 1.00) reach100[key]++
			}
		}
		# plot data, one file per layout and rw
		pf = dat "." f[1] "." f[2] ".dat"
		if (!(pf in opened)) { opened[pf] = 1; printf "" > pf }
		pl = f[3] "/QD" f[4]
		for (j = 2; j <= ncfg; j++) {
			if (ratio(c, CFG[j], "prealloc")) pl = pl sprintf(" %.5f %.5f %.5f", M, M - (H == "" ? 0 : H), M + (H == "" ? 0 : H))
			else pl = pl " - - -"
		}
		print pl > pf
	}
	print ""
	print "| ratio (IOPS-equivalent) | cells | geometric mean | lowest (cell) | highest | cells >= 0.99 | cells >= 1.00 | cells whose 95% CI reaches 1.00 | cells with 95% CI < 1% | widest CI half-width | cells with CI >= 1%, by QD | without the interrupt adjustment: geometric mean, cells with CI < 1% |"
	print "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|"
	nq = 0
	for (q in qds) qv[++nq] = q + 0
	for (a = 1; a <= nq; a++) for (b = a + 1; b <= nq; b++) if (qv[b] < qv[a]) { t = qv[a]; qv[a] = qv[b]; qv[b] = t }
	for (k = 1; k <= 5; k++) {
		key = keys[k]
		if (!n[key]) continue
		w = ""
		for (a = 1; a <= nq; a++) if ((key, qv[a]) in wide) w = w (w == "" ? "" : ", ") "QD " qv[a] ": " wide[key, qv[a]]
		printf "| %s | %d | %.3f | %.3f (%s) | %.3f | %d | %d | %d | %d | %.4f | %s | %.3f, %d |\n", key, n[key], exp(gm[key] / n[key]),
			lo[key], locell[key], hi[key], ge099[key], ge100[key], reach100[key], narrow[key], wmax[key], w == "" ? "none" : w,
			rawn[key] ? exp(rawgm[key] / rawn[key]) : 0, rawnarrow[key]
	}
	print ""
	xl = ""
	for (j = 1; j <= ncfg; j++) if (xn[CFG[j]]) xl = xl sprintf("%s%s %.3f", xl == "" ? "" : ", ", CFG[j], xs[CFG[j]] / xn[CFG[j]])
	if (xl != "") { printf "Interrupts per I/O from QD 8 on, mean over cells and rounds, per configuration: %s.\n\n", xl }
	nr = 0; rl = ""
	for (i = 1; i <= ncell; i++) if (cells[i] in CORR) { nr++; rl = rl " " CORR[cells[i]]; if (nr == 1 || CORR[cells[i]] < rlo) rlo = CORR[cells[i]] }
	if (nr) printf "Within a cell and configuration, a run's instructions per I/O and its interrupts per I/O correlate with r = %.2f (median; lowest %.2f) over the %d cells whose interrupt rate varied.\n\n", med(rl), rlo, nr
	for (k in loads) nload++
	printf "Rounds: %d. Measurements (cell, configuration, round): %d, over %d driver loads and unloads (one per layout, configuration and round). Stalled runs: %d.%s\n", maxround, nrun + stalls, nload, stalls, stall_list
}
