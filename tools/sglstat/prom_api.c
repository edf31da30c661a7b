// SPDX-License-Identifier: GPL-2.0
/* The Prometheus instant query of `sglstat tune --prometheus` (prom_api.h). */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
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

/*
 * Prometheus' own duration grammar (model.ParseDuration): [Ny][Nw][Nd][Nh][Nm][Ns][Nms],
 * each unit at most once and in that order; the total above 0 and at most 10y.
 */
int sgl_prom_range_seconds(const char *s, double *secs)
{
	static const struct { const char *u; double s; } units[] = {
		{ "y", 365 * 86400.0 }, { "w", 7 * 86400.0 }, { "d", 86400.0 }, { "h", 3600.0 },
		{ "ms", 0.001 }, { "m", 60.0 }, { "s", 1.0 },
	};
	/* the order the units must come in (ms is the last, though tried before m) */
	static const int rank[] = { 0, 1, 2, 3, 6, 4, 5 };
	double total = 0;
	int last = -1;

	while (*s) {
		size_t d = strspn(s, "0123456789"), i;
		double v = 0;

		if (!d || d > 12)
			return -EINVAL;
		for (i = 0; i < d; i++)
			v = v * 10 + (s[i] - '0');
		s += d;
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strncmp(s, units[i].u, strlen(units[i].u)))
				break;
		if (i == sizeof(units) / sizeof(units[0]) || rank[i] <= last)
			return -EINVAL;
		last = rank[i];
		s += strlen(units[i].u);
		total += v * units[i].s;
	}
	if (!(total > 0) || total > 10 * 365 * 86400.0)
		return -EINVAL;
	*secs = total;
	return 0;
}

int sgl_prom_range_valid(const char *s)
{
	double secs;

	return !sgl_prom_range_seconds(s, &secs);
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

/* @n digits at @s, within [lo, hi]: the value, or -1 */
static int field(const char *s, int n, int lo, int hi)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v < lo || v > hi ? -1 : v;
}

int sgl_prom_time_valid(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	size_t n = strlen(s);
	int y, mo, d;
	const char *p;

	if (!n || n > 40)
		return 0;
	if (strspn(s, "0123456789.") == n)
		return s[0] != '.' && s[n - 1] != '.' && strchr(s, '.') == strrchr(s, '.');
	/* RFC 3339 as Go parses it: 2026-12-07T10:00:00[.frac](Z|+hh:mm|-hh:mm) */
	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
		return 0;
	y = field(s, 4, 0, 9999);
	mo = field(s + 5, 2, 1, 12);
	d = field(s + 8, 2, 1, 31);
	if (y < 0 || mo < 0 || d < 0 || d > mdays[mo - 1] ||
	    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return 0;
	if (field(s + 11, 2, 0, 23) < 0 || field(s + 14, 2, 0, 59) < 0 || field(s + 17, 2, 0, 59) < 0)
		return 0;
	p = s + 19;
	if (*p == '.') {
		size_t f = strspn(p + 1, "0123456789");

		if (!f || f > 9)
			return 0;
		p += 1 + f;
	}
	if (*p == 'Z')
		return !p[1];
	return (*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':' &&
	       field(p + 1, 2, 0, 23) >= 0 && field(p + 4, 2, 0, 59) >= 0;
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

/* The end of the header block (after its blank line) within @max bytes, or NULL. */
static const char *header_end(const char *buf, size_t len, size_t max)
{
	const char *p;

	if (len > max)
		len = max;
	for (p = buf; p + 1 < buf + len; p++) {
		if (p[0] == '\n' && p[1] == '\n')
			return p + 2;
		if (p + 3 < buf + len && !memcmp(p, "\r\n\r\n", 4))
			return p + 4;
	}
	return NULL;
}

int sgl_http_split(const char *buf, size_t len, int *status, const char **body, size_t *blen)
{
	const char *hend;
	long long cl;
	size_t i, hl;

	if (len < 12 || memcmp(buf, "HTTP/1.", 7) || buf[8] != ' ')
		return -EPROTO;
	for (i = 9; i < 12; i++)
		if (buf[i] < '0' || buf[i] > '9')
			return -EPROTO;
	*status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	hend = header_end(buf, len, len);
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

int sgl_http_complete(const char *buf, size_t len)
{
	const char *hend = header_end(buf, len, SGL_HTTP_MAX_HEADER);
	long long cl;

	if (!hend)
		return 0;
	cl = content_length(buf, hend);
	return cl >= 0 && len - (size_t)(hend - buf) >= (size_t)cl;
}

/* "host:port", an IPv6 address in brackets */
static void hostport(const struct sgl_prom_url *u, char *b, size_t n)
{
	if (strchr(u->host, ':'))
		snprintf(b, n, "[%s]:%s", u->host, u->port);
	else
		snprintf(b, n, "%s:%s", u->host, u->port);
}

#ifdef SGL_NO_NSS
/*
 * The static builds: glibc's getaddrinfo() there needs the NSS modules of
 * the very glibc it was linked with at run time (and says so at link
 * time), so they take IP addresses and "localhost" only.
 */
static int resolve(const struct sgl_prom_url *u, struct addrinfo **res, char *err, size_t errlen)
{
	static struct sockaddr_in6 a6;
	static struct sockaddr_in a4;
	static struct addrinfo ai;
	const char *h = strcmp(u->host, "localhost") ? u->host : "127.0.0.1";
	char hp[300];

	memset(&ai, 0, sizeof(ai));
	ai.ai_socktype = SOCK_STREAM;
	if (inet_pton(AF_INET, h, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((unsigned short)atoi(u->port));
		ai.ai_family = AF_INET;
		ai.ai_addr = (struct sockaddr *)&a4;
		ai.ai_addrlen = sizeof(a4);
	} else if (inet_pton(AF_INET6, h, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((unsigned short)atoi(u->port));
		ai.ai_family = AF_INET6;
		ai.ai_addr = (struct sockaddr *)&a6;
		ai.ai_addrlen = sizeof(a6);
	} else {
		hostport(u, hp, sizeof(hp));
		ERR("%s: this static sglstat resolves no host names: give an IP address (or run the dynamically linked sglstat)",
		    hp);
		return -EHOSTUNREACH;
	}
	*res = &ai;
	return 0;
}

static void resolved_free(struct addrinfo *res)
{
	(void)res;
}
#else
static int resolve(const struct sgl_prom_url *u, struct addrinfo **res, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	char hp[300];
	int e = getaddrinfo(u->host, u->port, &hints, res);

	if (e) {
		hostport(u, hp, sizeof(hp));
		ERR("%s: %s", hp, gai_strerror(e));
		return -EHOSTUNREACH;
	}
	return 0;
}

static void resolved_free(struct addrinfo *res)
{
	freeaddrinfo(res);
}
#endif

static int dial(const struct sgl_prom_url *u, int timeout_s, char *err, size_t errlen)
{
	struct addrinfo *res, *ai;
	struct timeval tv = { .tv_sec = timeout_s };
	int fd = -1, e, saved = ECONNREFUSED;
	char hp[300];

	e = resolve(u, &res, err, errlen);
	if (e)
		return e;
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
	resolved_free(res);
	if (fd < 0) {
		hostport(u, hp, sizeof(hp));
		ERR("%s: %s", hp, strerror(saved));
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
	char hp[300];

	*out = NULL;
	*len = 0;
	hostport(u, hp, sizeof(hp));
	fd = dial(u, timeout_s, err, errlen);
	if (fd < 0)
		return fd;
	rl = asprintf(&req, "GET %s HTTP/1.0\r\nHost: %s\r\nAccept: application/json\r\n"
		      "User-Agent: sglstat\r\nConnection: close\r\n\r\n", target, hp);
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
			ERR("%s: sending the query: %s", hp, strerror(-e));
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
				ERR("%s: the response is larger than %u MiB", hp, SGL_PROM_MAX_RESPONSE >> 20);
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
		if (r < 0 && errno == EAGAIN) {
			e = -ETIMEDOUT;
			ERR("%s: no answer within %d s (--prom-timeout)", hp, timeout_s);
			goto out;
		}
		if (r < 0) {
			e = -errno;
			ERR("%s: reading the response: %s", hp, strerror(-e));
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
		/* all of a Content-Length: done, whether or not the server closes */
		if (sgl_http_complete(buf, n))
			break;
	}
	if (!n) {
		e = -EPROTO;
		ERR("%s: closed the connection without a response", hp);
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
