// SPDX-License-Identifier: GPL-2.0
/* The Prometheus instant query of `sglstat tune --prometheus` (prom_api.h). */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include "prom_api.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

int sgl_prom_url_parse(const char *url, struct sgl_prom_url *u, char *err, size_t errlen)
{
	const char *h, *end, *p;
	size_t hl, pl;

	memset(u, 0, sizeof(*u));
	if (!strncmp(url, "https://", 8)) {
		ERR("https is not supported: give an http:// endpoint (a local reverse proxy or port-forward)");
		return -EINVAL;
	}
	if (strncmp(url, "http://", 7)) {
		ERR("not an http:// URL (e.g. http://prometheus:9090)");
		return -EINVAL;
	}
	h = url + 7;
	end = h + strcspn(h, "/?#");
	if (*end == '?' || *end == '#') {
		ERR("a query or fragment in the URL: give the server's base URL only");
		return -EINVAL;
	}
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(end - h));

		if (!rb || rb == h + 1) {
			ERR("bad IPv6 literal (e.g. http://[::1]:9090)");
			return -EINVAL;
		}
		hl = (size_t)(rb - h - 1);
		p = rb + 1;
		h++;
	} else {
		p = memchr(h, ':', (size_t)(end - h));
		if (!p)
			p = end;
		hl = (size_t)(p - h);
	}
	if (!hl || hl >= sizeof(u->host)) {
		ERR("no host in the URL (e.g. http://prometheus:9090)");
		return -EINVAL;
	}
	memcpy(u->host, h, hl);
	if (p < end && *p == ':') {
		const char *q;
		long port = 0;

		for (q = p + 1; q < end; q++) {
			if (*q < '0' || *q > '9' || port > 65535) {
				port = -1;
				break;
			}
			port = port * 10 + (*q - '0');
		}
		if (q == p + 1 || port < 1 || port > 65535) {
			ERR("bad port in the URL (1..65535)");
			return -EINVAL;
		}
		snprintf(u->port, sizeof(u->port), "%ld", port);
	} else if (p != end) {
		ERR("unexpected text after the host in the URL");
		return -EINVAL;
	} else {
		snprintf(u->port, sizeof(u->port), "80");
	}
	pl = strlen(end);
	while (pl && end[pl - 1] == '/')
		pl--;
	if (pl >= sizeof(u->prefix)) {
		ERR("URL path too long");
		return -EINVAL;
	}
	memcpy(u->prefix, end, pl);
	return 0;
}

int sgl_prom_range_valid(const char *s)
{
	static const char *const units[] = { "ms", "s", "m", "h", "d", "w", "y" };
	int parts = 0;

	while (*s) {
		size_t i, d = strspn(s, "0123456789"), ul = 0;

		if (!d)
			return 0;
		s += d;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			size_t l = strlen(units[i]);

			if (!strncmp(s, units[i], l) && l > ul)
				ul = l;
		}
		if (!ul)
			return 0;
		s += ul;
		parts++;
	}
	return parts > 0;
}

int sgl_prom_selector_valid(const char *s)
{
	int in = 0;

	if (!*s)
		return 0;
	for (; *s; s++) {
		if (in && *s == '\\' && s[1]) {
			s++;
			continue;
		}
		if (*s == '"')
			in = !in;
		else if (!in && (*s == '{' || *s == '}' || *s == '\n'))
			return 0;
	}
	return !in;
}

int sgl_prom_time_valid(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 40)
		return 0;
	if (strspn(s, "0123456789.") == n)
		return s[0] != '.' && strchr(s, '.') == strrchr(s, '.');
	/* RFC 3339: 2026-12-07T10:00:00Z, with a fraction or an offset */
	return n >= 20 && strspn(s, "0123456789-:T.Z+") == n && s[4] == '-' && s[10] == 'T';
}

int sgl_prom_query(char *out, size_t n, const char *range, const char *sel)
{
	const char *c = sel && *sel ? "," : "";
	int w;

	if (!sel)
		sel = "";
	/*
	 * The gauges in one selector: "a or b" drops b's series whose labels
	 * (without the name) a has, and the three gauges share their labels.
	 */
	w = snprintf(out, n,
		     "sum without (op) (increase(virtio_blk_sgl_segments_bucket{%s}[%s])) or "
		     "{__name__=~\"virtio_blk_sgl_(max_segments|preallocated_requests|inline_sg_entries)\"%s%s}",
		     sel, range, c, sel);
	return w < 0 || (size_t)w >= n ? -E2BIG : 0;
}

static int put_enc(char **o, char *end, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~') {
			if (end - *o < 2)
				return -E2BIG;
			*(*o)++ = (char)ch;
		} else {
			if (end - *o < 4)
				return -E2BIG;
			*(*o)++ = '%';
			*(*o)++ = hex[ch >> 4];
			*(*o)++ = hex[ch & 15];
		}
	}
	**o = 0;
	return 0;
}

int sgl_prom_target(char *out, size_t n, const struct sgl_prom_url *u, const char *query,
		    const char *at)
{
	char *o = out, *end = out + n;
	int w = snprintf(out, n, "%s/api/v1/query?query=", u->prefix);

	if (w < 0 || (size_t)w >= n)
		return -E2BIG;
	o += w;
	if (put_enc(&o, end, query))
		return -E2BIG;
	if (at && *at) {
		if (end - o < 7)
			return -E2BIG;
		memcpy(o, "&time=", 7);
		o += 6;
		if (put_enc(&o, end, at))
			return -E2BIG;
	}
	return 0;
}

/* Content-Length of the header block [h, hend), or -1 if none (or bad). */
static long long content_length(const char *h, const char *hend)
{
	static const char name[] = "content-length:";

	while (h < hend) {
		const char *eol = memchr(h, '\n', (size_t)(hend - h));
		size_t i;

		if (!eol)
			eol = hend;
		if ((size_t)(eol - h) > sizeof(name) - 1) {
			for (i = 0; i < sizeof(name) - 1; i++)
				if ((h[i] | 0x20) != name[i])
					break;
			if (i == sizeof(name) - 1) {
				const char *p = h + i;
				long long v = 0;

				while (p < eol && (*p == ' ' || *p == '\t'))
					p++;
				if (p == eol || *p < '0' || *p > '9')
					return -2;
				for (; p < eol && *p >= '0' && *p <= '9'; p++) {
					v = v * 10 + (*p - '0');
					if (v > (long long)SGL_PROM_MAX_RESPONSE)
						return -2;
				}
				return v;
			}
		}
		h = eol + 1;
	}
	return -1;
}

int sgl_http_split(const char *buf, size_t len, int *status, const char **body, size_t *blen)
{
	const char *hend = NULL, *p;
	long long cl;
	size_t i, hl;

	if (len < 12 || memcmp(buf, "HTTP/1.", 7) || buf[8] != ' ')
		return -EPROTO;
	for (i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -EPROTO;
	*status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	for (p = buf; p + 1 < buf + len; p++) {
		if (p[0] == '\n' && p[1] == '\n') {
			hend = p + 2;
			break;
		}
		if (p + 3 < buf + len && !memcmp(p, "\r\n\r\n", 4)) {
			hend = p + 4;
			break;
		}
	}
	if (!hend)
		return -EPROTO;
	hl = (size_t)(hend - buf);
	*body = hend;
	*blen = len - hl;
	cl = content_length(buf, hend);
	if (cl == -2)
		return -EPROTO;
	if (cl >= 0) {
		if ((size_t)cl > *blen)
			return -EPROTO;
		*blen = (size_t)cl;
	}
	return 0;
}

static int dial(const struct sgl_prom_url *u, int timeout_s, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	struct timeval tv = { .tv_sec = timeout_s };
	int fd = -1, e, saved = ECONNREFUSED;

	e = getaddrinfo(u->host, u->port, &hints, &res);
	if (e) {
		ERR("%s:%s: %s", u->host, u->port, gai_strerror(e));
		return -EHOSTUNREACH;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		/* SO_SNDTIMEO bounds connect() too */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		saved = errno == EINPROGRESS ? ETIMEDOUT : errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		ERR("%s:%s: %s", u->host, u->port, strerror(saved));
		return -saved;
	}
	return fd;
}

int sgl_http_get(const struct sgl_prom_url *u, const char *target, int timeout_s, char **out,
		 size_t *len, char *err, size_t errlen)
{
	char *req = NULL, *buf = NULL;
	size_t cap = 0, n = 0, off = 0;
	int fd, e = 0, rl;
	const char *br = strchr(u->host, ':') ? "[" : "", *bc = *br ? "]" : "";

	*out = NULL;
	*len = 0;
	fd = dial(u, timeout_s, err, errlen);
	if (fd < 0)
		return fd;
	rl = asprintf(&req, "GET %s HTTP/1.0\r\nHost: %s%s%s:%s\r\nAccept: application/json\r\n"
		      "User-Agent: sglstat\r\nConnection: close\r\n\r\n", target, br, u->host, bc, u->port);
	if (rl < 0) {
		req = NULL;
		e = -ENOMEM;
		ERR("out of memory");
		goto out;
	}
	while (off < (size_t)rl) {
		ssize_t w = send(fd, req + off, (size_t)rl - off, MSG_NOSIGNAL);

		if (w < 0) {
			e = errno == EAGAIN ? -ETIMEDOUT : -errno;
			ERR("%s:%s: sending the query: %s", u->host, u->port, strerror(-e));
			goto out;
		}
		off += (size_t)w;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 65536) {
			char *nb;

			if (cap >= SGL_PROM_MAX_RESPONSE) {
				e = -EFBIG;
				ERR("%s:%s: the response is larger than %u MiB", u->host, u->port,
				    SGL_PROM_MAX_RESPONSE >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : 262144;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				e = -ENOMEM;
				ERR("out of memory");
				goto out;
			}
			buf = nb;
		}
		r = recv(fd, buf + n, cap - n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno == EAGAIN ? -ETIMEDOUT : -errno;
			ERR("%s:%s: reading the response: %s", u->host, u->port, strerror(-e));
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (!buf) {
		e = -EPROTO;
		ERR("%s:%s: closed the connection without a response", u->host, u->port);
		goto out;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	free(req);
	close(fd);
	return e;
}
