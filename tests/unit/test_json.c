// SPDX-License-Identifier: GPL-2.0
/* expect-results: 4 (tests/unit/run fails this test with fewer result lines) */
/* JSON escaping and the JSON report's shape. */
#include "tap.h"
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "report.h"

static char *json_of(const char *s)
{
	static char buf[4096];

	sgl_json_escape(buf, sizeof(buf), s);
	return buf;
}

static void escape_cases(void **state)
{
	(void)state;
	assert_string_equal(json_of("vda"), "\"vda\"");
	assert_string_equal(json_of(""), "\"\"");
	assert_string_equal(json_of("a\"b"), "\"a\\\"b\"");
	assert_string_equal(json_of("a\\b"), "\"a\\\\b\"");
	assert_string_equal(json_of("l1\nl2\r\t"), "\"l1\\nl2\\r\\t\"");
	assert_string_equal(json_of("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
	assert_string_equal(json_of("\b\f"), "\"\\b\\f\"");
	assert_string_equal(json_of("caf\xc3\xa9"), "\"caf\xc3\xa9\"");	/* UTF-8 kept */
	assert_string_equal(json_of("/"), "\"/\"");
}

static void escape_truncation(void **state)
{
	char small[6];
	size_t n;

	(void)state;
	n = sgl_json_escape(small, sizeof(small), "abcdefgh");
	assert_int_equal(n, 10);		/* needed length without NUL */
	assert_int_equal(strlen(small), 5);	/* terminated within the buffer */
	assert_memory_equal(small, "\"abcd", 5);
}

static void json_str_long(void **state)
{
	char in[600], *out = NULL, expect[2048];
	size_t len = 0;
	FILE *f;

	(void)state;
	for (int i = 0; i < 599; i++)
		in[i] = i % 7 == 0 ? '"' : 'a' + i % 26;
	in[599] = 0;
	f = open_memstream(&out, &len);
	sgl_json_str(f, in);
	fclose(f);
	sgl_json_escape(expect, sizeof(expect), in);
	assert_string_equal(out, expect);
	free(out);
}

/* count of c in s, outside of strings */
static int depth_ok(const char *s)
{
	int depth = 0, in_str = 0;

	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\')
				s++;
			else if (*s == '"')
				in_str = 0;
			continue;
		}
		if (*s == '"')
			in_str = 1;
		else if (*s == '{' || *s == '[')
			depth++;
		else if (*s == '}' || *s == ']')
			if (--depth < 0)
				return 0;
	}
	return depth == 0 && !in_str;
}

static void report_shape(void **state)
{
	static struct sgl_snapshot snap;
	struct sgl_report_opts o = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(&snap, 0, sizeof(snap));
	snap.mode = SGL_MODE_STOCK;
	snap.nr_disks = 1;
	snap.seq = 3;
	snap.interval_s = 1;
	strcpy(snap.disk[0].name, "v\"da");
	snap.disk[0].major = 254;
	snap.disk[0].kind = SGL_DISK_VIRTIO_BLK;
	snap.disk[0].present = true;
	snap.disk[0].inline_cnt = 2;
	snap.disk[0].inline_assumed = true;
	snap.disk[0].delta[SGL_OP_READ].c.requests = 5;
	snap.disk[0].delta[SGL_OP_READ].seg[1] = 4;
	snap.disk[0].delta[SGL_OP_READ].seg[130] = 1;
	snap.disk[0].delta[SGL_OP_READ].lat[0][10] = 5;
	snap.disk[0].cum[SGL_OP_READ].c.requests = 50;
	snap.disk[0].delta[SGL_OP_WRITE].c.requests = 2;
	f = open_memstream(&out, &len);
	sgl_report_json(f, &snap, &o);
	fclose(f);
	assert_true(depth_ok(out));
	assert_int_equal(out[len - 1], '\n');
	assert_null(strchr(out, '\n') == out + len - 1 ? NULL : "embedded newline");
	assert_non_null(strstr(out, "\"name\":\"v\\\"da\""));
	assert_non_null(strstr(out, "\"seq\":3"));
	assert_non_null(strstr(out, "\"total\":{\"requests\":7,"));
	assert_non_null(strstr(out, "\"read\":{\"requests\":5,"));
	assert_non_null(strstr(out, "\"seg_hist\":[[1,4]]"));
	assert_non_null(strstr(out, "\"seg_hist_log2\":[[256,512,1]]"));
	assert_non_null(strstr(out, "\"hist\":[[512,1024,5]],\"p50\":768.0"));
	assert_non_null(strstr(out, "\"alloc_failures\":null"));	/* stock: unknown */
	assert_non_null(strstr(out, "\"setup_ns\":null"));
	free(out);

	/* cumulative picks cum[] */
	o.cumulative = true;
	out = NULL;
	f = open_memstream(&out, &len);
	sgl_report_json(f, &snap, &o);
	fclose(f);
	assert_non_null(strstr(out, "\"read\":{\"requests\":50,"));
	assert_non_null(strstr(out, "\"cumulative\":true"));
	free(out);

	/* driver mode: failures are known numbers */
	o.cumulative = false;
	snap.mode = SGL_MODE_DRIVER;
	snap.failures_known = true;
	snap.disk[0].delta[SGL_OP_READ].c.alloc_failures = 9;
	out = NULL;
	f = open_memstream(&out, &len);
	sgl_report_json(f, &snap, &o);
	fclose(f);
	assert_non_null(strstr(out, "\"alloc_failures\":9,"));
	assert_true(depth_ok(out));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape_cases),
		cmocka_unit_test(escape_truncation),
		cmocka_unit_test(json_str_long),
		cmocka_unit_test(report_shape),
	};

	return SGL_RUN("unit_json", tests);
}
