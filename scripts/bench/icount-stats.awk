# Statistics shared by the icount summaries (awk -f icount-stats.awk -f
# summarize-icount*.awk): V[cell, config, round] holds instructions per I/O
# of one run, maxround the last round seen.
BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", T, " ") }
function tq(df) {	# two-sided 95% Student t quantile
	if (df < 1) return 0
	if (df <= 10) return T[df]
	if (df <= 20) return 2.086 + (20 - df) * 0.0142
	if (df <= 30) return 2.042 + (30 - df) * 0.0044
	return 1.96
}
function med(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# ratio CELL CFG REF: sets M (mean), H (CI half-width), K (rounds)
function ratio(cell, cfg, ref,    r, s, ss, x) {
	K = 0; s = 0; ss = 0
	for (r = 1; r <= maxround; r++) {
		if (!((cell, cfg, r) in V) || !((cell, ref, r) in V)) continue
		x = V[cell, ref, r] / V[cell, cfg, r]
		K++; s += x; ss += x * x
	}
	if (K == 0) { M = ""; H = ""; return 0 }
	M = s / K
	H = K > 1 ? tq(K - 1) * sqrt(nonneg(ss - K * M * M) / (K - 1) / K) : ""
	return K
}
function fmt(cell, cfg, ref) {
	if (!ratio(cell, cfg, ref)) return "-"
	if (H == "") return sprintf("%.3f", M)
	return sprintf("%.3f ± %.3f", M, H)
}
# mci LIST: mean and 95% CI half-width of space-separated values into M, H
# a sum of squares less its mean's, which rounding can take just below 0
function nonneg(x) { return x > 0 ? x : 0 }
function mci(list,    n, a, i, s, ss) {
	n = split(list, a, " ")
	s = 0; ss = 0
	for (i = 1; i <= n; i++) { s += a[i]; ss += a[i] * a[i] }
	M = n ? s / n : ""
	H = n > 1 ? tq(n - 1) * sqrt(nonneg(ss - n * M * M) / (n - 1) / n) : ""
	return n
}
# add_run(): file a run's line (layout rw bs qd config round ipio ...) into
# V, IP (the config's ipio over rounds), cells[1..ncell] and maxround
# and, from its irq= field, X (virtio interrupts per I/O)
function add_run(    cell, i) {
	cell = $1 " " $2 " " $3 " " $4
	if (!(cell in seen)) { seen[cell] = 1; cells[++ncell] = cell }
	V[cell, $5, $6] = $7
	IP[cell, $5] = IP[cell, $5] " " $7
	for (i = 8; i <= NF; i++) if ($i ~ /^irq=/) X[cell, $5, $6] = substr($i, 5) + 0
	if ($6 + 0 > maxround) maxround = $6 + 0
	return cell
}
# adjust_irq(CELL, CFGS): from QD 8 on, a run's instructions per I/O
# move with how many completions each interrupt brought (QEMU's main loop
# batches them as the host's timing falls), the same way in every
# configuration. Fit that line within the cell (one slope for all its
# configurations, each about its own mean) and move every run along it to
# the cell's mean interrupts per I/O (the least extrapolation); IP is
# rebuilt from the moved values. Sets SLOPE[CELL] (instructions an
# interrupt), CORR[CELL] (the pooled correlation of the two), XM/XLO/XHI
# [CELL] (the mean and range of interrupts per I/O) and returns 1, or
# 0 when the interrupts did not vary (nothing to fit).
function adjust_irq(cell, cfgs,    nc, c, j, r, n, sx, sy, sxy, sxx, syy, mx, my, b, x0, nx) {
	nc = split(cfgs, c, " ")
	sxy = 0; sxx = 0; syy = 0; x0 = 0; nx = 0
	for (j = 1; j <= nc; j++)
		for (r = 1; r <= maxround; r++)
			if ((cell, c[j], r) in X && (cell, c[j], r) in V) { x0 += X[cell, c[j], r]; nx++ }
	if (!nx) return 0
	x0 /= nx
	XM[cell] = x0
	for (j = 1; j <= nc; j++) {
		n = 0; sx = 0; sy = 0
		for (r = 1; r <= maxround; r++)
			if ((cell, c[j], r) in X && (cell, c[j], r) in V) { n++; sx += X[cell, c[j], r]; sy += V[cell, c[j], r] }
		if (n < 2) continue
		mx = sx / n; my = sy / n
		for (r = 1; r <= maxround; r++) {
			if (!((cell, c[j], r) in X && (cell, c[j], r) in V)) continue
			sxy += (X[cell, c[j], r] - mx) * (V[cell, c[j], r] - my)
			sxx += (X[cell, c[j], r] - mx) ^ 2
			syy += (V[cell, c[j], r] - my) ^ 2
			if (!(cell in XLO) || X[cell, c[j], r] < XLO[cell]) XLO[cell] = X[cell, c[j], r]
			if (!(cell in XHI) || X[cell, c[j], r] > XHI[cell]) XHI[cell] = X[cell, c[j], r]
		}
	}
	if (sxx < 1e-6) return 0
	b = sxy / sxx
	SLOPE[cell] = b
	if (syy > 0) CORR[cell] = sxy / sqrt(sxx * syy)
	for (j = 1; j <= nc; j++) {
		IP[cell, c[j]] = ""
		for (r = 1; r <= maxround; r++) {
			if (!((cell, c[j], r) in V)) continue
			if ((cell, c[j], r) in X) V[cell, c[j], r] -= b * (X[cell, c[j], r] - x0)
			IP[cell, c[j]] = IP[cell, c[j]] " " V[cell, c[j], r]
		}
	}
	return 1
}
