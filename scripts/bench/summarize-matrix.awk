#!/usr/bin/awk -f
# Upstream-style table from guest-matrix.sh output: per (rw, bs, iodepth,
# jobs) the median IOPS of each configuration with its min..max over the
# rounds, the ratios to prealloc, and the median share of requests that
# chained (column 8, from the driver's sysfs counters). Also writes a gnuplot data file when
# -v dat=FILE is given.
function median(arr, n,    i, j, t, tmp) {
	for (i = 1; i <= n; i++) tmp[i] = arr[i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && tmp[j-1] > tmp[j]; j--) { t = tmp[j]; tmp[j] = tmp[j-1]; tmp[j-1] = t }
	return n % 2 ? tmp[(n+1)/2] : (tmp[n/2] + tmp[n/2+1]) / 2
}
{
	key = $1 " " $2 " " $3 " " $4
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
	c = $5; cnt[key, c]++; v[key, c, cnt[key, c]] = $7; ch[key, c, cnt[key, c]] = $8
	if (!(key SUBSEP c in mn) || $7 < mn[key, c]) mn[key, c] = $7
	if (!(key SUBSEP c in mx) || $7 > mx[key, c]) mx[key, c] = $7
}
END {
	ncfg = split("prealloc inline2 tuned", cfg, " ")
	print "| rw | bs | iodepth | jobs | prealloc IOPS | inline2 IOPS | ratio | inline2 chained | tuned IOPS | ratio | tuned chained |"
	print "|---|---|---|---|---|---|---|---|---|---|---|"
	for (k = 1; k <= nk; k++) {
		key = keys[k]
		for (i = 1; i <= ncfg; i++) {
			c = cfg[i]; n = cnt[key, c]
			for (j = 1; j <= n; j++) a[j] = v[key, c, j]
			med[c] = n ? median(a, n) : 0
			for (j = 1; j <= n; j++) a[j] = ch[key, c, j]
			chm[c] = n && ch[key, c, 1] != "" ? sprintf("%.1f%%", median(a, n)) : "-"
		}
		split(key, f, " ")
		printf "| %s | %s | %s | %s | %.0f (%.0f..%.0f) | %.0f (%.0f..%.0f) | %.3f | %s | %.0f (%.0f..%.0f) | %.3f | %s |\n", \
			f[1], f[2], f[3], f[4], \
			med["prealloc"], mn[key, "prealloc"], mx[key, "prealloc"], \
			med["inline2"], mn[key, "inline2"], mx[key, "inline2"], \
			med["prealloc"] ? med["inline2"] / med["prealloc"] : 0, chm["inline2"], \
			med["tuned"], mn[key, "tuned"], mx[key, "tuned"], \
			med["prealloc"] ? med["tuned"] / med["prealloc"] : 0, chm["tuned"]
		if (med["prealloc"] > 0 && med["inline2"] > 0 && med["tuned"] > 0) {
			cells++
			lsum2 += log(med["inline2"] / med["prealloc"]); lsumt += log(med["tuned"] / med["prealloc"])
			if (med["inline2"] < 0.95 * med["prealloc"]) slow2++
			if (med["tuned"] < 0.95 * med["prealloc"]) slowt++
		}
		if (dat != "")
			printf "\"%s %s qd%s x%s\" %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", f[1], f[2], f[3], f[4], \
				med["prealloc"], mn[key, "prealloc"], mx[key, "prealloc"], \
				med["inline2"], mn[key, "inline2"], mx[key, "inline2"], \
				med["tuned"], mn[key, "tuned"], mx[key, "tuned"] > dat
	}
	if (cells)
		printf "\nOver the %d cells: geometric mean of the IOPS ratio to prealloc %.3f for inline 2, %.3f for tuned; cells more than 5%% below prealloc: %d for inline 2, %d for tuned.\n", \
			cells, exp(lsum2 / cells), exp(lsumt / cells), slow2 + 0, slowt + 0
}
