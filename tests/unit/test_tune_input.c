// SPDX-License-Identifier: GPL-2.0
/* expect-results: 7 (tests/unit/run fails this test with fewer result lines) */
/* Unit tests of sglstat tune's inputs: capture, Prometheus textfile and query (tune_input.c, jparse.c). */
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include "tune_cmd.h"
#include "jparse.h"

static char *fixture(const char *name, size_t *len)
{
	char p[512];
	char *buf;
	const char *dir = getenv("SGL_FIXTURES");

	snprintf(p, sizeof(p), "%s/tune/%s", dir ? dir : "tests/unit/fixtures", name);
	assert_int_equal(sgl_read_file(p, 1 << 20, &buf, len), 0);
	return buf;
}

static void capture_deltas_are_summed(void **state)
{
	struct sgl_tune_set s = { 0 };
	char err[256];
	size_t len;
	char *b = fixture("capture-deltas.json", &len);

	(void)state;
	assert_int_equal(sgl_tune_read_capture(b, len, NULL, 2, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].name, "vsgla");
	assert_int_equal(s.d[0].in.seg[1], 400);
	assert_int_equal(s.d[0].in.seg[3], 300);
	assert_int_equal(s.d[0].in.seg[6], 200);
	assert_int_equal(s.d[0].in.seg[12], 100);
	assert_true(s.d[0].in.duration_s > 9.99 && s.d[0].in.duration_s < 10.01);
	assert_true(s.d[0].geo_known);
	assert_int_equal(s.d[0].in.max_segments, 254);
	assert_int_equal(s.d[0].in.nr_requests_total, 258);
	assert_int_equal(sgl_tune_pick(&s.d[0].in, 0.15), 6);
	assert_int_equal(sgl_tune_choose(&s, 0.15), 6);
	sgl_tune_set_free(&s);
	free(b);
}

static void capture_cumulative_uses_last_line(void **state)
{
	struct sgl_tune_set s = { 0 };
	char err[256];
	size_t len;
	char *b = fixture("capture-cum.json", &len);

	(void)state;
	assert_int_equal(sgl_tune_read_capture(b, len, NULL, 2, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.d[0].in.seg[1], 50);	/* not 60: the last line only */
	assert_int_equal(s.d[0].in.seg[4], 50);
	assert_true(s.d[0].in.duration_s > 9.99 && s.d[0].in.duration_s < 10.01);
	assert_int_equal(s.d[0].kind, SGL_DISK_VIRTIO_BLK);
	assert_true(s.d[0].nr_estimated);
	sgl_tune_set_free(&s);
	free(b);
}

static void capture_garbage_is_refused(void **state)
{
	static const char *const bad[] = {
		"", "\n\n", "{", "[1,2]", "{\"disks\":3}", "{\"disks\":[{\"name\":\"a/b\"}]}",
		"{\"disks\":[{\"name\":\"vda\",\"total\":{\"seg_hist\":[[129,1]]}}]}",
		"{\"disks\":[{\"name\":\"vda\",\"total\":{\"seg_hist\":[[1,-1]]}}]}",
		"{\"disks\":[{\"name\":\"vda\",\"total\":{\"seg_hist\":[],\"seg_hist_log2\":[[100,200,1]]}}]}",
		"{\"disks\":[{\"name\":\"vda\",\"total\":{\"seg_hist\":[]},\"geometry\":{\"max_segments\":0,\"nr_requests_total\":1}}]}",
		"{\"cumulative\":true,\"disks\":[]}\n{\"cumulative\":false,\"disks\":[]}",
		"{\"disks\":[]} x", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\u0000\"}", "{\"a\":01}",
		"{\"a\":\"\x01\"}", "{\"a\":1e}", "nul", "{\"disks\":[]}\n{\"disks\":[],}",
	};
	char err[256], deep[200];
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sgl_tune_set s = { 0 };

		err[0] = 0;
		assert_int_not_equal(sgl_tune_read_capture(bad[i], strlen(bad[i]), NULL, 2, &s, err,
							   sizeof(err)), 0);
		assert_true(err[0] != 0);
		sgl_tune_set_free(&s);
	}
	memset(deep, '[', sizeof(deep));
	{
		struct sgl_jdoc d;

		assert_int_equal(sgl_json_parse(deep, sizeof(deep), &d, err, sizeof(err)), -22);
		assert_non_null(strstr(err, "deep"));
	}
}

static void json_values(void **state)
{
	static const char j[] = " {\"a\":[1,2.5,-3,18446744073709551615,18446744073709551616],"
				"\"s\":\"x\\u00e9\\ud83d\\ude00\\n\",\"t\":true,\"a\":null} ";
	struct sgl_jdoc d;
	const struct sgl_jv *a, *e;
	char err[64];
	__u64 u;

	(void)state;
	assert_int_equal(sgl_json_parse(j, strlen(j), &d, err, sizeof(err)), 0);
	a = sgl_jget(&d, sgl_jroot(&d), "a");	/* the last of repeated members */
	assert_int_equal(a->type, SGL_J_NULL);
	a = sgl_jfirst(&d, sgl_jroot(&d));
	e = sgl_jfirst(&d, a);
	assert_int_equal(sgl_jget_u64(e, &u), 0);
	assert_int_equal(u, 1);
	e = sgl_jnext(&d, e);
	assert_int_not_equal(sgl_jget_u64(e, &u), 0);	/* 2.5 */
	e = sgl_jnext(&d, e);
	assert_int_not_equal(sgl_jget_u64(e, &u), 0);	/* -3 */
	e = sgl_jnext(&d, e);
	assert_int_equal(sgl_jget_u64(e, &u), 0);
	assert_true(u == ~0ULL);
	e = sgl_jnext(&d, e);
	assert_int_not_equal(sgl_jget_u64(e, &u), 0);	/* overflows u64 */
	assert_string_equal(sgl_jget(&d, sgl_jroot(&d), "s")->str, "x\xc3\xa9\xf0\x9f\x98\x80\n");
	sgl_json_free(&d);
}

static void prom_textfile(void **state)
{
	struct sgl_tune_set s = { 0 };
	struct sgl_tune_row r;
	char err[256];
	size_t len;
	char *b = fixture("host1.prom", &len);

	(void)state;
	assert_int_equal(sgl_tune_read_prom(b, len, "h1", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].name, "h1:vsgla");
	assert_true(s.d[0].geo_known);
	assert_int_equal(s.d[0].in.max_segments, 254);
	assert_int_equal(s.d[0].in.nr_requests_total, 258);
	assert_int_equal(s.d[0].current, 2);
	assert_int_equal(s.d[0].in.seg[1], 40);
	assert_int_equal(s.d[0].in.seg[3], 30);
	/* (3, 8] and (8, 12] are ranges: N = 5 is a bound, 8 exact */
	sgl_tune_eval(&s.d[0].in, 5, &r);
	assert_int_equal(r.chained, 30);
	assert_false(r.exact);
	sgl_tune_eval(&s.d[0].in, 8, &r);
	assert_int_equal(r.chained, 10);
	assert_true(r.exact);
	assert_int_equal(sgl_tune_pick(&s.d[0].in, 0.15), 8);
	sgl_tune_set_free(&s);
	free(b);
}

static void prom_garbage(void **state)
{
	static const char *const bad[] = {
		"virtio_blk_sgl_segments_bucket{disk=\"a\",le=\"1\"} x\n",
		"virtio_blk_sgl_segments_bucket{disk=\"a\"} 1\n",
		"virtio_blk_sgl_segments_bucket{disk=\"a\",le=\"1\n",
		"virtio_blk_sgl_segments_bucket{disk=\"a\",le=\"2\"} 5\nvirtio_blk_sgl_segments_bucket{disk=\"a\",le=\"3\"} 4\n",
		"virtio_blk_sgl_segments_bucket{disk=\"a\",le=\"1.5\"} 5\n",
		"virtio_blk_sgl_max_segments{mode=\"x\"} 5\n",
		"virtio_blk_sgl_segments_bucket{disk=\"a\",le=\"NaN\"} 1\n",
		"virtio_blk_sgl_segments_bucket{disk=\"a\",le=\"1\"} -1\n",
	};
	unsigned int i;
	char err[256];

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sgl_tune_set s = { 0 };

		err[0] = 0;
		assert_int_not_equal(sgl_tune_read_prom(bad[i], strlen(bad[i]), "f", &s, err, sizeof(err)), 0);
		assert_true(err[0] != 0);
		sgl_tune_set_free(&s);
	}
}

static void prom_query_classes(void **state)
{
	struct sgl_tune_set s = { 0 };
	char err[256];
	size_t len;
	char *b = fixture("query.json", &len);
	int i;

	(void)state;
	assert_int_equal(sgl_tune_read_prom_query(b, len, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	for (i = 0; i < 2; i++) {
		assert_true(s.d[i].geo_known);
		assert_int_equal(s.d[i].in.max_segments, 126);
		assert_string_equal(s.d[i].cls, "max_segments=126");
	}
	assert_non_null(strstr(s.d[0].name, "instance=h1"));
	assert_int_equal(sgl_tune_pick(&s.d[0].in, 0.2), 1);
	assert_int_equal(sgl_tune_pick(&s.d[1].in, 0.2), 4);
	assert_int_equal(sgl_tune_choose(&s, 0.2), 4);
	sgl_tune_set_free(&s);
	assert_int_not_equal(sgl_tune_read_prom_query("{\"data\":{}}", 11, &s, err, sizeof(err)), 0);
	sgl_tune_set_free(&s);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capture_deltas_are_summed),
		cmocka_unit_test(capture_cumulative_uses_last_line),
		cmocka_unit_test(capture_garbage_is_refused),
		cmocka_unit_test(json_values),
		cmocka_unit_test(prom_textfile),
		cmocka_unit_test(prom_garbage),
		cmocka_unit_test(prom_query_classes),
	};

	return SGL_RUN("unit_tune_input", tests);
}
