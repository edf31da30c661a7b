// SPDX-License-Identifier: GPL-2.0
/* expect-results: 7 (tests/unit/run fails this test with fewer result lines) */
/* sysfs parsing against the fixture trees in tests/unit/fixtures/. */
#include "tap.h"
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "disks.h"
#include "memory.h"

static char fx[PATH_MAX];

static const char *root(const char *name)
{
	static char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", fx, name);
	return p;
}

static void parse_dev(void **state)
{
	unsigned int ma = 0, mi = 0;

	(void)state;
	assert_int_equal(sgl_parse_dev("254:16\n", &ma, &mi), 0);
	assert_int_equal(ma, 254);
	assert_int_equal(mi, 16);
	assert_int_equal(sgl_parse_dev("8:0", &ma, &mi), 0);
	assert_int_equal(ma, 8);
	assert_int_equal(sgl_parse_dev("banana\n", &ma, &mi), -EINVAL);
	assert_int_equal(sgl_parse_dev("254\n", &ma, &mi), -EINVAL);
	assert_int_equal(sgl_parse_dev("254:1x\n", &ma, &mi), -EINVAL);
	assert_int_equal(sgl_parse_dev("4096:0\n", &ma, &mi), -EINVAL);	/* > 12-bit major */
	assert_int_equal(sgl_parse_dev("1:1048576\n", &ma, &mi), -EINVAL);	/* > 20-bit minor */
}

static void read_u64(void **state)
{
	char p[PATH_MAX + 128];
	__u64 v = 0;

	(void)state;
	snprintf(p, sizeof(p), "%s/block/vsgla/sgl/chained_bytes_peak", root("sys-a"));
	assert_int_equal(sgl_read_u64(p, &v), 0);
	assert_int_equal(v, 36864);
	snprintf(p, sizeof(p), "%s/block/vsglb/sgl/inline_sg_cnt", root("sys-bad"));
	assert_int_equal(sgl_read_u64(p, &v), -EINVAL);
	snprintf(p, sizeof(p), "%s/block/vsgla/sgl/no_such_file", root("sys-a"));
	assert_int_equal(sgl_read_u64(p, &v), -ENOENT);
}

static void kinds(void **state)
{
	const char *r = root("sys-a");

	(void)state;
	assert_int_equal(sgl_disk_kind(r, "vda"), SGL_DISK_VIRTIO_BLK);	/* driver link */
	assert_int_equal(sgl_disk_kind(r, "vdb"), SGL_DISK_VIRTIO_BLK);	/* modalias */
	assert_int_equal(sgl_disk_kind(r, "vsgla"), SGL_DISK_VSGL);
	assert_int_equal(sgl_disk_kind(r, "sda"), SGL_DISK_OTHER);
	assert_int_equal(sgl_disk_kind(r, "loop0"), SGL_DISK_OTHER);
	assert_int_equal(sgl_disk_kind(r, "nosuch"), -ENOENT);
	assert_int_equal(sgl_disk_kind(r, "../block"), -ENOENT);
	assert_int_equal(sgl_disk_kind(r, ""), -ENOENT);
}

static void scan(void **state)
{
	struct sgl_disk_info d[SGL_SCAN_MAX];
	int n;

	(void)state;
	n = sgl_scan_disks(root("sys-a"), d, SGL_SCAN_MAX);
	assert_int_equal(n, 3);	/* vdbad has a garbage dev file: skipped */
	assert_string_equal(d[0].name, "vda");
	assert_int_equal(d[0].major, 254);
	assert_int_equal(d[0].first_minor, 0);
	assert_int_equal(d[0].kind, SGL_DISK_VIRTIO_BLK);
	assert_string_equal(d[1].name, "vdb");
	assert_int_equal(d[1].first_minor, 16);
	assert_string_equal(d[2].name, "vsgla");
	assert_int_equal(d[2].major, 252);
	assert_int_equal(d[2].kind, SGL_DISK_VSGL);
	assert_int_equal(sgl_scan_disks(root("sys-none"), d, SGL_SCAN_MAX), 0);
	assert_int_equal(sgl_scan_disks(root("no-such-root"), d, SGL_SCAN_MAX), -ENOENT);
	assert_int_equal(sgl_scan_disks(root("sys-a"), d, 1), 1);
}

static void drv_sysfs(void **state)
{
	struct sgl_drv_sysfs s;

	(void)state;
	assert_int_equal(sgl_read_drv_sysfs(root("sys-a"), "vsgla", &s), 0);
	assert_true(s.valid);
	assert_int_equal(s.inline_sg_cnt, 2);
	assert_int_equal(s.requests_mapped, 1000);
	assert_int_equal(s.requests_chained, 250);
	assert_int_equal(s.chain_alloc_failures, 7);
	assert_int_equal(s.chain_alloc_injected, 5);
	assert_int_equal(s.chained_bytes_peak, 36864);
	assert_int_equal(s.io_errors, 1);
	assert_int_equal(s.sg_full_prealloc_bytes, 2096448);
	assert_int_not_equal(sgl_read_drv_sysfs(root("sys-a"), "vda", &s), 0);
	assert_false(s.valid);
	assert_int_equal(sgl_read_drv_sysfs(root("sys-bad"), "vsglb", &s), -EINVAL);
}

static void memory_figures(void **state)
{
	struct sgl_disk_info d;
	struct sgl_mem_info m;
	const char *r = root("sys-a");

	(void)state;
	/* vda: 2 hw queues x 128 tags + mq-deadline 2 x 256 sched tags + 2 flush = 770 */
	assert_int_equal(sgl_disk_get(r, "vda", &d), 0);
	assert_int_equal(sgl_mem_read(r, &d, 2, &m), 0);
	assert_int_equal(m.nr_hw_queues, 2);
	assert_int_equal(m.queue_depth, 128);
	assert_int_equal(m.max_segments, 254);
	assert_int_equal(m.nr_requests_total, 770);
	assert_true(m.estimated);
	assert_true(m.inline_assumed);
	assert_false(m.peak_known);
	assert_int_equal(m.full_prealloc_bytes, 770ULL * 254 * 32);
	assert_int_equal(m.inline_bytes, 770ULL * 2 * 32);
	assert_int_equal(m.saved_bytes, 770LL * 254 * 32 - 770LL * 2 * 32);
	assert_string_equal(m.scheduler, "mq-deadline");
	/* --stock-inline 4 */
	assert_int_equal(sgl_mem_read(r, &d, 4, &m), 0);
	assert_int_equal(m.inline_bytes, 770ULL * 4 * 32);
	/* vdb: no scheduler: 64 tags + 1 flush */
	assert_int_equal(sgl_disk_get(r, "vdb", &d), 0);
	assert_int_equal(sgl_mem_read(r, &d, 2, &m), 0);
	assert_int_equal(m.nr_requests_total, 65);
	assert_int_equal(m.full_prealloc_bytes, 65ULL * 126 * 32);
	assert_string_equal(m.scheduler, "none");
	/* our driver: straight from sgl/ */
	assert_int_equal(sgl_disk_get(r, "vsgla", &d), 0);
	assert_int_equal(sgl_mem_read(r, &d, 2, &m), 0);
	assert_true(m.peak_known);
	assert_false(m.estimated);
	assert_false(m.inline_assumed);
	assert_int_equal(m.nr_requests_total, 258);
	assert_int_equal(m.full_prealloc_bytes, 2096448);
	assert_int_equal(m.inline_bytes, 16512);
	assert_int_equal(m.peak_chained_bytes, 36864);
	assert_int_equal(m.saved_bytes, 2096448 - 16512 - 36864);
	assert_false(m.pdu_known);	/* older driver: no sgl/pdu_alloc_bytes */
	assert_false(m.pdu_saved_known);
}

/* What @print writes for @m, malloc'ed. */
static char *printed(void (*print)(FILE *, const struct sgl_mem_info *, int),
		     const struct sgl_mem_info *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	print(f, m, 1);
	fclose(f);
	return buf;
}

static void memory_pdu_alloc(void **state)
{
	struct sgl_disk_info d;
	struct sgl_mem_info m;
	const char *r = root("sys-pdu");
	char *buf;

	(void)state;
	assert_int_equal(sgl_disk_get(r, "vsglp", &d), 0);
	assert_int_equal(sgl_mem_read(r, &d, 2, &m), 0);
	assert_true(m.pdu_known);
	assert_true(m.pdu_saved_known);
	assert_int_equal(m.pdu_alloc_bytes, 132096);
	assert_int_equal(m.pdu_alloc_bytes_prealloc, 2457600);
	assert_int_equal(m.pdu_saved_bytes, 2457600 - 132096);
	/* the SG-entry figures are unchanged beside them */
	assert_int_equal(m.full_prealloc_bytes, 2096448);
	assert_int_equal(m.saved_bytes, 2096448 - 16512);
	buf = printed(sgl_mem_print_json, &m);
	assert_non_null(strstr(buf, "\"saved_bytes\":2079936,\"saved_is_upper_bound\":false,"
				   "\"pdu_alloc_bytes\":132096,\"pdu_alloc_bytes_prealloc\":2457600,"
				   "\"pdu_saved_bytes\":2325504}"));
	free(buf);
	buf = printed(sgl_mem_print_text, &m);
	assert_non_null(strstr(buf, "blk-mq request memory       132096 bytes"));
	assert_non_null(strstr(buf, "same, prealloc layout      2457600 bytes"));
	assert_non_null(strstr(buf, "real memory saved          2325504 bytes"));
	free(buf);

	/* prealloc layout not allocatable: no saving figure */
	assert_int_equal(sgl_disk_get(r, "vsglq", &d), 0);
	assert_int_equal(sgl_mem_read(r, &d, 2, &m), 0);
	assert_true(m.pdu_known);
	assert_false(m.pdu_saved_known);
	assert_int_equal(m.pdu_alloc_bytes_prealloc, 0);
	buf = printed(sgl_mem_print_json, &m);
	assert_non_null(strstr(buf, "\"pdu_alloc_bytes_prealloc\":0,\"pdu_saved_bytes\":null}"));
	free(buf);
	buf = printed(sgl_mem_print_text, &m);
	assert_non_null(strstr(buf, "n/a  (a request would not fit a 64 KiB block)"));
	assert_null(strstr(buf, "real memory saved"));
	free(buf);

	/* stock driver: null */
	assert_int_equal(sgl_disk_get(root("sys-a"), "vda", &d), 0);
	assert_int_equal(sgl_mem_read(root("sys-a"), &d, 2, &m), 0);
	buf = printed(sgl_mem_print_json, &m);
	assert_non_null(strstr(buf, "\"pdu_alloc_bytes\":null,\"pdu_alloc_bytes_prealloc\":null,"
				   "\"pdu_saved_bytes\":null}"));
	free(buf);
}

int main(void)
{
	const char *e = getenv("SGL_FIXTURES");
	char src[] = __FILE__;

	if (e)
		snprintf(fx, sizeof(fx), "%s", e);
	else
		snprintf(fx, sizeof(fx), "%s/fixtures", dirname(src));

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_dev),
		cmocka_unit_test(read_u64),
		cmocka_unit_test(kinds),
		cmocka_unit_test(scan),
		cmocka_unit_test(drv_sysfs),
		cmocka_unit_test(memory_figures),
		cmocka_unit_test(memory_pdu_alloc),
	};

	return SGL_RUN("unit_disks", tests);
}
