#!/usr/bin/awk -f
# Summarize host-cost.sh / guest-cost output: medians (and min..max) per tool
# of IOPS, BPF ns per event and BPF ns per I/O, then the ratios the targets
# name. Input lines: RUN tool rep iops ios run_time_ns run_cnt nprogs
function median(arr, n,    i, j, t, tmp) {
	for (i = 1; i <= n; i++) tmp[i] = arr[i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && tmp[j-1] > tmp[j]; j--) { t = tmp[j]; tmp[j] = tmp[j-1]; tmp[j-1] = t }
	return n % 2 ? tmp[(n+1)/2] : (tmp[n/2] + tmp[n/2+1]) / 2
}
function minv(arr, n,   i, m) { m = arr[1]; for (i = 2; i <= n; i++) if (arr[i] < m) m = arr[i]; return m }
function maxv(arr, n,   i, m) { m = arr[1]; for (i = 2; i <= n; i++) if (arr[i] > m) m = arr[i]; return m }
/^#/ { print; next }
$1 == "RUN" {
	t = $2; n[t]++; k = n[t]
	if (!(t in seen)) { seen[t] = 1; order[++nt] = t }
	iops[t, k] = $4
	nsio[t, k] = $5 ? $6 / $5 : 0
	nsev[t, k] = $7 ? $6 / $7 : 0
	evio[t, k] = $5 ? $7 / $5 : 0
}
END {
	printf "| tool | runs | IOPS median (min..max) | BPF events per I/O | BPF ns per event | BPF ns per I/O median (min..max) |\n"
	printf "|---|---|---|---|---|---|\n"
	for (o = 1; o <= nt; o++) {
		t = order[o]
		for (k = 1; k <= n[t]; k++) { a[k] = iops[t, k]; b[k] = nsio[t, k]; c[k] = nsev[t, k]; d[k] = evio[t, k] }
		mi[t] = median(a, n[t]); mn[t] = median(b, n[t])
		printf "| %s | %d | %.0f (%.0f..%.0f) | %.2f | %.0f | %.0f (%.0f..%.0f) |\n", t, n[t], mi[t], minv(a, n[t]), maxv(a, n[t]), median(d, n[t]), median(c, n[t]), mn[t], minv(b, n[t]), maxv(b, n[t])
	}
	if (("sglstat" in mi) && ("none" in mi) && mi["none"] > 0)
		printf "\nIOPS with sglstat / without: %.3f (target >= 0.98)\n", mi["sglstat"] / mi["none"]
	if (("sglstat" in mn) && ("biolatency" in mn) && mn["biolatency"] > 0)
		printf "BPF ns per I/O, sglstat / biolatency: %.3f (target <= 0.5)\n", mn["sglstat"] / mn["biolatency"]
	if (("sglstat" in mn) && ("bitesize" in mn) && mn["bitesize"] > 0)
		printf "BPF ns per I/O, sglstat / bitesize: %.3f\n", mn["sglstat"] / mn["bitesize"]
}
