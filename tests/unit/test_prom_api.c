// SPDX-License-Identifier: GPL-2.0
/* expect-results: 8 (tests/unit/run fails this test with fewer result lines) */
/* Unit tests of `sglstat tune --prometheus`'s URL, query and HTTP parsing (prom_api.c). */
#include "tap.h"
#include <errno.h>
#include <string.h>
#include "prom_api.h"

static void url_ok(const char *url, const char *host, const char *port, const char *prefix)
{
	struct sgl_prom_url u;
	char err[256] = "";

	assert_int_equal(sgl_prom_url_parse(url, &u, err, sizeof(err)), 0);
	assert_string_equal(u.host, host);
	assert_string_equal(u.port, port);
	assert_string_equal(u.prefix, prefix);
}

static void url_bad(const char *url, const char *why)
{
	struct sgl_prom_url u;
	char err[256] = "";

	assert_int_equal(sgl_prom_url_parse(url, &u, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, why));
}

static void urls(void **state)
{
	(void)state;
	url_ok("http://prom:9090", "prom", "9090", "");
	url_ok("http://prom:9090/", "prom", "9090", "");
	url_ok("http://prom", "prom", "80", "");
	url_ok("http://10.0.0.1:9090/prometheus//", "10.0.0.1", "9090", "/prometheus");
	url_ok("http://[::1]:9090", "::1", "9090", "");
	url_ok("http://[fe80::1]/p", "fe80::1", "80", "/p");
	url_bad("https://prom:9090", "https is not supported");
	url_bad("prom:9090", "not an http:// URL");
	url_bad("http://", "no host");
	url_bad("http://:9090", "no host");
	url_bad("http://prom:0", "bad port");
	url_bad("http://prom:65536", "bad port");
	url_bad("http://prom:99999999999999999999", "bad port");
	url_bad("http://prom:90x", "bad port");
	url_bad("http://prom:", "bad port");
	url_bad("http://[::1", "bad IPv6");
	url_bad("http://[::1]x", "after the host");
	url_bad("http://prom:9090?x=1", "query or fragment");
}

static void ranges_times_selectors(void **state)
{
	(void)state;
	assert_true(sgl_prom_range_valid("7d"));
	assert_true(sgl_prom_range_valid("1h30m"));
	assert_true(sgl_prom_range_valid("500ms"));
	assert_true(sgl_prom_range_valid("93s"));
	assert_false(sgl_prom_range_valid(""));
	assert_false(sgl_prom_range_valid("7"));
	assert_false(sgl_prom_range_valid("d"));
	assert_false(sgl_prom_range_valid("7days"));
	assert_false(sgl_prom_range_valid("-1h"));
	assert_false(sgl_prom_range_valid("1h]"));
	assert_true(sgl_prom_time_valid("1796641285"));
	assert_true(sgl_prom_time_valid("1796641285.25"));
	assert_true(sgl_prom_time_valid("2026-12-07T10:00:00Z"));
	assert_true(sgl_prom_time_valid("2026-12-07T10:00:00.5+01:00"));
	assert_false(sgl_prom_time_valid(""));
	assert_false(sgl_prom_time_valid("1.2.3"));
	assert_false(sgl_prom_time_valid("now"));
	assert_false(sgl_prom_time_valid("2026-12-07"));
	assert_true(sgl_prom_selector_valid("job=\"node\""));
	assert_true(sgl_prom_selector_valid("job=\"a,b\",env=~\"p\\\"x}\""));
	assert_false(sgl_prom_selector_valid(""));
	assert_false(sgl_prom_selector_valid("job=\"node"));
	assert_false(sgl_prom_selector_valid("{job=\"node\"}"));
	assert_false(sgl_prom_selector_valid("job=\"a\"}[5m]) or {x=\"y\""));
}

static void queries(void **state)
{
	char q[1024], t[4096];
	struct sgl_prom_url u;
	char err[64];

	(void)state;
	assert_int_equal(sgl_prom_query(q, sizeof(q), "7d", NULL), 0);
	assert_string_equal(q, "sum without (op) (increase(virtio_blk_sgl_segments_bucket{}[7d])) or "
			       "{__name__=~\"virtio_blk_sgl_(max_segments|preallocated_requests|inline_sg_entries)\"}");
	assert_int_equal(sgl_prom_query(q, sizeof(q), "2h", "job=\"fleet\""), 0);
	assert_string_equal(q, "sum without (op) (increase(virtio_blk_sgl_segments_bucket{job=\"fleet\"}[2h])) or "
			       "{__name__=~\"virtio_blk_sgl_(max_segments|preallocated_requests|inline_sg_entries)\",job=\"fleet\"}");
	assert_int_equal(sgl_prom_query(q, 40, "2h", NULL), -E2BIG);
	assert_int_equal(sgl_prom_url_parse("http://p:1/pre", &u, err, sizeof(err)), 0);
	assert_int_equal(sgl_prom_target(t, sizeof(t), &u, "a b{c=\"d\"}", "1.5"), 0);
	assert_string_equal(t, "/pre/api/v1/query?query=a%20b%7Bc%3D%22d%22%7D&time=1.5");
	assert_int_equal(sgl_prom_target(t, sizeof(t), &u, "x", NULL), 0);
	assert_string_equal(t, "/pre/api/v1/query?query=x");
	assert_int_equal(sgl_prom_target(t, 30, &u, "a b c d e f g h", NULL), -E2BIG);
}

static void split_is(const char *resp, int want_status, const char *want_body)
{
	const char *body;
	size_t blen;
	int status;

	assert_int_equal(sgl_http_split(resp, strlen(resp), &status, &body, &blen), 0);
	assert_int_equal(status, want_status);
	assert_int_equal(blen, strlen(want_body));
	assert_memory_equal(body, want_body, blen);
}

static void responses(void **state)
{
	const char *body;
	size_t blen;
	int status;

	(void)state;
	split_is("HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}", 200, "{\"a\":1}");
	split_is("HTTP/1.1 400 Bad Request\r\ncontent-length: 3\r\n\r\nabcdef", 400, "abc");
	split_is("HTTP/1.1 200 OK\r\nContent-Length:0\r\n\r\n", 200, "");
	split_is("HTTP/1.0 404 Not Found\n\nnope", 404, "nope");
	/* cut short, no header end, not HTTP, a bad or huge length */
	assert_int_equal(sgl_http_split("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 44, &status, &body, &blen), -EPROTO);
	assert_int_equal(sgl_http_split("HTTP/1.1 200 OK\r\nX: y\r\n", 23, &status, &body, &blen), -EPROTO);
	assert_int_equal(sgl_http_split("SSH-2.0-OpenSSH_9.2\r\n\r\n", 23, &status, &body, &blen), -EPROTO);
	assert_int_equal(sgl_http_split("HTTP/1.1 2x0 OK\r\n\r\n", 19, &status, &body, &blen), -EPROTO);
	assert_int_equal(sgl_http_split("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", 38, &status, &body, &blen), -EPROTO);
	assert_int_equal(sgl_http_split("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", 48, &status, &body, &blen), -EPROTO);
	assert_int_equal(sgl_http_split("HTTP/1", 6, &status, &body, &blen), -EPROTO);
}

static void refused(void **state)
{
	struct sgl_prom_url u;
	char err[256] = "", *out = (char *)1;
	size_t len = 1;

	(void)state;
	/* port 1 on the loopback: nothing listens there */
	assert_int_equal(sgl_prom_url_parse("http://127.0.0.1:1", &u, err, sizeof(err)), 0);
	assert_int_equal(sgl_http_get(&u, "/", 5, &out, &len, err, sizeof(err)), -ECONNREFUSED);
	assert_null(out);
	assert_non_null(strstr(err, "127.0.0.1:1: Connection refused"));
}

/* the grammar Prometheus parses (units in order, each once, above 0), in seconds */
static void range_seconds(void **state)
{
	static const char *const bad[] = {
		"0s", "0d0h", "1s1s", "5m1h", "1ms1s", "7days", "11y", "1.5h", "h", "1 h", "9999999999999s",
	};
	unsigned int i;
	double s = -1;

	(void)state;
	assert_int_equal(sgl_prom_range_seconds("7d", &s), 0);
	assert_true(s == 604800);
	assert_int_equal(sgl_prom_range_seconds("1h30m", &s), 0);
	assert_true(s == 5400);
	assert_int_equal(sgl_prom_range_seconds("1m500ms", &s), 0);
	assert_true(s > 60.49 && s < 60.51);
	assert_int_equal(sgl_prom_range_seconds("2w1d", &s), 0);
	assert_true(s == 15 * 86400);
	assert_int_equal(sgl_prom_range_seconds("10y", &s), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		s = -1;
		assert_int_equal(sgl_prom_range_seconds(bad[i], &s), -EINVAL);
		assert_true(s == -1);
		assert_false(sgl_prom_range_valid(bad[i]));
	}
}

/* RFC 3339 fields in range (Go's time.Parse), unix seconds without a dangling point */
static void times_strict(void **state)
{
	static const char *const good[] = {
		"2024-02-29T00:00:00Z", "2026-12-31T23:59:59.999999999Z", "2026-01-01T00:00:00-05:30", "0",
	};
	static const char *const bad[] = {
		"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z", "2026-12-07T24:00:00Z", "2026-12-07T10:60:00Z", "2026-12-07T10:00:60Z",
		"2026-12-07T10:00:00", "2026-12-07T10:00:00.Z", "2026-12-07T10:00:00+0100", "2026-12-07t10:00:00z",
		"2026-12-07T10:00:00ZZ", "2026-12-07 10:00:00Z", "5.", ".5",
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(sgl_prom_time_valid(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(sgl_prom_time_valid(bad[i]));
}

/* done reading once a Content-Length is all there; without one only at the close */
static void complete_by_length(void **state)
{
	static const char full[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
	char big[SGL_HTTP_MAX_HEADER + 64];

	(void)state;
	assert_true(sgl_http_complete(full, strlen(full)));
	assert_false(sgl_http_complete(full, strlen(full) - 1));
	assert_false(sgl_http_complete("HTTP/1.0 200 OK\r\n\r\n{}", 21));
	assert_true(sgl_http_complete("HTTP/1.0 204 No Content\nContent-Length: 0\n\n", 44));
	assert_false(sgl_http_complete("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n", 37));
	assert_false(sgl_http_complete("HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nabc", 41));
	/* a header end past the first 64 KiB is not looked for */
	memset(big, 'x', sizeof(big));
	memcpy(big, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: ", 40);
	memcpy(big + sizeof(big) - 4, "\r\n\r\n", 4);
	assert_false(sgl_http_complete(big, sizeof(big)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(urls),
		cmocka_unit_test(ranges_times_selectors),
		cmocka_unit_test(queries),
		cmocka_unit_test(responses),
		cmocka_unit_test(refused),
		cmocka_unit_test(range_seconds),
		cmocka_unit_test(times_strict),
		cmocka_unit_test(complete_by_length),
	};

	return SGL_RUN("unit_prom_api", tests);
}
