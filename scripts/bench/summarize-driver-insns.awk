# driver-insns.sh's insns.txt ("CFG SCHED BS FUNCTION N", "... total N",
# "... module NAME N") as two markdown tables: each driver's own
# instructions per I/O per cell, then function by function.
$4 == "module" { mod[$1, $2, $3, $5] = $6; next }
$4 == "total" { tot[$1, $2, $3] = $5; cell($2, $3); next }
{ fn[$1, $2, $3, $4] = $5; if (!(($1, $4) in seen)) { seen[$1, $4] = 1; order[++nf] = $1 SUBSEP $4 } }
function cell(s, b) { if (!((s, b) in hc)) { hc[s, b] = 1; cs[++nc] = s; cb[nc] = b } }
function label(b) { return b >= 1024 ? b / 1024 " KiB" : b " B" }
END {
	print "| read, QD 8 | scheduler | virtio_blk_sgl (inline 2) | in-tree virtio_blk | ours - in-tree | virtio_ring (ours / in-tree) |"
	print "|---|---|---:|---:|---:|---:|"
	for (i = 1; i <= nc; i++) {
		s = cs[i]; b = cb[i]
		printf "| %s | %s | %.1f | %.1f | %+.1f | %.1f / %.1f |\n", label(b), s, tot["inline2", s, b], tot["intree", s, b],
			tot["inline2", s, b] - tot["intree", s, b], mod["inline2", s, b, "virtio_ring"], mod["intree", s, b, "virtio_ring"]
	}
	print ""
	printf "| driver | function"
	for (i = 1; i <= nc; i++) printf " | %s %s", label(cb[i]), cs[i]
	print " |"
	printf "|---|---"
	for (i = 1; i <= nc; i++) printf "|---:"
	print "|"
	for (k = 1; k <= nf; k++) {
		split(order[k], p, SUBSEP)
		printf "| %s | %s", p[1] == "intree" ? "virtio_blk" : "virtio_blk_sgl", p[2]
		for (i = 1; i <= nc; i++) { v = fn[p[1], cs[i], cb[i], p[2]]; printf " | %s", v == "" ? "-" : sprintf("%.1f", v) }
		print " |"
	}
}
