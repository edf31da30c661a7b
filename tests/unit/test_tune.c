// SPDX-License-Identifier: GPL-2.0
/* expect-results: 9 (tests/unit/run fails this test with fewer result lines) */
/* Unit tests of sglstat tune's prediction and rule (tools/sglstat/tune.c). */
#include "tap.h"
#include <string.h>
#include "tune.h"
#include "sgl_model.h"

static struct sgl_tune_input mix(void)
{
	/* 50% 1 segment, 30% 4, 15% 16, 5% 64 over 10 s */
	struct sgl_tune_input in = { .duration_s = 10, .max_segments = 254,
				     .nr_requests_total = 1000 };

	in.seg[1] = 500;
	in.seg[4] = 300;
	in.seg[16] = 150;
	in.seg[64] = 50;
	return in;
}

static void chained_fraction_follows_distribution(void **state)
{
	struct sgl_tune_input in = mix();
	struct sgl_tune_row r;

	(void)state;
	sgl_tune_eval(&in, 0, &r);	/* 0: everything with data allocates */
	assert_int_equal(r.chained, 1000);
	sgl_tune_eval(&in, 1, &r);	/* 1 segment fits one inline entry */
	assert_int_equal(r.chained, 500);
	sgl_tune_eval(&in, 2, &r);
	assert_int_equal(r.chained, 500);
	assert_true(r.chained_frac > 0.4999 && r.chained_frac < 0.5001);
	assert_true(r.chained_per_s > 49.99 && r.chained_per_s < 50.01);
	sgl_tune_eval(&in, 4, &r);	/* 4 segments fit in 4 inline entries */
	assert_int_equal(r.chained, 200);
	sgl_tune_eval(&in, 16, &r);
	assert_int_equal(r.chained, 50);
	sgl_tune_eval(&in, 64, &r);
	assert_int_equal(r.chained, 0);
	assert_true(r.exact);
}

static void memory_and_pool_bytes(void **state)
{
	struct sgl_tune_input in = mix();
	struct sgl_tune_row r;
	double want;

	(void)state;
	sgl_tune_eval(&in, 4, &r);
	assert_int_equal(r.inline_bytes, 1000ull * 4 * SGL_ENTRY_BYTES);
	assert_int_equal(r.full_bytes, 1000ull * 254 * SGL_ENTRY_BYTES);
	want = (150.0 * sgl_chained_bytes(16, 4) + 50.0 * sgl_chained_bytes(64, 4)) / 10;
	assert_true(r.pool_bytes_per_s > want - 0.001 && r.pool_bytes_per_s < want + 0.001);
}

static void pick_is_smallest_meeting_target(void **state)
{
	struct sgl_tune_input in = mix();

	(void)state;
	assert_int_equal(sgl_tune_pick(&in, 0.5), 1);	/* 50% chained at 1 */
	assert_int_equal(sgl_tune_pick(&in, 0.49), 4);
	assert_int_equal(sgl_tune_pick(&in, 0.2), 4);
	assert_int_equal(sgl_tune_pick(&in, 0.05), 16);
	assert_int_equal(sgl_tune_pick(&in, 0.0), 64);
	assert_int_equal(sgl_tune_pick(&in, 1.0), 0);	/* everything may chain */
}

static void range_slots_are_bounds(void **state)
{
	struct sgl_tune_input in = { .duration_s = 1, .max_segments = 1022,
				     .nr_requests_total = 10 };
	struct sgl_tune_row r;

	(void)state;
	in.seg[129] = 10;	/* (128, 256] */
	sgl_tune_eval(&in, 128, &r);
	assert_int_equal(r.chained, 10);
	sgl_tune_eval(&in, 200, &r);	/* inside the slot: counted, not exact */
	assert_int_equal(r.chained, 10);
	assert_false(r.exact);
	sgl_tune_eval(&in, 256, &r);
	assert_int_equal(r.chained, 0);
	assert_int_equal(sgl_tune_pick(&in, 0.0), 256);
}

/* Values never exceed max_segments: at n = max nothing chains (the lead's
 * version counted the (128, 256] slot as chaining at n = 254). */
static void max_segments_caps_range_slots(void **state)
{
	struct sgl_tune_input in = { .duration_s = 1, .max_segments = 254,
				     .nr_requests_total = 10 };
	struct sgl_tune_row r;

	(void)state;
	in.seg[1] = 90;
	in.seg[129] = 10;
	sgl_tune_eval(&in, 254, &r);
	assert_int_equal(r.chained, 0);
	assert_true(r.exact);
	assert_int_equal(sgl_tune_pick(&in, 0.0), 254);
	sgl_tune_eval(&in, 300, &r);	/* clamped like the driver does */
	assert_int_equal(r.n, 254);
	/* open top slot: values up to max, not only its nominal bound */
	in.max_segments = 200000;
	memset(in.seg, 0, sizeof(in.seg));
	in.seg[SGL_SEG_SLOTS - 1] = 5;
	sgl_tune_eval(&in, 131072, &r);
	assert_int_equal(r.chained, 5);
	sgl_tune_eval(&in, 200000, &r);
	assert_int_equal(r.chained, 0);
}

static void huge_max_terminates(void **state)
{
	struct sgl_tune_input in = { .duration_s = 1, .max_segments = 0xffffffffu };
	struct sgl_tune_row rows[SGL_TUNE_MAX_ROWS];
	int nr, i;

	(void)state;
	in.seg[3] = 1;
	nr = sgl_tune_table(&in, rows, SGL_TUNE_MAX_ROWS);
	assert_int_equal(nr, SGL_TUNE_MAX_ROWS);
	assert_int_equal(rows[nr - 1].n, 0xffffffffu);
	for (i = 1; i < nr; i++)
		assert_true(rows[i].n > rows[i - 1].n);
}

static void coarse_ranges(void **state)
{
	struct sgl_tune_input in = { .duration_s = 1, .max_segments = 254 };
	struct sgl_tune_row r;

	(void)state;
	in.seg[1] = 50;
	in.range[0] = (struct sgl_tune_range){ 8, 12, 50 };
	in.nr_ranges = 1;
	sgl_tune_eval(&in, 8, &r);
	assert_int_equal(r.chained, 50);
	assert_true(r.exact);
	sgl_tune_eval(&in, 10, &r);
	assert_int_equal(r.chained, 50);
	assert_false(r.exact);
	sgl_tune_eval(&in, 12, &r);
	assert_int_equal(r.chained, 0);
	assert_int_equal(sgl_tune_pick(&in, 0.1), 12);
}

static void table_candidates(void **state)
{
	struct sgl_tune_input in = mix();
	struct sgl_tune_row rows[200];
	int nr, i;

	(void)state;
	nr = sgl_tune_table(&in, rows, 200);
	/* 0..128, 254 (max) */
	assert_int_equal(nr, 129 + 1);
	assert_int_equal(rows[0].n, 0);
	assert_int_equal(rows[1].n, 1);
	assert_int_equal(rows[nr - 1].n, 254);
	for (i = 1; i < nr; i++)
		assert_true(rows[i].n > rows[i - 1].n);
	in.max_segments = 3;
	nr = sgl_tune_table(&in, rows, 200);
	assert_int_equal(nr, 4);	/* 0, 1, 2, 3 */
	assert_int_equal(sgl_tune_pick(&in, 0.0), 3);	/* none meets it: max */
	in.max_segments = 0;
	assert_int_equal(sgl_tune_table(&in, rows, 200), -22);
}

static void empty_histogram_keeps_default(void **state)
{
	struct sgl_tune_input in = { .duration_s = 1, .max_segments = 254 };

	(void)state;
	assert_int_equal(sgl_tune_pick(&in, 0.01), 2);
}

/*
 * The fragmentation bound: a workload whose buffers happened to be
 * physically contiguous (1 segment each) but whose requests are 64 KiB may
 * need 17 segments in the next process.  By default the pick rests on the
 * bound; --pick-by observed keeps the old answer.
 */
static void pick_by_bound(void **state)
{
	struct sgl_tune_input in = { .duration_s = 10, .max_segments = 254,
				     .nr_requests_total = 256, .bound_known = true };
	struct sgl_tune_input b;
	bool by_bound;

	(void)state;
	in.seg[1] = 1000;
	in.bound[17] = 1000;
	assert_int_equal(sgl_tune_pick_by(&in, 0.005, false, &by_bound), 17);
	assert_true(by_bound);
	assert_int_equal(sgl_tune_pick_by(&in, 0.005, true, &by_bound), 1);
	assert_false(by_bound);
	in.bound_known = false;		/* e.g. a capture from an older sglstat */
	assert_int_equal(sgl_tune_pick_by(&in, 0.005, false, &by_bound), 1);
	assert_false(by_bound);
	/* bounds above max_segments count at max_segments */
	in.bound_known = true;
	in.max_segments = 8;
	in.seg[1] = 1000;
	sgl_tune_bound_input(&in, &b);
	assert_int_equal(b.seg[8], 1000);
	assert_int_equal(sgl_tune_pick_by(&in, 0.005, false, NULL), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pick_by_bound),
		cmocka_unit_test(chained_fraction_follows_distribution),
		cmocka_unit_test(memory_and_pool_bytes),
		cmocka_unit_test(pick_is_smallest_meeting_target),
		cmocka_unit_test(range_slots_are_bounds),
		cmocka_unit_test(table_candidates),
		cmocka_unit_test(max_segments_caps_range_slots),
		cmocka_unit_test(huge_max_terminates),
		cmocka_unit_test(coarse_ranges),
		cmocka_unit_test(empty_histogram_keeps_default),
	};

	return SGL_RUN("unit_tune", tests);
}
