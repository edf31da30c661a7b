// SPDX-License-Identifier: GPL-2.0
/* `sglstat tune` reports and the choice of one value (see tune_cmd.h, docs/TUNING.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tune_cmd.h"
#include "disks.h"
#include "json.h"
#include "memory.h"
#include "entry_bytes.h"

struct sgl_tune_disk *sgl_tune_set_add(struct sgl_tune_set *s)
{
	if (s->n >= SGL_TUNE_MAX_INPUT_DISKS)
		return NULL;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 8;
		struct sgl_tune_disk *nd;

		if (cap > SGL_TUNE_MAX_INPUT_DISKS)
			cap = SGL_TUNE_MAX_INPUT_DISKS;
		nd = realloc(s->d, (size_t)cap * sizeof(*nd));
		if (!nd)
			return NULL;
		s->d = nd;
		s->cap = cap;
	}
	memset(&s->d[s->n], 0, sizeof(s->d[0]));
	return &s->d[s->n++];
}

struct sgl_tune_disk *sgl_tune_set_find(struct sgl_tune_set *s, const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->d[i].name, name))
			return &s->d[i];
	return NULL;
}

void sgl_tune_set_free(struct sgl_tune_set *s)
{
	free(s->d);
	memset(s, 0, sizeof(*s));
}

int sgl_tune_from_snapshot(const struct sgl_snapshot *snap, const char *root,
			   unsigned int stock_inline, struct sgl_tune_set *set)
{
	unsigned int i;

	for (i = 0; i < snap->nr_disks && i < SGL_MAX_DISKS; i++) {
		struct sgl_disk_snap d = snap->disk[i];
		struct sgl_tune_disk *t = sgl_tune_set_add(set);
		struct sgl_stats tot;

		if (!t)
			return -ENOMEM;
		snprintf(t->name, sizeof(t->name), "%s", d.name);
		t->kind = d.kind;
		t->current = d.inline_cnt;
		t->current_known = true;
		sgl_disk_total(&d, true, &tot);
		memcpy(t->in.seg, tot.seg, sizeof(t->in.seg));
		memcpy(t->in.bound, tot.segbound, sizeof(t->in.bound));
		t->in.bound_known = true;
		t->in.duration_s = snap->elapsed_s;
		if (!d.geo.valid && root)
			sgl_disk_geo(root, &d, stock_inline);
		if (d.geo.valid && d.geo.max_segments) {
			t->geo_known = true;
			t->nr_estimated = d.geo.estimated;
			t->in.max_segments = d.geo.max_segments > 0xffffffffULL ? 0xffffffffU :
					     (unsigned int)d.geo.max_segments;
			t->in.nr_requests_total = d.geo.nr_requests_total;
		}
	}
	return 0;
}

static bool in_rows(const struct sgl_tune_row *r, int n, unsigned int v)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i].n == v)
			return true;
	return false;
}

static int row_cmp(const void *a, const void *b)
{
	const struct sgl_tune_row *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n;
}

int sgl_tune_rows_trimmed(const struct sgl_tune_input *in, unsigned int current, unsigned int pick,
			  struct sgl_tune_row *out)
{
	struct sgl_tune_row all[SGL_TUNE_MAX_ROWS];
	unsigned int extra[2] = { current, pick };
	int nr, i, k = 0, e;

	nr = sgl_tune_table(in, all, SGL_TUNE_MAX_ROWS);
	if (nr <= 0)
		return 0;
	for (i = 0; i < nr; i++) {
		bool keep = all[i].n <= 16 || i == nr - 1 || all[i].n == current || all[i].n == pick ||
			    (i > 0 && all[i].chained != all[i - 1].chained);

		if (keep && k < SGL_TUNE_MAX_ROWS)
			out[k++] = all[i];
	}
	/* current or pick between candidates (e.g. 200 with max 254) */
	for (e = 0; e < 2; e++) {
		if (extra[e] <= in->max_segments && !in_rows(out, k, extra[e]) && k < SGL_TUNE_MAX_ROWS) {
			sgl_tune_eval(in, extra[e], &out[k++]);
			qsort(out, (size_t)k, sizeof(out[0]), row_cmp);
		}
	}
	return k;
}

static __u64 disk_total(const struct sgl_tune_disk *d)
{
	__u64 t = 0;
	unsigned int i;

	for (i = 0; i < SGL_SEG_SLOTS; i++)
		t += d->in.seg[i];
	for (i = 0; i < d->in.nr_ranges && i < SGL_TUNE_MAX_RANGES; i++)
		t += d->in.range[i].count;
	return t;
}

unsigned int sgl_tune_choose(const struct sgl_tune_set *s, double target)
{
	return sgl_tune_choose_by(s, target, false);
}

unsigned int sgl_tune_choose_by(const struct sgl_tune_set *s, double target, bool observed)
{
	unsigned int best = 0;
	bool any = false;
	int i;

	for (i = 0; i < s->n; i++) {
		const struct sgl_tune_disk *d = &s->d[i];
		unsigned int p;

		if (!d->geo_known || !disk_total(d))
			continue;
		p = sgl_tune_pick_by(&d->in, target, observed, NULL);
		if (!any || p > best)
			best = p;
		any = true;
	}
	return any ? best : 2;
}

static const char *driver_name(enum sgl_disk_kind k)
{
	return k == SGL_DISK_VSGL ? "virtio_blk_sgl" : k == SGL_DISK_VIRTIO_BLK ? "virtio_blk" : "unknown";
}

/* ---------------------------------------------------------------- classes */

struct cls {
	char key[64];
	struct sgl_tune_disk pooled;	/* histograms summed */
	int disks, with_requests;
	unsigned int max_pick;
};

static void pool_add(struct sgl_tune_disk *dst, const struct sgl_tune_disk *src)
{
	unsigned int i, j;

	for (i = 0; i < SGL_SEG_SLOTS; i++)
		dst->in.seg[i] += src->in.seg[i];
	for (i = 0; i < src->in.nr_ranges && i < SGL_TUNE_MAX_RANGES; i++) {
		const struct sgl_tune_range *r = &src->in.range[i];

		for (j = 0; j < dst->in.nr_ranges; j++)
			if (dst->in.range[j].lo == r->lo && dst->in.range[j].hi == r->hi)
				break;
		if (j == dst->in.nr_ranges) {
			if (j >= SGL_TUNE_MAX_RANGES)
				continue;	/* not reached with sglstat's bucket sets */
			dst->in.range[j].lo = r->lo;
			dst->in.range[j].hi = r->hi;
			dst->in.nr_ranges++;
		}
		dst->in.range[j].count += r->count;
	}
	dst->in.nr_requests_total += src->in.nr_requests_total;
	if (src->in.duration_s > dst->in.duration_s)
		dst->in.duration_s = src->in.duration_s;
}

/* Group the disks with geometry by class; returns the count (malloc'ed *out). */
static int make_classes(const struct sgl_tune_set *s, double target, struct cls **out)
{
	struct cls *c = NULL;
	int nc = 0, i, j;

	*out = NULL;
	for (i = 0; i < s->n; i++) {
		const struct sgl_tune_disk *d = &s->d[i];
		char key[64];

		if (!d->geo_known)
			continue;
		if (d->cls[0])
			sgl_strcpy(key, sizeof(key), d->cls);
		else
			snprintf(key, sizeof(key), "max_segments=%u", d->in.max_segments);
		for (j = 0; j < nc; j++)
			if (!strcmp(c[j].key, key))
				break;
		if (j == nc) {
			struct cls *nc2 = realloc(c, (size_t)(nc + 1) * sizeof(*c));

			if (!nc2) {
				free(c);
				return -ENOMEM;
			}
			c = nc2;
			memset(&c[nc], 0, sizeof(c[0]));
			sgl_strcpy(c[nc].key, sizeof(c[nc].key), key);
			c[nc].pooled.in.max_segments = d->in.max_segments;
			c[nc].pooled.geo_known = true;
			nc++;
		}
		pool_add(&c[j].pooled, d);
		c[j].disks++;
		if (disk_total(d)) {
			unsigned int p = sgl_tune_pick(&d->in, target);

			if (!c[j].with_requests || p > c[j].max_pick)
				c[j].max_pick = p;
			c[j].with_requests++;
		}
		/* a class mixing limits: tune against the smallest (values never exceed it) */
		if (d->in.max_segments < c[j].pooled.in.max_segments)
			c[j].pooled.in.max_segments = d->in.max_segments;
	}
	*out = c;
	return nc;
}

/* ---------------------------------------------------------------- text */

static void pct(char *buf, size_t len, double f, bool exact)
{
	snprintf(buf, len, "%s%.2f%%", exact ? "" : "<=", f * 100);
}

static void print_row_text(FILE *out, const struct sgl_tune_row *r, const struct sgl_tune_row *b,
			   unsigned int current, unsigned int pick, double dur)
{
	char p[24], bp[24], cps[24], pool[24];

	pct(p, sizeof(p), r->chained_frac, r->exact);
	if (b)
		pct(bp, sizeof(bp), b->chained_frac, b->exact);
	else
		strcpy(bp, "-");
	if (dur > 0) {
		snprintf(cps, sizeof(cps), "%s%.1f", r->exact ? "" : "<=", r->chained_per_s);
		snprintf(pool, sizeof(pool), "%s%.0f", r->pool_exact ? "" : "<=", r->pool_bytes_per_s);
	} else {
		strcpy(cps, "-");
		strcpy(pool, "-");
	}
	fprintf(out, "  %5u %10s %10s %11s %13s %13llu %14llu %14lld%s%s\n", r->n, p, bp, cps, pool,
		(unsigned long long)r->inline_bytes, (unsigned long long)r->full_bytes,
		(long long)r->full_bytes - (long long)r->inline_bytes,
		r->n == current ? "  <- current" : "", r->n == pick ? "  <- pick" : "");
}

static void print_disk_text(FILE *out, const struct sgl_tune_disk *d, const struct sgl_tune_opts *o)
{
	struct sgl_tune_row rows[SGL_TUNE_MAX_ROWS], cur, pk, br, pkb, pko;
	static struct sgl_tune_input bin;
	bool by_bound;
	unsigned int pick = sgl_tune_pick_by(&d->in, o->target, o->pick_observed, &by_bound);
	unsigned int current = d->current_known ? d->current : o->stock_inline;
	__u64 total = disk_total(d);
	bool stock = d->kind == SGL_DISK_VIRTIO_BLK;
	int nr, i;

	if (d->in.bound_known)
		sgl_tune_bound_input(&d->in, &bin);

	fprintf(out, "%s (%s): max_segments %u, %llu requests with a PDU%s, %llu requests",
		d->name, driver_name(d->kind), d->in.max_segments,
		(unsigned long long)d->in.nr_requests_total,
		d->nr_estimated ? " (estimated)" : "", (unsigned long long)total);
	if (d->in.duration_s > 0)
		fprintf(out, " in %.1f s", d->in.duration_s);
	fprintf(out, ", inline_sg_cnt now %u%s\n", current,
		stock ? " (in-tree VIRTIO_BLK_INLINE_SG_CNT)" : "");
	nr = sgl_tune_rows_trimmed(&d->in, current, pick, rows);
	fprintf(out, "  %5s %10s %10s %11s %13s %13s %14s %14s\n", "N", "observed", "bound", "chained/s",
		"sg_pool B/s", "inline bytes", "full prealloc", "saved vs full");
	for (i = 0; i < nr; i++) {
		if (d->in.bound_known)
			sgl_tune_eval(&bin, rows[i].n, &br);
		print_row_text(out, &rows[i], d->in.bound_known ? &br : NULL, current, pick,
			       d->in.duration_s);
	}
	fprintf(out, "  (observed: the segments seen; bound: the most the same request sizes can need in\n"
		     "   another process, ceil(bytes / 4096) + 1 per read/write, capped at max_segments)\n");
	sgl_tune_eval(by_bound ? &bin : &d->in, pick, &pk);
	sgl_tune_eval(by_bound ? &bin : &d->in, current, &cur);
	if (d->in.bound_known)
		sgl_tune_eval(&bin, pick, &pkb);
	sgl_tune_eval(&d->in, pick, &pko);
	if (!total) {
		fprintf(out, "  recommendation: inline_sg_cnt=%u (no requests seen: the upstream default)\n",
			pick);
		return;
	}
	if (pick == d->in.max_segments && !sgl_tune_meets(&pk, o->target))
		fprintf(out, "  recommendation: inline_sg_cnt=%u (no N meets %.2f%%: max_segments, full preallocation)\n",
			pick, o->target * 100);
	else
		fprintf(out, "  recommendation: inline_sg_cnt=%u (smallest N with predicted chained fraction <= %.2f%%: %s%.2f%%)\n",
			pick, o->target * 100, pk.exact ? "" : "<=", pk.chained_frac * 100);
	if (by_bound)
		fprintf(out, "  the pick rests on the fragmentation bound (observed at it: %.2f%%): it holds for new processes of this workload\n",
			pko.chained_frac * 100);
	else if (d->in.bound_known)
		fprintf(out, "  the pick rests on the observed segments (--pick-by observed): a new process may chain up to %.2f%%\n",
			pkb.chained_frac * 100);
	else
		fprintf(out, "  the pick rests on the observed segments (the input has no fragmentation bound)\n");
	fprintf(out, "  %s %u -> %u: chained %s%.2f%% -> %s%.2f%%, preallocated SG memory %+lld bytes\n",
		stock ? "switching from in-tree virtio_blk" : "change from", current, pick,
		cur.exact ? "" : "<=", cur.chained_frac * 100, pk.exact ? "" : "<=",
		pk.chained_frac * 100, (long long)pk.inline_bytes - (long long)cur.inline_bytes);
	if (stock)
		fprintf(out, "  (load virtio_blk_sgl for this disk with the options line below)\n");
}

int sgl_tune_print_text(FILE *out, const struct sgl_tune_set *s, const struct sgl_tune_opts *o,
			unsigned int *chosen)
{
	int i, tuned = 0;
	unsigned int v;

	fprintf(out, "sglstat tune: target chained fraction <= %.2f%% (source: %s)\n\n", o->target * 100,
		o->source ? o->source : "live");
	for (i = 0; i < s->n; i++) {
		const struct sgl_tune_disk *d = &s->d[i];

		if (!d->geo_known) {
			fprintf(out, "%s: skipped: max_segments / nr_requests_total unknown (no geometry in the input and no /sys/block/%s)\n\n",
				d->name, d->name);
			continue;
		}
		print_disk_text(out, d, o);
		fputc('\n', out);
		tuned++;
	}
	if (!tuned)
		return -EINVAL;
	if (o->fleet) {
		struct cls *c;
		int nc = make_classes(s, o->target, &c), j;

		if (nc < 0)
			return nc;
		fprintf(out, "Fleet: one value per class (class = max_segments), from the class's pooled histogram:\n");
		for (j = 0; j < nc; j++) {
			unsigned int p = sgl_tune_pick(&c[j].pooled.in, o->target);
			struct sgl_tune_row r;

			sgl_tune_eval(&c[j].pooled.in, p, &r);
			fprintf(out, "  class %s: %d disk(s), %llu requests: inline_sg_cnt=%u (pooled chained %s%.2f%%; the max of the per-disk picks is %u)\n",
				c[j].key, c[j].disks, (unsigned long long)r.total, p, r.exact ? "" : "<=",
				r.chained_frac * 100, c[j].with_requests ? c[j].max_pick : p);
			fprintf(out, "  class %s: options virtio_blk_sgl inline_sg_cnt=%u\n", c[j].key, p);
		}
		free(c);
		fputc('\n', out);
	}
	v = sgl_tune_choose_by(s, o->target, o->pick_observed);
	if (tuned > 1)
		fprintf(out, "One value for modprobe.d (all disks): the largest per-disk pick, so that every disk meets the target: %u\n",
			v);
	fprintf(out, "options virtio_blk_sgl inline_sg_cnt=%u\n", v);
	if (chosen)
		*chosen = v;
	return 0;
}

/* ---------------------------------------------------------------- JSON */

static void num(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.6g", v);
}

static void row_json_b(FILE *out, const struct sgl_tune_row *r, double dur, const struct sgl_tune_row *b);

static void row_json(FILE *out, const struct sgl_tune_row *r, double dur)
{
	row_json_b(out, r, dur, NULL);
}

static void row_json_b(FILE *out, const struct sgl_tune_row *r, double dur, const struct sgl_tune_row *b)
{
	fprintf(out, "{\"n\":%u,\"chained\":%llu,\"chained_frac\":", r->n, (unsigned long long)r->chained);
	num(out, r->chained_frac);
	fputs(",\"chained_per_s\":", out);
	if (dur > 0)
		num(out, r->chained_per_s);
	else
		fputs("null", out);
	fputs(",\"pool_bytes_per_s\":", out);
	if (dur > 0)
		num(out, r->pool_bytes_per_s);
	else
		fputs("null", out);
	fprintf(out, ",\"inline_bytes\":%llu,\"full_bytes\":%llu,\"saved_bytes\":%lld,\"exact\":%s,\"pool_exact\":%s",
		(unsigned long long)r->inline_bytes, (unsigned long long)r->full_bytes,
		(long long)r->full_bytes - (long long)r->inline_bytes, r->exact ? "true" : "false",
		r->pool_exact ? "true" : "false");
	if (b) {
		fprintf(out, ",\"bound_chained\":%llu,\"bound_chained_frac\":", (unsigned long long)b->chained);
		num(out, b->chained_frac);
	}
	fputc('}', out);
}

static void disk_json(FILE *out, const struct sgl_tune_disk *d, const struct sgl_tune_opts *o)
{
	struct sgl_tune_row rows[SGL_TUNE_MAX_ROWS], cur, pk, br, pkb, curb;
	static struct sgl_tune_input bin;
	bool by_bound, bk = d->in.bound_known;
	unsigned int pick = sgl_tune_pick_by(&d->in, o->target, o->pick_observed, &by_bound);
	unsigned int current = d->current_known ? d->current : o->stock_inline;
	int nr = sgl_tune_rows_trimmed(&d->in, current, pick, rows), i;

	if (bk) {
		sgl_tune_bound_input(&d->in, &bin);
		sgl_tune_eval(&bin, pick, &pkb);
		sgl_tune_eval(&bin, current, &curb);
	}
	sgl_tune_eval(&d->in, pick, &pk);
	sgl_tune_eval(&d->in, current, &cur);
	fputs("{\"name\":", out);
	sgl_json_str(out, d->name);
	fprintf(out, ",\"driver\":\"%s\",\"class\":", driver_name(d->kind));
	if (d->cls[0])
		sgl_json_str(out, d->cls);
	else
		fprintf(out, "\"max_segments=%u\"", d->in.max_segments);
	fprintf(out, ",\"max_segments\":%u,\"nr_requests_total\":%llu,\"nr_requests_estimated\":%s,"
		"\"current_inline\":%u,\"requests\":%llu,\"duration_s\":",
		d->in.max_segments, (unsigned long long)d->in.nr_requests_total,
		d->nr_estimated ? "true" : "false", current, (unsigned long long)disk_total(d));
	if (d->in.duration_s > 0)
		num(out, d->in.duration_s);
	else
		fputs("null", out);
	fprintf(out, ",\"pick\":%u,\"pick_by\":\"%s\",\"pick_observed\":%u,\"pick_bound\":",
		pick, by_bound ? "bound" : "observed", sgl_tune_pick_by(&d->in, o->target, true, NULL));
	if (bk)
		fprintf(out, "%u", sgl_tune_pick_by(&d->in, o->target, false, NULL));
	else
		fputs("null", out);
	fprintf(out, ",\"meets_target\":%s,\"current\":",
		sgl_tune_meets(by_bound ? &pkb : &pk, o->target) ? "true" : "false");
	row_json_b(out, &cur, d->in.duration_s, bk ? &curb : NULL);
	fputs(",\"picked\":", out);
	row_json_b(out, &pk, d->in.duration_s, bk ? &pkb : NULL);
	fprintf(out, ",\"change\":{\"from\":%u,\"to\":%u,\"inline_bytes\":%lld,\"chained_frac_from\":",
		current, pick, (long long)pk.inline_bytes - (long long)cur.inline_bytes);
	num(out, cur.chained_frac);
	fputs(",\"chained_frac_to\":", out);
	num(out, pk.chained_frac);
	fputs("},\"rows\":[", out);
	for (i = 0; i < nr; i++) {
		if (i)
			fputc(',', out);
		if (bk)
			sgl_tune_eval(&bin, rows[i].n, &br);
		row_json_b(out, &rows[i], d->in.duration_s, bk ? &br : NULL);
	}
	fputs("]}", out);
}

int sgl_tune_print_json(FILE *out, const struct sgl_tune_set *s, const struct sgl_tune_opts *o,
			unsigned int *chosen)
{
	int i, tuned = 0;
	bool first = true;
	unsigned int v;

	for (i = 0; i < s->n; i++)
		tuned += s->d[i].geo_known;
	if (!tuned)
		return -EINVAL;
	v = sgl_tune_choose_by(s, o->target, o->pick_observed);
	fputs("{\"target\":", out);
	num(out, o->target);
	fputs(",\"source\":", out);
	sgl_json_str(out, o->source ? o->source : "live");
	fprintf(out, ",\"rule\":\"smallest N with predicted chained fraction <= target, else max_segments\","
		"\"pick_by\":\"%s\",\"choice\":\"max over disks of the per-disk picks\",\"disks\":[",
		o->pick_observed ? "observed" : "bound");
	for (i = 0; i < s->n; i++) {
		if (!s->d[i].geo_known)
			continue;
		if (!first)
			fputc(',', out);
		disk_json(out, &s->d[i], o);
		first = false;
	}
	fputs("],\"skipped\":[", out);
	for (i = 0, first = true; i < s->n; i++) {
		if (s->d[i].geo_known)
			continue;
		if (!first)
			fputc(',', out);
		sgl_json_str(out, s->d[i].name);
		first = false;
	}
	fputs("],\"classes\":", out);
	if (o->fleet) {
		struct cls *c;
		int nc = make_classes(s, o->target, &c), j;

		if (nc < 0)
			return nc;
		fputc('[', out);
		for (j = 0; j < nc; j++) {
			unsigned int p = sgl_tune_pick(&c[j].pooled.in, o->target);
			struct sgl_tune_row r;

			sgl_tune_eval(&c[j].pooled.in, p, &r);
			fprintf(out, "%s{\"class\":", j ? "," : "");
			sgl_json_str(out, c[j].key);
			fprintf(out, ",\"disks\":%d,\"requests\":%llu,\"pick\":%u,\"max_disk_pick\":%u,"
				"\"picked\":", c[j].disks, (unsigned long long)r.total, p,
				c[j].with_requests ? c[j].max_pick : p);
			row_json(out, &r, 0);
			fprintf(out, ",\"modprobe_line\":\"options virtio_blk_sgl inline_sg_cnt=%u\"}", p);
		}
		fputc(']', out);
		free(c);
	} else {
		fputs("null", out);
	}
	fprintf(out, ",\"recommended\":%u,\"modprobe_line\":\"options virtio_blk_sgl inline_sg_cnt=%u\"}\n",
		v, v);
	if (chosen)
		*chosen = v;
	return 0;
}
