#!/usr/bin/awk -f
# Upstream-style table from guest-matrix.sh output: per (rw, bs, iodepth,
# jobs) the median IOPS of each configuration with its min..max over the
# rounds, and the ratios to prealloc. Also writes a gnuplot data file when
# -v dat=FILE is given.
function median(arr, n,    i, j, t, tmp) {
	for (i = 1; i <= n; i++) tmp[i] = arr[i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && tmp[j-1] > tmp[j]; j--) { t = tmp[j]; tmp[j] = tmp[j-1]; tmp[j-1] = t }
	return n % 2 ? tmp[(n+1)/2] : (tmp[n/2] + tmp[n/2+1]) / 2
}
{
	key = $1 " " $2 " " $3 " " $4
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
	c = $5; cnt[key, c]++; v[key, c, cnt[key, c]] = $7
	if (!(key SUBSEP c in mn) || $7 < mn[key, c]) mn[key, c] = $7
	if (!(key SUBSEP c in mx) || $7 > mx[key, c]) mx[key, c] = $7
}
END {
	ncfg = split("prealloc inline2 tuned", cfg, " ")
	print "| rw | bs | iodepth | jobs | prealloc IOPS | inline2 IOPS | ratio | tuned IOPS | ratio |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (k = 1; k <= nk; k++) {
		key = keys[k]
		for (i = 1; i <= ncfg; i++) {
			c = cfg[i]; n = cnt[key, c]
			for (j = 1; j <= n; j++) a[j] = v[key, c, j]
			med[c] = n ? median(a, n) : 0
		}
		split(key, f, " ")
		printf "| %s | %s | %s | %s | %.0f (%.0f..%.0f) | %.0f (%.0f..%.0f) | %.3f | %.0f (%.0f..%.0f) | %.3f |\n", \
			f[1], f[2], f[3], f[4], \
			med["prealloc"], mn[key, "prealloc"], mx[key, "prealloc"], \
			med["inline2"], mn[key, "inline2"], mx[key, "inline2"], \
			med["prealloc"] ? med["inline2"] / med["prealloc"] : 0, \
			med["tuned"], mn[key, "tuned"], mx[key, "tuned"], \
			med["prealloc"] ? med["tuned"] / med["prealloc"] : 0
		if (dat != "")
			printf "\"%s %s qd%s x%s\" %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", f[1], f[2], f[3], f[4], \
				med["prealloc"], mn[key, "prealloc"], mx[key, "prealloc"], \
				med["inline2"], mn[key, "inline2"], mx[key, "inline2"], \
				med["tuned"], mn[key, "tuned"], mx[key, "tuned"] > dat
	}
}
