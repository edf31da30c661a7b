/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sg_pool allocation model shared by the driver, the BPF programs and
 * sglstat, so that all three count "chained bytes" the same way.
 *
 * It mirrors what lib/sg_pool.c really allocates for
 * sg_alloc_table_chained(table, nents, inline_sgl, nents_first_chunk):
 *  - nents <= nents_first_chunk: nothing is allocated (checked first, so
 *    this holds for nents_first_chunk == 1 too);
 *  - otherwise nents_first_chunk <= 1 means "no usable inline chunk";
 *  - once chaining starts, the inline chunk keeps nents_first_chunk - 1 data
 *    entries plus the chain link;
 *  - further chunks hold at most SGL_CHUNK_ENTS entries; a chunk that is not
 *    the last one gives up its last entry to the chain link;
 *  - a chunk of n entries comes from the sgpool-N slab whose N is n rounded
 *    up to a power of two, at least 8.
 * Pure integer C with no headers so that it builds in all three places.
 */
#ifndef SGL_MODEL_H
#define SGL_MODEL_H

#define SGL_CHUNK_ENTS		128	/* SG_CHUNK_SIZE in lib/sg_pool.c */
#define SGL_POOL_MIN_ENTS	8	/* the smallest sgpool slab */
/*
 * sizeof(struct scatterlist): 32 on x86_64, 40 with CONFIG_DEBUG_SG.  The
 * driver, the BPF programs (CO-RE) and sglstat (the kernel's BTF) define it
 * from the kernel they run on before including this file.
 */
#ifndef SGL_ENTRY_BYTES
#define SGL_ENTRY_BYTES		32
#endif

/* Entries of the sgpool slab object that backs a chunk of @n entries. */
static inline unsigned int sgl_pool_ents(unsigned int n)
{
	unsigned int p = SGL_POOL_MIN_ENTS;

	while (p < n && p < SGL_CHUNK_ENTS)
		p <<= 1;
	return p;
}

/* Does a request of @nsegs segments allocate at runtime with @inline_cnt? */
static inline int sgl_is_chained(unsigned int nsegs, unsigned int inline_cnt)
{
	if (nsegs == 0)
		return 0;
	return nsegs > inline_cnt;
}

/* Bytes sg_alloc_table_chained() takes from sg_pool for one request. */
static inline unsigned long long sgl_chained_bytes(unsigned int nsegs,
						   unsigned int inline_cnt)
{
	unsigned long long left, full;

	if (!sgl_is_chained(nsegs, inline_cnt))
		return 0;
	left = nsegs;
	if (inline_cnt > 1)
		left -= inline_cnt - 1;
	if (left <= SGL_CHUNK_ENTS)
		return (unsigned long long)sgl_pool_ents(left) * SGL_ENTRY_BYTES;
	/* each non-last chunk is a full 128-entry chunk carrying 127 entries */
	full = (left - SGL_CHUNK_ENTS + SGL_CHUNK_ENTS - 2) / (SGL_CHUNK_ENTS - 1);
	left -= full * (SGL_CHUNK_ENTS - 1);
	return (full * SGL_CHUNK_ENTS + sgl_pool_ents(left)) * SGL_ENTRY_BYTES;
}

/*
 * virtio_blk_sgl_complete's setup_info argument (docs/ABI.md): the request's
 * data length in the low 32 bits, and this bit set when its setup was a
 * retry after a failed one.
 */
#define SGL_TP_RETRIED_SHIFT	32

#endif /* SGL_MODEL_H */
