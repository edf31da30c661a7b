// SPDX-License-Identifier: GPL-2.0
/* expect-results: 7 (tests/unit/run fails this test with fewer result lines) */
/*
 * include/sgl_model.h against a literal simulation of what
 * sg_alloc_table_chained() -> __sg_alloc_table() -> sg_pool_alloc() do
 * (lib/sg_pool.c, lib/scatterlist.c; written from the kernel's algorithm as
 * described in /work/shared/REFERENCE.md and the kernel source).
 */
#include "tap.h"
#include <string.h>
#include "sgl_model.h"

#define SG_CHUNK_SIZE	128
#define SCATTERLIST_SZ	32

/* sg_pool_index(): pools of 8, 16, 32, 64, 128 entries */
static unsigned int pool_entries(unsigned int nents)
{
	unsigned int order = 0;

	if (nents <= 8)
		return 8;
	while ((1u << order) < nents)	/* get_count_order() */
		order++;
	return 1u << order;
}

struct sim {
	unsigned long long bytes;	/* bytes taken from sg_pool slabs */
	unsigned int chunks;		/* allocated chunks */
	unsigned int entries;		/* table->nents */
};

static struct sim simulate(unsigned int nents, unsigned int nents_first_chunk)
{
	struct sim s = { 0 };
	int have_first_chunk = 1;	/* the driver always passes its inline array */
	unsigned int left, curr_max_ents, max_ents = SG_CHUNK_SIZE;

	if (!nents)
		return s;	/* the driver maps nothing for 0 segments */
	/* sg_alloc_table_chained() */
	if (have_first_chunk && nents_first_chunk) {
		if (nents <= nents_first_chunk) {
			s.entries = nents;
			return s;
		}
	}
	if (nents_first_chunk <= 1) {
		have_first_chunk = 0;
		nents_first_chunk = 0;
	}
	/* __sg_alloc_table() */
	curr_max_ents = nents_first_chunk ? nents_first_chunk : max_ents;
	left = nents;
	do {
		unsigned int sg_size, alloc_size = left;

		if (alloc_size > curr_max_ents) {
			alloc_size = curr_max_ents;
			sg_size = alloc_size - 1;
		} else {
			sg_size = alloc_size;
		}
		left -= sg_size;
		if (have_first_chunk) {
			have_first_chunk = 0;	/* the inline chunk: no allocation */
		} else {
			s.bytes += (unsigned long long)pool_entries(alloc_size) * SCATTERLIST_SZ;
			s.chunks++;
		}
		s.entries += sg_size;
		curr_max_ents = max_ents;
	} while (left);
	return s;
}

static void sim_self_check(void **state)
{
	(void)state;
	/* hand-computed: inline 2, 3 segments -> 1 inline data entry + chunk of 2 (sgpool-8) */
	assert_int_equal(simulate(3, 2).bytes, 8 * 32);
	/* inline 2, 130 segments -> 1 + chunk of 128 (full, 127 data + link) + chunk of 2 */
	assert_int_equal(simulate(130, 2).bytes, (128 + 8) * 32);
	assert_int_equal(simulate(130, 2).entries, 130);
	assert_int_equal(simulate(2, 2).bytes, 0);
	assert_int_equal(simulate(0, 2).bytes, 0);
	/* inline 0: everything from the pool */
	assert_int_equal(simulate(1, 0).bytes, 8 * 32);
}

static void check_inline(unsigned int inl)
{
	for (unsigned int n = 0; n <= 4096; n++) {
		struct sim s = simulate(n, inl);
		unsigned long long m = sgl_chained_bytes(n, inl);

		if (m != s.bytes || sgl_is_chained(n, inl) != (s.chunks > 0)) {
			print_error("inline %u nsegs %u: model %llu bytes chained %d, simulation %llu bytes chunks %u\n",
				    inl, n, m, sgl_is_chained(n, inl), s.bytes, s.chunks);
			fail();
		}
		assert_int_equal(s.entries, n);
	}
}

static void model_inline_0(void **state) { (void)state; check_inline(0); }
static void model_inline_1(void **state) { (void)state; check_inline(1); }
static void model_inline_2(void **state) { (void)state; check_inline(2); }
static void model_inline_3_to_16(void **state)
{
	(void)state;
	for (unsigned int i = 3; i <= 16; i++)
		check_inline(i);
}
static void model_inline_large(void **state)
{
	static const unsigned int v[] = { 64, 127, 128, 129, 254, 255, 256, 1024 };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_inline(v[i]);
}

static void pool_ents_matches(void **state)
{
	(void)state;
	for (unsigned int n = 1; n <= 128; n++)
		assert_int_equal(sgl_pool_ents(n), pool_entries(n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sim_self_check),
		cmocka_unit_test(pool_ents_matches),
		cmocka_unit_test(model_inline_0),
		cmocka_unit_test(model_inline_1),
		cmocka_unit_test(model_inline_2),
		cmocka_unit_test(model_inline_3_to_16),
		cmocka_unit_test(model_inline_large),
	};

	return SGL_RUN("unit_model", tests);
}
