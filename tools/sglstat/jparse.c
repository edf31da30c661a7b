// SPDX-License-Identifier: GPL-2.0
/* Bounded JSON reader: see jparse.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jparse.h"

/* Documents larger than this are refused (a capture line, a query result). */
#define SGL_JSON_MAX_LEN	(256u << 20)

struct jp {
	const char *s;
	size_t len, pos;
	struct sgl_jdoc *d;
	char *err;
	size_t errlen;
	int rc;
};

static int fail(struct jp *p, const char *what)
{
	if (!p->rc) {
		p->rc = -EINVAL;
		if (p->errlen)
			snprintf(p->err, p->errlen, "%s at byte %zu", what, p->pos);
	}
	return p->rc;
}

static int nomem(struct jp *p)
{
	if (!p->rc) {
		p->rc = -ENOMEM;
		if (p->errlen)
			snprintf(p->err, p->errlen, "out of memory at byte %zu", p->pos);
	}
	return p->rc;
}

static void ws(struct jp *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			break;
		p->pos++;
	}
}

static int new_value(struct jp *p, enum sgl_jtype t)
{
	struct sgl_jdoc *d = p->d;

	if (d->nv == d->capv) {
		int cap = d->capv ? d->capv * 2 : 64;
		struct sgl_jv *nv;

		if (cap < d->capv || (size_t)cap > p->len + 1)
			cap = (int)(p->len + 1);
		if (cap <= d->nv)
			return nomem(p);
		nv = realloc(d->v, (size_t)cap * sizeof(*nv));
		if (!nv)
			return nomem(p);
		d->v = nv;
		d->capv = cap;
	}
	memset(&d->v[d->nv], 0, sizeof(d->v[0]));
	d->v[d->nv].type = t;
	d->v[d->nv].next = -1;
	d->v[d->nv].child = -1;
	return d->nv++;
}

static int put_byte(struct jp *p, char c)
{
	struct sgl_jdoc *d = p->d;

	/* decoded strings never exceed the input: capstrs = len + 1 */
	if (d->nstrs >= d->capstrs)
		return nomem(p);
	d->strs[d->nstrs++] = c;
	return 0;
}

static int hex4(struct jp *p, unsigned int *out)
{
	unsigned int v = 0;
	int i;

	if (p->len - p->pos < 4)
		return fail(p, "truncated \\u escape");
	for (i = 0; i < 4; i++) {
		char c = p->s[p->pos + i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned int)(c - 'A' + 10);
		else
			return fail(p, "bad hex digit in \\u escape");
	}
	p->pos += 4;
	*out = v;
	return 0;
}

/* Encode @cp as UTF-8 (at most 4 bytes; a \uXXXX escape is 6 input bytes). */
static int put_utf8(struct jp *p, unsigned int cp)
{
	int e = 0;

	if (cp < 0x80)
		return put_byte(p, (char)cp);
	if (cp < 0x800) {
		e |= put_byte(p, (char)(0xc0 | (cp >> 6)));
	} else if (cp < 0x10000) {
		e |= put_byte(p, (char)(0xe0 | (cp >> 12)));
		e |= put_byte(p, (char)(0x80 | ((cp >> 6) & 0x3f)));
	} else {
		e |= put_byte(p, (char)(0xf0 | (cp >> 18)));
		e |= put_byte(p, (char)(0x80 | ((cp >> 12) & 0x3f)));
		e |= put_byte(p, (char)(0x80 | ((cp >> 6) & 0x3f)));
	}
	e |= put_byte(p, (char)(0x80 | (cp & 0x3f)));
	return e ? p->rc : 0;
}

/* A string at p->pos (the opening quote); returns its offset in strs or -1. */
static long parse_string(struct jp *p)
{
	size_t start = p->d->nstrs;

	p->pos++;	/* " */
	for (;;) {
		unsigned char c;

		if (p->pos >= p->len)
			return fail(p, "unterminated string"), -1;
		c = (unsigned char)p->s[p->pos++];
		if (c == '"')
			break;
		if (c < 0x20)
			return p->pos--, fail(p, "control character in string"), -1;
		if (c != '\\') {
			if (put_byte(p, (char)c))
				return -1;
			continue;
		}
		if (p->pos >= p->len)
			return fail(p, "unterminated escape"), -1;
		c = (unsigned char)p->s[p->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			if (put_byte(p, (char)c))
				return -1;
			break;
		case 'b': if (put_byte(p, '\b')) return -1; break;
		case 'f': if (put_byte(p, '\f')) return -1; break;
		case 'n': if (put_byte(p, '\n')) return -1; break;
		case 'r': if (put_byte(p, '\r')) return -1; break;
		case 't': if (put_byte(p, '\t')) return -1; break;
		case 'u': {
			unsigned int cp, lo;

			if (hex4(p, &cp))
				return -1;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (p->len - p->pos < 6 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
					return fail(p, "lone surrogate in \\u escape"), -1;
				p->pos += 2;
				if (hex4(p, &lo))
					return -1;
				if (lo < 0xdc00 || lo > 0xdfff)
					return fail(p, "bad surrogate pair in \\u escape"), -1;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				return fail(p, "lone surrogate in \\u escape"), -1;
			}
			if (!cp)
				return fail(p, "\\u0000 in string"), -1;
			if (put_utf8(p, cp))
				return -1;
			break;
		}
		default:
			p->pos--;
			return fail(p, "bad escape in string"), -1;
		}
	}
	if (put_byte(p, 0))
		return -1;
	return (long)start;
}

static int parse_number(struct jp *p, struct sgl_jv *v)
{
	size_t st = p->pos, n;
	bool integer = true, neg = false;
	char buf[64];
	__u64 u = 0;
	bool ovf = false;

	if (p->pos < p->len && p->s[p->pos] == '-') {
		neg = true;
		p->pos++;
	}
	if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
		return fail(p, "bad number");
	if (p->s[p->pos] == '0') {
		p->pos++;
	} else {
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
			unsigned int dgt = (unsigned int)(p->s[p->pos] - '0');

			if (u > (~0ULL - dgt) / 10)
				ovf = true;
			else
				u = u * 10 + dgt;
			p->pos++;
		}
	}
	if (p->pos < p->len && p->s[p->pos] == '.') {
		integer = false;
		p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return fail(p, "bad number");
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		integer = false;
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (p->pos >= p->len || p->s[p->pos] < '0' || p->s[p->pos] > '9')
			return fail(p, "bad number");
		while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
			p->pos++;
	}
	n = p->pos - st;
	if (n >= sizeof(buf)) {
		/* very long literal: keep its integer value if it has one */
		v->num = integer && !ovf ? (double)u : (neg ? -1e308 : 1e308);
	} else {
		memcpy(buf, p->s + st, n);
		buf[n] = 0;
		v->num = strtod(buf, NULL);
	}
	v->is_u64 = integer && !neg && !ovf;
	v->u64 = v->is_u64 ? u : 0;
	return 0;
}

static int literal(struct jp *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n))
		return fail(p, "unexpected character");
	p->pos += n;
	return 0;
}

static int parse_value(struct jp *p, int depth);

/* Append value @idx to parent @par's children (tracking the last child in @last). */
static void link_child(struct jp *p, int par, int *last, int idx)
{
	if (*last < 0)
		p->d->v[par].child = idx;
	else
		p->d->v[*last].next = idx;
	*last = idx;
	p->d->v[par].nchild++;
}

static int parse_container(struct jp *p, int depth, bool obj)
{
	int me = new_value(p, obj ? SGL_J_OBJ : SGL_J_ARR), last = -1;
	char close = obj ? '}' : ']';

	if (me < 0)
		return -1;
	if (depth >= SGL_JSON_MAX_DEPTH)
		return fail(p, "nesting too deep"), -1;
	p->pos++;
	ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return me;
	}
	for (;;) {
		long key = -1;
		int child;

		ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return fail(p, "expected a member name"), -1;
			key = parse_string(p);
			if (key < 0)
				return -1;
			ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':')
				return fail(p, "expected ':'"), -1;
			p->pos++;
		}
		child = parse_value(p, depth + 1);
		if (child < 0)
			return -1;
		if (key >= 0)
			p->d->v[child].key = (const char *)(uintptr_t)(key + 1);	/* fixed up later */
		link_child(p, me, &last, child);
		ws(p);
		if (p->pos >= p->len)
			return fail(p, obj ? "unterminated object" : "unterminated array"), -1;
		if (p->s[p->pos] == ',') {
			p->pos++;
			continue;
		}
		if (p->s[p->pos] == close) {
			p->pos++;
			return me;
		}
		return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'"), -1;
	}
}

static int parse_value(struct jp *p, int depth)
{
	int me;
	long s;

	ws(p);
	if (p->pos >= p->len)
		return fail(p, "unexpected end of input"), -1;
	switch (p->s[p->pos]) {
	case '{':
		return parse_container(p, depth, true);
	case '[':
		return parse_container(p, depth, false);
	case '"':
		me = new_value(p, SGL_J_STR);
		if (me < 0)
			return -1;
		s = parse_string(p);
		if (s < 0)
			return -1;
		p->d->v[me].str = (const char *)(uintptr_t)(s + 1);
		return me;
	case 't':
		me = new_value(p, SGL_J_TRUE);
		return me < 0 || literal(p, "true") ? -1 : me;
	case 'f':
		me = new_value(p, SGL_J_FALSE);
		return me < 0 || literal(p, "false") ? -1 : me;
	case 'n':
		me = new_value(p, SGL_J_NULL);
		return me < 0 || literal(p, "null") ? -1 : me;
	default:
		me = new_value(p, SGL_J_NUM);
		if (me < 0 || parse_number(p, &p->d->v[me]))
			return -1;
		return me;
	}
}

int sgl_json_parse(const char *buf, size_t len, struct sgl_jdoc *doc, char *err, size_t errlen)
{
	struct jp p = { .s = buf, .len = len, .d = doc, .err = err, .errlen = errlen };
	int i;

	memset(doc, 0, sizeof(*doc));
	if (errlen)
		err[0] = 0;
	if (len > SGL_JSON_MAX_LEN) {
		if (errlen)
			snprintf(err, errlen, "document too large (%zu bytes, limit %u)", len, SGL_JSON_MAX_LEN);
		return -E2BIG;
	}
	doc->capstrs = len + 1;
	doc->strs = malloc(doc->capstrs);
	if (!doc->strs)
		return nomem(&p);
	if (parse_value(&p, 0) < 0)
		goto bad;
	ws(&p);
	if (p.pos != p.len) {
		fail(&p, "trailing data after the value");
		goto bad;
	}
	/* offsets (stored + 1 so that 0 means none) -> pointers, strs is final now */
	for (i = 0; i < doc->nv; i++) {
		struct sgl_jv *v = &doc->v[i];

		if (v->key)
			v->key = doc->strs + ((uintptr_t)v->key - 1);
		if (v->str)
			v->str = doc->strs + ((uintptr_t)v->str - 1);
	}
	return 0;
bad:
	sgl_json_free(doc);
	return p.rc ? p.rc : -EINVAL;
}

void sgl_json_free(struct sgl_jdoc *doc)
{
	free(doc->v);
	free(doc->strs);
	memset(doc, 0, sizeof(*doc));
}

const struct sgl_jv *sgl_jget(const struct sgl_jdoc *d, const struct sgl_jv *o, const char *key)
{
	const struct sgl_jv *c, *found = NULL;

	if (!o || o->type != SGL_J_OBJ)
		return NULL;
	for (c = sgl_jfirst(d, o); c; c = sgl_jnext(d, c))
		if (c->key && !strcmp(c->key, key))
			found = c;
	return found;
}

const struct sgl_jv *sgl_jfirst(const struct sgl_jdoc *d, const struct sgl_jv *v)
{
	if (!v || (v->type != SGL_J_OBJ && v->type != SGL_J_ARR) || v->child < 0 || v->child >= d->nv)
		return NULL;
	return &d->v[v->child];
}

const struct sgl_jv *sgl_jnext(const struct sgl_jdoc *d, const struct sgl_jv *v)
{
	if (!v || v->next < 0 || v->next >= d->nv)
		return NULL;
	return &d->v[v->next];
}

int sgl_jget_u64(const struct sgl_jv *v, __u64 *out)
{
	if (!v || v->type != SGL_J_NUM || !v->is_u64)
		return -EINVAL;
	*out = v->u64;
	return 0;
}
