/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `sglstat tune --prometheus URL`: the instant query sent to a Prometheus
 * HTTP API, and a small HTTP/1.0 client for it (no TLS: a plain endpoint,
 * a local reverse proxy or a port-forward).  The pure parts (URL, range,
 * query, response) are separate from the socket I/O for the unit tests.
 */
#ifndef SGLSTAT_PROM_API_H
#define SGLSTAT_PROM_API_H

#include <stddef.h>

#define SGL_PROM_MAX_RESPONSE (256u << 20)	/* the query parser's bound */
#define SGL_HTTP_MAX_HEADER (64u << 10)	/* sgl_http_complete() looks no further */

struct sgl_prom_url {
	char host[256];		/* name, IPv4, or IPv6 without its brackets */
	char port[8];
	char prefix[512];	/* path before /api/v1/query, no trailing '/' */
};

/* http://HOST[:PORT][/PREFIX]: 0, or -EINVAL with a line in @err. */
int sgl_prom_url_parse(const char *url, struct sgl_prom_url *u, char *err, size_t errlen);
/*
 * A PromQL duration ("30m", "1h30m", "7d": units y w d h m s ms in that
 * order, each once), above 0 and at most 10y: 0 with *@secs, or -EINVAL.
 */
int sgl_prom_range_seconds(const char *s, double *secs);
/* The same: true if valid. */
int sgl_prom_range_valid(const char *s);
/* Label matchers for --prom-selector (no braces, quotes balanced). */
int sgl_prom_selector_valid(const char *s);
/* --at: unix seconds (with a fraction) or an RFC 3339 time (fields in range). */
int sgl_prom_time_valid(const char *s);
/* The tune query over @range, @sel ("" for none) in every selector. */
int sgl_prom_query(char *out, size_t n, const char *range, const char *sel);
/* The request target /PREFIX/api/v1/query?query=Q[&time=T], URL-encoded. */
int sgl_prom_target(char *out, size_t n, const struct sgl_prom_url *u, const char *query,
		    const char *at);
/*
 * Split an HTTP/1.x response: status code, body (within @buf).  A
 * Content-Length shorter than the body read cuts it; a longer one means
 * the response was cut: -EPROTO, as are a bad status line and no header end.
 */
int sgl_http_split(const char *buf, size_t len, int *status, const char **body, size_t *blen);
/*
 * Is the response in @buf complete by its Content-Length (header end within
 * SGL_HTTP_MAX_HEADER, all of the body there)?  0 without a Content-Length:
 * such a body ends when the server closes.
 */
int sgl_http_complete(const char *buf, size_t len);
/*
 * GET @target from @u with HTTP/1.0, @timeout_s for connect and each
 * read; the whole response in *@out (malloc'ed, NUL-terminated): up to the
 * end of its Content-Length, else to the server's close.  0, or a -errno
 * with a line in @err naming the host and port.  Built with SGL_NO_NSS (the
 * static builds), host names other than localhost are refused.
 */
int sgl_http_get(const struct sgl_prom_url *u, const char *target, int timeout_s, char **out,
		 size_t *len, char *err, size_t errlen);

#endif
