# Where the chained path's instructions go: icount-parts.txt lines are
#   init_on_alloc=X layout rw bs qd config round ipio spin chained
# (scripts/bench/run.sh, part icount-parts). Per block size: median
# instructions per I/O of prealloc, inline 2 (every request chained above
# one page) and the in-tree driver, with init_on_alloc on (Debian's
# default) and off; the differences split the chained path's extra cost
# into the slab's zeroing of the sg_pool chunk (init_on_alloc, which
# sg_init_table repeats) and the rest (mempool and slab alloc/free, chaining).
NF >= 10 && $8 != "stall" {
	split($1, kv, "="); ioa = kv[2]
	k = $4 " " ioa " " $6
	v[k] = v[k] " " $8
	if (!($4 in seen)) { seen[$4] = 1; bss[++nb] = $4 }
	if (ioa == 1 && $6 == "inline2") ch[$4] = $10
}
function m(bs, ioa, cfg) { return med(v[bs " " ioa " " cfg]) }
END {
	print "| bs (QD 8, read) | chained (inline 2) | prealloc | inline 2 | in-tree | chained extra (inline 2 - prealloc) | of it, slab zeroing (init_on_alloc) | rest: mempool + slab + chaining | ours - in-tree (inline 2) |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nb; i++) {
		b = bss[i]
		p1 = m(b, 1, "prealloc"); i1 = m(b, 1, "inline2"); t1 = m(b, 1, "intree")
		p0 = m(b, 0, "prealloc"); i0 = m(b, 0, "inline2")
		printf "| %s | %s%% | %.0f (%.0f) | %.0f (%.0f) | %.0f | %+.0f | %+.0f | %+.0f | %+.0f |\n", b, ch[b], p1, p0, i1, i0, t1,
			i1 - p1, (i1 - p1) - (i0 - p0), i0 - p0, i1 - t1
	}
	print ""
	print "Medians of instructions per I/O over the rounds; in parentheses: the same with init_on_alloc=0."
}
