// SPDX-License-Identifier: GPL-2.0
/* expect-results: 3 (tests/unit/run fails this test with fewer result lines) */
/* Delta/cumulative bookkeeping and disk aggregation. */
#include "tap.h"
#include <string.h>
#include <stdint.h>
#include "snapshot.h"
#include "disks.h"

static void deltas(void **state)
{
	static struct sgl_disk_snap d;
	static struct sgl_stats now[SGL_NR_OPS];

	(void)state;
	memset(&d, 0, sizeof(d));
	memset(now, 0, sizeof(now));
	now[SGL_OP_READ].c.requests = 10;
	now[SGL_OP_READ].seg[1] = 10;
	now[SGL_OP_WRITE].lat[SGL_LAT_CHAINED][20] = 3;
	sgl_disk_update(&d, now);
	assert_int_equal(d.delta[SGL_OP_READ].c.requests, 10);
	assert_int_equal(d.cum[SGL_OP_READ].c.requests, 10);
	now[SGL_OP_READ].c.requests = 25;
	now[SGL_OP_READ].seg[1] = 24;
	now[SGL_OP_READ].seg[200 - 71] = 1;
	sgl_disk_update(&d, now);
	assert_int_equal(d.delta[SGL_OP_READ].c.requests, 15);
	assert_int_equal(d.delta[SGL_OP_READ].seg[1], 14);
	assert_int_equal(d.delta[SGL_OP_READ].seg[129], 1);
	assert_int_equal(d.cum[SGL_OP_READ].c.requests, 25);
	assert_int_equal(d.delta[SGL_OP_WRITE].lat[SGL_LAT_CHAINED][20], 0);
	assert_int_equal(d.cum[SGL_OP_WRITE].lat[SGL_LAT_CHAINED][20], 3);
}

/*
 * A requeue after issue undoes a count in the next interval: the map value
 * dips.  The per-interval delta must not go negative (as u64: ~2^64); the
 * dip is paid back before anything new is reported.
 */
static void no_negative_delta(void **state)
{
	static struct sgl_disk_snap d;
	static struct sgl_stats now[SGL_NR_OPS];

	(void)state;
	memset(&d, 0, sizeof(d));
	memset(now, 0, sizeof(now));
	now[SGL_OP_READ].c.requests = 10;
	now[SGL_OP_READ].seg[3] = 10;
	sgl_disk_update(&d, now);
	now[SGL_OP_READ].c.requests = 9;	/* undone across the boundary */
	now[SGL_OP_READ].seg[3] = 9;
	sgl_disk_update(&d, now);
	assert_int_equal(d.delta[SGL_OP_READ].c.requests, 0);
	assert_int_equal(d.delta[SGL_OP_READ].seg[3], 0);
	assert_int_equal(d.cum[SGL_OP_READ].c.requests, 10);
	now[SGL_OP_READ].c.requests = 12;	/* reissued, plus two new */
	now[SGL_OP_READ].seg[3] = 12;
	sgl_disk_update(&d, now);
	assert_int_equal(d.delta[SGL_OP_READ].c.requests, 2);
	assert_int_equal(d.cum[SGL_OP_READ].c.requests, 12);
	assert_int_equal(d.delta[SGL_OP_READ].seg[3], 2);
}

/* Latency sums: a map word that wraps past 2^64 still adds up. */
static void lat_sum_no_wrap(void **state)
{
	static struct sgl_disk_snap d;
	static struct sgl_stats now[SGL_NR_OPS];
	unsigned __int128 want;

	(void)state;
	memset(&d, 0, sizeof(d));
	memset(now, 0, sizeof(now));
	/* a long-running map word climbs towards 2^64 (deltas < 2^63 ns per interval) */
	for (int k = 1; k <= 3; k++) {
		now[SGL_OP_WRITE].c.lat_sum_ns[SGL_LAT_INLINE] = (__u64)k << 62;
		now[SGL_OP_WRITE].c.setup_sum_ns = (__u64)k << 62;
		sgl_disk_update(&d, now);
	}
	now[SGL_OP_WRITE].c.lat_sum_ns[SGL_LAT_INLINE] = UINT64_MAX - 1000;
	now[SGL_OP_WRITE].c.setup_sum_ns = UINT64_MAX;
	sgl_disk_update(&d, now);
	now[SGL_OP_WRITE].c.lat_sum_ns[SGL_LAT_INLINE] = 5000;	/* wrapped: +6001 */
	now[SGL_OP_WRITE].c.setup_sum_ns = 9;			/* +10 */
	sgl_disk_update(&d, now);
	want = (unsigned __int128)UINT64_MAX - 1000 + 6001;
	assert_true(sgl_disk_lat_sum(&d, SGL_OP_WRITE, SGL_LAT_INLINE) == want);
	assert_true(sgl_disk_setup_sum(&d, SGL_OP_WRITE) == (unsigned __int128)UINT64_MAX + 10);
	assert_int_equal(d.delta[SGL_OP_WRITE].c.lat_sum_ns[SGL_LAT_INLINE], 6001);
}

/* A disk that comes back in a fresh (zeroed) slot continues its totals. */
static void slot_recycled(void **state)
{
	static struct sgl_disk_snap d;
	static struct sgl_stats now[SGL_NR_OPS];

	(void)state;
	memset(&d, 0, sizeof(d));
	memset(now, 0, sizeof(now));
	now[SGL_OP_READ].c.requests = 100;
	sgl_disk_update(&d, now);
	sgl_disk_slot_reset(&d);
	now[SGL_OP_READ].c.requests = 7;	/* the new slot counted 7 */
	sgl_disk_update(&d, now);
	assert_int_equal(d.delta[SGL_OP_READ].c.requests, 7);
	assert_int_equal(d.cum[SGL_OP_READ].c.requests, 107);
}

/* Slots: --max-disks, else the disks present + 4, at most SGL_MAX_DISKS. */
static void slots(void **state)
{
	(void)state;
	assert_int_equal(sgl_disk_slots(0, 2), 6);
	assert_int_equal(sgl_disk_slots(0, 0), 4);
	assert_int_equal(sgl_disk_slots(2, 10), 2);
	assert_int_equal(sgl_disk_slots(0, 1000), SGL_MAX_DISKS);
}

static void totals(void **state)
{
	static struct sgl_snapshot s;
	static struct sgl_disk_snap all;
	struct sgl_stats t;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.nr_disks = 2;
	s.disk[0].inline_cnt = 2;
	s.disk[1].inline_cnt = 2;
	s.disk[0].delta[SGL_OP_READ].c.chained = 1;
	s.disk[0].delta[SGL_OP_FLUSH].c.requests = 4;
	s.disk[1].delta[SGL_OP_READ].c.chained = 2;
	s.disk[1].cum[SGL_OP_OTHER].c.io_errors = 6;
	sgl_disk_total(&s.disk[0], false, &t);
	assert_int_equal(t.c.requests, 4);
	assert_int_equal(t.c.chained, 1);
	sgl_snapshot_sum_disks(&s, &all);
	assert_string_equal(all.name, "all");
	assert_int_equal(all.delta[SGL_OP_READ].c.chained, 3);
	assert_int_equal(all.cum[SGL_OP_OTHER].c.io_errors, 6);
	assert_int_equal(all.inline_cnt, 2);
	s.disk[1].inline_cnt = 4;
	sgl_snapshot_sum_disks(&s, &all);
	assert_int_equal(all.inline_cnt, 0);	/* mixed */
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(sgl_op_name(SGL_OP_WRITE_ZEROES), "write_zeroes");
	assert_string_equal(sgl_op_name(99), "?");
	assert_string_equal(sgl_mode_name(SGL_MODE_STOCK), "stock");
	assert_string_equal(sgl_kind_name(SGL_DISK_VSGL), "virtio_blk_sgl");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deltas),
		cmocka_unit_test(no_negative_delta),
		cmocka_unit_test(lat_sum_no_wrap),
		cmocka_unit_test(slot_recycled),
		cmocka_unit_test(slots),
		cmocka_unit_test(totals),
		cmocka_unit_test(names),
	};

	return SGL_RUN("unit_snapshot", tests);
}
