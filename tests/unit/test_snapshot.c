// SPDX-License-Identifier: GPL-2.0
/* expect-results: 3 (tests/unit/run fails this test with fewer result lines) */
/* Delta/cumulative bookkeeping and disk aggregation. */
#include "tap.h"
#include <string.h>
#include "snapshot.h"

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
		cmocka_unit_test(totals),
		cmocka_unit_test(names),
	};

	return SGL_RUN("unit_snapshot", tests);
}
