// SPDX-License-Identifier: GPL-2.0
/*
 * Inputs of `sglstat tune`: a saved `sglstat -j` capture, Prometheus
 * textfiles and Prometheus query results.  All of them may be garbage:
 * every length is bounded, every number checked, errors are one line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune_cmd.h"
#include "disks.h"
#include "jparse.h"
#include "memory.h"

#define ERR(...) do { if (errlen) snprintf(err, errlen, __VA_ARGS__); } while (0)

static __u64 sat_add(__u64 a, __u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

/* seg_hist [[n,count],...] and seg_hist_log2 [[lo,hi|null,count],...] into seg[] */
static int add_hists_named(const struct sgl_jdoc *doc, const struct sgl_jv *stats, const char *name,
			   __u64 *seg, char *err, size_t errlen)
{
	char l2name[64];
	const struct sgl_jv *h = sgl_jget(doc, stats, name), *e, *l2;

	snprintf(l2name, sizeof(l2name), "%s_log2", name);
	l2 = sgl_jget(doc, stats, l2name);

	if (!h || h->type != SGL_J_ARR) {
		ERR("no %s array", name);
		return -EINVAL;
	}
	for (e = sgl_jfirst(doc, h); e; e = sgl_jnext(doc, e)) {
		const struct sgl_jv *a = sgl_jfirst(doc, e), *b = sgl_jnext(doc, a);
		__u64 n, c;

		if (e->type != SGL_J_ARR || e->nchild != 2 || sgl_jget_u64(a, &n) ||
		    sgl_jget_u64(b, &c) || n > SGL_SEG_LINEAR_MAX) {
			ERR("bad %s entry (want [n <= %d, count])", name, SGL_SEG_LINEAR_MAX);
			return -EINVAL;
		}
		seg[n] = sat_add(seg[n], c);
	}
	if (l2 && l2->type != SGL_J_ARR && l2->type != SGL_J_NULL) {
		ERR("bad %s", l2name);
		return -EINVAL;
	}
	for (e = sgl_jfirst(doc, l2); e; e = sgl_jnext(doc, e)) {
		const struct sgl_jv *a = sgl_jfirst(doc, e), *b = sgl_jnext(doc, a), *c3 = sgl_jnext(doc, b);
		__u64 lo, c;
		unsigned int j;

		if (e->type != SGL_J_ARR || e->nchild != 3 || sgl_jget_u64(a, &lo) || sgl_jget_u64(c3, &c)) {
			ERR("bad %s entry (want [lo, hi, count])", l2name);
			return -EINVAL;
		}
		for (j = 0; j < SGL_SEG_LOG_SLOTS; j++)
			if (lo == (__u64)SGL_SEG_LINEAR_MAX << j)
				break;
		if (j == SGL_SEG_LOG_SLOTS) {
			ERR("%s lower bound %llu is not 128 * 2^j", l2name, (unsigned long long)lo);
			return -EINVAL;
		}
		seg[SGL_SEG_LINEAR_MAX + 1 + j] = sat_add(seg[SGL_SEG_LINEAR_MAX + 1 + j], c);
	}
	return 0;
}

static int add_hists(const struct sgl_jdoc *doc, const struct sgl_jv *stats, __u64 *seg,
		     char *err, size_t errlen)
{
	return add_hists_named(doc, stats, "seg_hist", seg, err, errlen);
}

static bool jbool(const struct sgl_jv *v)
{
	return v && v->type == SGL_J_TRUE;
}

static int capture_line(const struct sgl_jdoc *doc, bool use, struct sgl_tune_set *set,
			double *dur, char *err, size_t errlen)
{
	const struct sgl_jv *root = sgl_jroot(doc), *disks, *d;

	disks = sgl_jget(doc, root, "disks");
	if (!root || root->type != SGL_J_OBJ || !disks || disks->type != SGL_J_ARR) {
		ERR("not an sglstat -j report (no \"disks\" array)");
		return -EINVAL;
	}
	if (use) {
		const struct sgl_jv *iv = sgl_jget(doc, root, "interval_s");

		if (iv && iv->type == SGL_J_NUM && iv->num > 0 && iv->num < 1e9)
			*dur += iv->num;
	}
	for (d = sgl_jfirst(doc, disks); d; d = sgl_jnext(doc, d)) {
		const struct sgl_jv *name = sgl_jget(doc, d, "name"), *tot = sgl_jget(doc, d, "total");
		const struct sgl_jv *geo = sgl_jget(doc, d, "geometry"), *drv = sgl_jget(doc, d, "driver");
		struct sgl_tune_disk *t;
		__u64 v;
		int e;

		if (!name || name->type != SGL_J_STR || !name->str[0] || strlen(name->str) >= 32 ||
		    strchr(name->str, '/')) {
			ERR("disk without a valid name");
			return -EINVAL;
		}
		t = sgl_tune_set_find(set, name->str);
		if (!t) {
			t = sgl_tune_set_add(set);
			if (!t) {
				ERR("too many disks");
				return -E2BIG;
			}
			sgl_strcpy(t->name, sizeof(t->name), name->str);
		}
		if (drv && drv->type == SGL_J_STR)
			t->kind = !strcmp(drv->str, "virtio_blk_sgl") ? SGL_DISK_VSGL :
				  !strcmp(drv->str, "virtio_blk") ? SGL_DISK_VIRTIO_BLK : SGL_DISK_OTHER;
		if (!sgl_jget_u64(sgl_jget(doc, d, "inline_cnt"), &v) && v <= 65535) {
			t->current = (unsigned int)v;
			t->current_known = true;
		}
		if (geo && geo->type == SGL_J_OBJ) {
			__u64 ms, nr;

			if (sgl_jget_u64(sgl_jget(doc, geo, "max_segments"), &ms) || !ms || ms > 65535 ||
			    sgl_jget_u64(sgl_jget(doc, geo, "nr_requests_total"), &nr) || nr > (1ULL << 32)) {
				ERR("disk %.31s: bad geometry", t->name);
				return -EINVAL;
			}
			t->geo_known = true;
			t->in.max_segments = (unsigned int)ms;
			t->in.nr_requests_total = nr;
			t->nr_estimated = jbool(sgl_jget(doc, geo, "estimated"));
		}
		if (!use)
			continue;
		if (!tot || tot->type != SGL_J_OBJ) {
			ERR("disk %.31s: no \"total\" object", t->name);
			return -EINVAL;
		}
		e = add_hists(doc, tot, t->in.seg, err, errlen);
		if (e)
			return e;
		/* captures since the fragmentation bound (additive field) */
		if (sgl_jget(doc, tot, "seg_bound_hist")) {
			e = add_hists_named(doc, tot, "seg_bound_hist", t->in.bound, err, errlen);
			if (e)
				return e;
			t->in.bound_known = true;
		}
	}
	return 0;
}

int sgl_tune_read_capture(const char *buf, size_t len, const char *root,
			  unsigned int stock_inline, struct sgl_tune_set *set, char *err, size_t errlen)
{
	size_t pos = 0, last_start = 0, last_len = 0;
	int lines = 0, cum_lines = 0, lineno = 0, pass, e, i;
	bool last_cum = false;
	double dur = 0;
	char jerr[128];

	/* pass 0: validate every line, find the last one and whether it is cumulative */
	for (pass = 0; pass < 2; pass++) {
		pos = 0;
		lineno = 0;
		while (pos < len) {
			const char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
			size_t n = nl ? (size_t)(nl - l) : len - pos;
			struct sgl_jdoc doc;
			const struct sgl_jv *cum;
			bool is_cum, blank = true;
			size_t k;

			pos += n + (nl ? 1 : 0);
			lineno++;
			for (k = 0; k < n && blank; k++)
				blank = l[k] == ' ' || l[k] == '\t' || l[k] == '\r';
			if (blank)
				continue;
			e = sgl_json_parse(l, n, &doc, jerr, sizeof(jerr));
			if (e) {
				ERR("line %d: %s", lineno, jerr);
				return e;
			}
			cum = sgl_jget(&doc, sgl_jroot(&doc), "cumulative");
			is_cum = jbool(cum);
			if (pass == 0) {
				lines++;
				cum_lines += is_cum;
				last_cum = is_cum;
				last_start = (size_t)(l - buf);
				last_len = n;
				e = capture_line(&doc, false, set, &dur, jerr, sizeof(jerr));
			} else if (last_cum) {
				/* only the last line's totals; geometry came in pass 0 */
				e = (size_t)(l - buf) == last_start ?
				    capture_line(&doc, true, set, &dur, jerr, sizeof(jerr)) : 0;
				if (!e && (size_t)(l - buf) == last_start) {
					const struct sgl_jv *el = sgl_jget(&doc, sgl_jroot(&doc), "elapsed_s");

					if (el && el->type == SGL_J_NUM && el->num > 0 && el->num < 1e9)
						dur = el->num;
				}
			} else {
				e = capture_line(&doc, true, set, &dur, jerr, sizeof(jerr));
			}
			sgl_json_free(&doc);
			if (e) {
				ERR("line %d: %s", lineno, jerr);
				return e;
			}
		}
		if (pass == 0) {
			if (!lines) {
				ERR("empty capture (no sglstat -j lines)");
				return -EINVAL;
			}
			if (!last_cum && cum_lines) {
				ERR("mixed capture: %d cumulative line(s) but the last line is an interval delta", cum_lines);
				return -EINVAL;
			}
		}
	}
	(void)last_len;
	for (i = 0; i < set->n; i++) {
		struct sgl_tune_disk *t = &set->d[i];

		t->in.duration_s = dur;
		if (!t->geo_known && root) {
			struct sgl_disk_snap ds;

			memset(&ds, 0, sizeof(ds));
			sgl_strcpy(ds.name, sizeof(ds.name), t->name);
			ds.kind = t->kind;
			if (ds.kind == SGL_DISK_OTHER && sgl_disk_kind(root, t->name) > 0)
				ds.kind = (enum sgl_disk_kind)sgl_disk_kind(root, t->name);
			if (!sgl_disk_geo(root, &ds, stock_inline) && ds.geo.max_segments &&
			    ds.geo.max_segments <= 65535) {
				t->geo_known = true;
				t->in.max_segments = (unsigned int)ds.geo.max_segments;
				t->in.nr_requests_total = ds.geo.nr_requests_total;
				t->nr_estimated = ds.geo.estimated;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ Prometheus */

int sgl_tune_buckets_to_input(const double *le, const double *cum, int n, struct sgl_tune_input *in,
			      char *err, size_t errlen)
{
	double prev_le = -1, prev_c = 0;
	int i;

	for (i = 0; i < n; i++) {
		double c = cum[i] - prev_c;
		__u64 cnt, lo, hi;

		if (!(le[i] > prev_le) || isnan(cum[i]) || cum[i] < prev_c - 0.5 || cum[i] > 1.8e19) {
			ERR("buckets not increasing (le=%g)", le[i]);
			return -EINVAL;
		}
		if (c < 0)
			c = 0;
		cnt = (__u64)(c + 0.5);
		lo = prev_le < 0 ? 0 : (__u64)prev_le;
		hi = isinf(le[i]) ? ~0ULL : (__u64)le[i];
		if (le[i] != floor(le[i]) && !isinf(le[i])) {
			ERR("non-integer le=%g", le[i]);
			return -EINVAL;
		}
		prev_le = le[i];
		prev_c = cum[i];
		if (!cnt)
			continue;
		if (prev_le >= 0 && i == 0) {
			/* first bucket (le = L): values in [0, L] */
			if (hi == 0) {
				in->seg[0] += cnt;
				continue;
			}
			lo = 0;
		}
		if (i > 0 && hi == lo + 1 && hi <= SGL_SEG_LINEAR_MAX) {
			in->seg[hi] += cnt;
			continue;
		}
		if (in->nr_ranges >= SGL_TUNE_MAX_RANGES) {
			ERR("too many buckets");
			return -E2BIG;
		}
		in->range[in->nr_ranges].lo = lo;
		in->range[in->nr_ranges].hi = hi;
		in->range[in->nr_ranges].count = cnt;
		in->nr_ranges++;
	}
	return 0;
}

#define MAX_BUCKETS	64

struct pdisk {
	char key[SGL_TUNE_NAME_LEN];
	int nb;
	double le[MAX_BUCKETS], cum[MAX_BUCKETS];
	double maxseg, nreq, inl;
	bool has_maxseg, has_nreq, has_inl;
};

struct pset {
	struct pdisk *d;
	int n;
};

static struct pdisk *pset_get(struct pset *p, const char *key)
{
	struct pdisk *nd;
	int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->d[i].key, key))
			return &p->d[i];
	if (p->n >= SGL_TUNE_MAX_INPUT_DISKS)
		return NULL;
	nd = realloc(p->d, (size_t)(p->n + 1) * sizeof(*nd));
	if (!nd)
		return NULL;
	p->d = nd;
	memset(&p->d[p->n], 0, sizeof(p->d[0]));
	sgl_strcpy(p->d[p->n].key, sizeof(p->d[0].key), key);
	return &p->d[p->n++];
}

/* Add a bucket sample (ops summed: same le adds up). */
static int pdisk_bucket(struct pdisk *d, double le, double v)
{
	int i, j;

	for (i = 0; i < d->nb; i++)
		if (d->le[i] == le) {
			d->cum[i] += v;
			return 0;
		}
	if (d->nb >= MAX_BUCKETS)
		return -E2BIG;
	for (i = 0; i < d->nb && d->le[i] < le; i++)
		;
	for (j = d->nb; j > i; j--) {
		d->le[j] = d->le[j - 1];
		d->cum[j] = d->cum[j - 1];
	}
	d->le[i] = le;
	d->cum[i] = v;
	d->nb++;
	return 0;
}

static int parse_num(const char *s, size_t n, double *out)
{
	char buf[64], *end;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!strcmp(buf, "+Inf") || !strcmp(buf, "Inf")) {
		*out = INFINITY;
		return 0;
	}
	*out = strtod(buf, &end);
	if (*end || isnan(*out))
		return -EINVAL;
	return 0;
}

static int pset_to_set(struct pset *p, struct sgl_tune_set *set, char *err, size_t errlen)
{
	int i, e;

	for (i = 0; i < p->n; i++) {
		struct pdisk *d = &p->d[i];
		struct sgl_tune_disk *t;
		char sub[96];

		if (!d->nb)
			continue;
		t = sgl_tune_set_add(set);
		if (!t) {
			ERR("too many disks");
			return -E2BIG;
		}
		sgl_strcpy(t->name, sizeof(t->name), d->key);
		e = sgl_tune_buckets_to_input(d->le, d->cum, d->nb, &t->in, sub, sizeof(sub));
		if (e) {
			ERR("%.100s: %s", d->key, sub);
			return e;
		}
		if (d->has_maxseg && d->maxseg >= 1 && d->maxseg <= 65535 && d->has_nreq &&
		    d->nreq >= 0 && d->nreq <= 4294967296.0) {
			t->geo_known = true;
			t->in.max_segments = (unsigned int)d->maxseg;
			t->in.nr_requests_total = (__u64)d->nreq;
			snprintf(t->cls, sizeof(t->cls), "max_segments=%u", t->in.max_segments);
		}
		if (d->has_inl && d->inl >= 0 && d->inl <= 65535) {
			t->current = (unsigned int)d->inl;
			t->current_known = true;
		}
	}
	return 0;
}

enum { M_BUCKET, M_MAXSEG, M_NREQ, M_INLINE, M_NONE };

static int metric_kind(const char *name, size_t n)
{
	static const char *const names[] = {
		"virtio_blk_sgl_segments_bucket", "virtio_blk_sgl_max_segments",
		"virtio_blk_sgl_preallocated_requests", "virtio_blk_sgl_inline_sg_entries",
	};
	int i;

	for (i = 0; i < M_NONE; i++)
		if (strlen(names[i]) == n && !memcmp(name, names[i], n))
			return i;
	return M_NONE;
}

static int sample(struct pset *p, int kind, const char *key, double le, double v)
{
	struct pdisk *d = pset_get(p, key);

	if (!d)
		return -E2BIG;
	switch (kind) {
	case M_BUCKET: return pdisk_bucket(d, le, v);
	case M_MAXSEG: d->maxseg = v; d->has_maxseg = true; return 0;
	case M_NREQ: d->nreq = v; d->has_nreq = true; return 0;
	case M_INLINE: d->inl = v; d->has_inl = true; return 0;
	}
	return 0;
}

int sgl_tune_read_prom(const char *buf, size_t len, const char *source,
		       struct sgl_tune_set *set, char *err, size_t errlen)
{
	struct pset p = { 0 };
	size_t pos = 0;
	int lineno = 0, e = 0;

	while (pos < len && !e) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, i = 0, ns;
		char disk[64] = "", key[SGL_TUNE_NAME_LEN];
		double le = NAN, v;
		bool have_le = false;
		int kind;

		pos += n + (nl ? 1 : 0);
		lineno++;
		if (!n || l[0] == '#')
			continue;
		while (i < n && l[i] != '{' && l[i] != ' ' && l[i] != '\t')
			i++;
		kind = metric_kind(l, i);
		if (kind == M_NONE)
			continue;
		if (i < n && l[i] == '{') {
			/* labels: name="value" with \\ \" \n escapes */
			i++;
			for (;;) {
				size_t ks, kl;
				char val[64];
				size_t vl = 0;

				while (i < n && (l[i] == ' ' || l[i] == ','))
					i++;
				if (i < n && l[i] == '}') {
					i++;
					break;
				}
				ks = i;
				while (i < n && l[i] != '=' && l[i] != '}')
					i++;
				kl = i - ks;
				if (i + 1 >= n || l[i] != '=' || l[i + 1] != '"') {
					ERR("line %d: bad label", lineno);
					e = -EINVAL;
					break;
				}
				i += 2;
				while (i < n && l[i] != '"') {
					char c = l[i++];

					if (c == '\\') {
						if (i >= n)
							break;
						c = l[i++];
						if (c == 'n')
							c = '\n';
					}
					if (vl + 1 < sizeof(val))
						val[vl++] = c;
				}
				if (i >= n) {
					ERR("line %d: unterminated label value", lineno);
					e = -EINVAL;
					break;
				}
				i++;
				val[vl] = 0;
				if (kl == 4 && !memcmp(l + ks, "disk", 4)) {
					sgl_strcpy(disk, sizeof(disk), val);
				} else if (kl == 2 && !memcmp(l + ks, "le", 2)) {
					if (parse_num(val, vl, &le)) {
						ERR("line %d: bad le \"%s\"", lineno, val);
						e = -EINVAL;
						break;
					}
					have_le = true;
				}
			}
			if (e)
				break;
		}
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		ns = i;
		while (i < n && l[i] != ' ' && l[i] != '\t' && l[i] != '\r')
			i++;
		if (parse_num(l + ns, i - ns, &v) || v < 0 || isinf(v)) {
			ERR("line %d: bad sample value", lineno);
			e = -EINVAL;
			break;
		}
		if (!disk[0] || (kind == M_BUCKET && !have_le)) {
			ERR("line %d: %s without %s label", lineno, kind == M_BUCKET ? "bucket" : "gauge",
			    disk[0] ? "le" : "disk");
			e = -EINVAL;
			break;
		}
		snprintf(key, sizeof(key), "%s:%s", source ? source : "", disk);
		e = sample(&p, kind, key, le, v);
		if (e)
			ERR("line %d: too many disks or buckets", lineno);
	}
	if (!e)
		e = pset_to_set(&p, set, err, errlen);
	free(p.d);
	return e;
}

int sgl_tune_read_prom_query(const char *buf, size_t len, struct sgl_tune_set *set,
			     char *err, size_t errlen)
{
	struct sgl_jdoc doc;
	const struct sgl_jv *root, *data, *res, *r;
	struct pset p = { 0 };
	char jerr[128];
	int e;

	e = sgl_json_parse(buf, len, &doc, jerr, sizeof(jerr));
	if (e) {
		ERR("%s", jerr);
		return e;
	}
	root = sgl_jroot(&doc);
	data = sgl_jget(&doc, root, "data");
	res = sgl_jget(&doc, data, "result");
	if (!res || res->type != SGL_J_ARR) {
		ERR("not a Prometheus query result (no data.result array)");
		sgl_json_free(&doc);
		return -EINVAL;
	}
	for (r = sgl_jfirst(&doc, res); r && !e; r = sgl_jnext(&doc, r)) {
		const struct sgl_jv *m = sgl_jget(&doc, r, "metric"), *val = sgl_jget(&doc, r, "value"), *lb;
		const struct sgl_jv *vs;
		char key[SGL_TUNE_NAME_LEN] = "";
		const char *name = NULL;
		double le = NAN, v;
		size_t kl = 0;
		int kind;

		if (!m || m->type != SGL_J_OBJ || !val || val->type != SGL_J_ARR || val->nchild != 2) {
			ERR("result entry without metric/value (a vector result is needed)");
			e = -EINVAL;
			break;
		}
		vs = sgl_jnext(&doc, sgl_jfirst(&doc, val));
		if (!vs || vs->type != SGL_J_STR || parse_num(vs->str, strlen(vs->str), &v) || v < 0 ||
		    isinf(v)) {
			ERR("bad sample value");
			e = -EINVAL;
			break;
		}
		/* the series: all labels but __name__, op, le, sorted as given */
		for (lb = sgl_jfirst(&doc, m); lb; lb = sgl_jnext(&doc, lb)) {
			if (lb->type != SGL_J_STR || !lb->key)
				continue;
			if (!strcmp(lb->key, "__name__")) {
				name = lb->str;
			} else if (!strcmp(lb->key, "le")) {
				if (parse_num(lb->str, strlen(lb->str), &le)) {
					ERR("bad le \"%.32s\"", lb->str);
					e = -EINVAL;
					break;
				}
			} else if (strcmp(lb->key, "op")) {
				int w = snprintf(key + kl, sizeof(key) - kl, "%s%s=%s", kl ? "," : "",
						 lb->key, lb->str);

				if (w < 0 || (size_t)w >= sizeof(key) - kl) {
					ERR("label set too long");
					e = -E2BIG;
					break;
				}
				kl += (size_t)w;
			}
		}
		if (e)
			break;
		kind = name ? metric_kind(name, strlen(name)) : M_BUCKET;
		if (kind == M_NONE)
			continue;
		if (kind == M_BUCKET && isnan(le)) {
			ERR("bucket series without le");
			e = -EINVAL;
			break;
		}
		e = sample(&p, kind, key, le, v);
		if (e)
			ERR("too many series or buckets");
	}
	sgl_json_free(&doc);
	if (!e)
		e = pset_to_set(&p, set, err, errlen);
	free(p.d);
	return e;
}
