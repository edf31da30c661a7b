// SPDX-License-Identifier: GPL-2.0
/* expect-results: 6 (tests/unit/run fails this test with fewer result lines) */
/* Histogram slots, bounds and percentiles against naive reference code. */
#include "tap.h"
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include "hist.h"

/* reference: smallest k >= 0 with v <= 2^k, clamped to the last slot */
static unsigned int ref_lat_slot(__u64 v)
{
	unsigned int k = 0;

	while (k < 64 && v > (1ULL << k))
		k++;
	return k < SGL_LAT_SLOTS ? k : SGL_LAT_SLOTS - 1;
}

/* reference: exact up to 128, then smallest j with n <= 128 * 2^(j+1) */
static unsigned int ref_seg_slot(__u64 n)
{
	unsigned int j = 0;

	if (n <= 128)
		return (unsigned int)n;
	while (n > (128ULL << (j + 1)))
		j++;
	if (j >= SGL_SEG_LOG_SLOTS)
		j = SGL_SEG_LOG_SLOTS - 1;
	return 129 + j;
}

static void lat_slot_small(void **state)
{
	(void)state;
	for (__u64 v = 0; v <= 70000; v++)
		assert_int_equal(sgl_lat_slot(v), ref_lat_slot(v));
}

static void lat_slot_edges(void **state)
{
	(void)state;
	/* literal edges of the upper-inclusive definition */
	assert_int_equal(sgl_lat_slot(0), 0);
	assert_int_equal(sgl_lat_slot(1), 0);
	assert_int_equal(sgl_lat_slot(2), 1);
	assert_int_equal(sgl_lat_slot(3), 2);
	assert_int_equal(sgl_lat_slot(4), 2);
	assert_int_equal(sgl_lat_slot(5), 3);
	assert_int_equal(sgl_lat_slot(1024), 10);
	assert_int_equal(sgl_lat_slot(1025), 11);
	for (unsigned int k = 1; k < 64; k++) {
		__u64 p = 1ULL << k;

		assert_int_equal(sgl_lat_slot(p), ref_lat_slot(p));
		assert_int_equal(sgl_lat_slot(p - 1), ref_lat_slot(p - 1));
		assert_int_equal(sgl_lat_slot(p + 1), ref_lat_slot(p + 1));
	}
	assert_int_equal(sgl_lat_slot(~0ULL), SGL_LAT_SLOTS - 1);
}

static void seg_slot_all(void **state)
{
	(void)state;
	for (__u64 n = 0; n <= 200000; n++)
		assert_int_equal(sgl_seg_slot((__u32)n), ref_seg_slot(n));
	assert_int_equal(sgl_seg_slot(128), 128);
	assert_int_equal(sgl_seg_slot(129), 129);
	assert_int_equal(sgl_seg_slot(256), 129);
	assert_int_equal(sgl_seg_slot(257), 130);
	assert_int_equal(sgl_seg_slot(0xffffffffu), SGL_SEG_SLOTS - 1);
}

static void bounds_match_slots(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < SGL_LAT_SLOTS; k++) {
		__u64 lo, hi;
		bool open;

		sgl_lat_bounds(k, &lo, &hi, &open);
		assert_int_equal(open, k == SGL_LAT_SLOTS - 1);
		if (!open)
			assert_int_equal(sgl_lat_slot(hi), k);	/* hi is inside */
		if (k >= 1) {
			assert_int_equal(sgl_lat_slot(lo + 1), k);
			assert_int_equal(sgl_lat_slot(lo), k - 1);	/* lo is outside */
		} else {
			assert_int_equal(lo, 0);
			assert_int_equal(hi, 1);
		}
	}
	for (unsigned int s = 0; s < SGL_SEG_SLOTS; s++) {
		__u64 lo, hi;
		bool open;

		sgl_seg_bounds(s, &lo, &hi, &open);
		if (s <= 128) {
			assert_int_equal(lo, s);
			assert_int_equal(hi, s);
		} else {
			assert_int_equal(sgl_seg_slot((__u32)lo), s - 1 == 128 ? 128 : s - 1);
			assert_int_equal(sgl_seg_slot((__u32)lo + 1), s);
			assert_int_equal(sgl_seg_slot((__u32)hi), s);
		}
	}
}

static void percentile_literal(void **state)
{
	__u64 h[SGL_LAT_SLOTS] = { 0 };
	__u64 sh[SGL_SEG_SLOTS] = { 0 };

	(void)state;
	assert_true(sgl_lat_percentile(h, 50) < 0);	/* empty */
	h[10] = 100;					/* (512, 1024] */
	assert_float_equal(sgl_lat_percentile(h, 50), 768.0, 1e-9);
	assert_float_equal(sgl_lat_percentile(h, 99), 512 + 512 * 0.99, 1e-9);
	assert_float_equal(sgl_lat_percentile(h, 100), 1024.0, 1e-9);
	h[10] = 0;
	h[1] = 50;					/* (1, 2] */
	h[3] = 50;					/* (4, 8] */
	assert_float_equal(sgl_lat_percentile(h, 50), 2.0, 1e-9);
	assert_float_equal(sgl_lat_percentile(h, 90), 4 + 4 * 40.0 / 50, 1e-9);
	assert_true(sgl_lat_percentile(h, 0) < 0);
	assert_true(sgl_lat_percentile(h, 101) < 0);
	memset(h, 0, sizeof(h));
	h[SGL_LAT_SLOTS - 1] = 3;			/* open top: lower bound */
	assert_float_equal(sgl_lat_percentile(h, 50), (double)(1ULL << (SGL_LAT_SLOTS - 2)), 1);

	sh[1] = 9;
	sh[7] = 1;
	assert_float_equal(sgl_seg_percentile(sh, 50), 1.0, 1e-9);
	assert_float_equal(sgl_seg_percentile(sh, 90), 1.0, 1e-9);
	assert_float_equal(sgl_seg_percentile(sh, 91), 7.0, 1e-9);
	sh[129] = 10;					/* (128, 256] */
	assert_float_equal(sgl_seg_percentile(sh, 100), 256.0, 1e-9);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The interpolated percentile lies in the slot of the exact percentile. */
static void percentile_same_slot_as_exact(void **state)
{
	enum { N = 5000 };
	static __u64 v[N];
	__u64 h[SGL_LAT_SLOTS];
	unsigned int seed = 12345;

	(void)state;
	for (int round = 0; round < 20; round++) {
		memset(h, 0, sizeof(h));
		for (int i = 0; i < N; i++) {
			seed = seed * 1103515245u + 12345u;
			v[i] = ((__u64)seed << 7) % (1ULL << (10 + round));
			h[sgl_lat_slot(v[i])]++;
		}
		qsort(v, N, sizeof(v[0]), cmp_u64);
		for (int p = 1; p <= 100; p++) {
			/* exact: the ceil(p/100 * N)-th smallest value */
			size_t rank = (size_t)ceil(p / 100.0 * N);
			__u64 exact = v[rank - 1];
			double est = sgl_lat_percentile(h, p);
			__u64 lo, hi;
			bool open;

			sgl_lat_bounds(sgl_lat_slot(exact), &lo, &hi, &open);
			assert_true(est >= (double)lo);
			assert_true(est <= (double)hi);
		}
	}
}

/* Text percentiles: the slot that holds them, no false digits. */
static void percentile_text(void **state)
{
	__u64 h[SGL_LAT_SLOTS] = { 0 };
	char b[64];

	(void)state;
	sgl_lat_pct_text(h, 50, false, b, sizeof(b));
	assert_string_equal(b, "-");
	h[14] = 10;	/* (8192, 16384] */
	sgl_lat_pct_text(h, 50, false, b, sizeof(b));
	assert_string_equal(b, "(8192, 16384]");
	sgl_lat_pct_text(h, 99, true, b, sizeof(b));
	assert_string_equal(b, "(0.00819, 0.0164]");
	h[0] = 100;
	sgl_lat_pct_text(h, 50, false, b, sizeof(b));
	assert_string_equal(b, "[0, 1]");
	h[SGL_LAT_SLOTS - 1] = 10000;
	sgl_lat_pct_text(h, 99, false, b, sizeof(b));
	assert_string_equal(b, "> 70368744177664");
	sgl_lat_bound_text(1048576, true, b, sizeof(b));
	assert_string_equal(b, "1.05");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lat_slot_small),
		cmocka_unit_test(percentile_text),
		cmocka_unit_test(lat_slot_edges),
		cmocka_unit_test(seg_slot_all),
		cmocka_unit_test(bounds_match_slots),
		cmocka_unit_test(percentile_literal),
		cmocka_unit_test(percentile_same_slot_as_exact),
	};

	return SGL_RUN("unit_hist", tests);
}
