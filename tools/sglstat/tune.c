// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "tune.h"
#include "hist.h"
#include "entry_bytes.h"

/*
 * Count @c requests whose segment counts lie in [lo, hi] when lo == hi, or in
 * (lo, hi] otherwise, for inline count @n.  Counted as chaining when at least
 * one value of the range would chain (so a range straddling n is an upper
 * bound, flagged in row->exact); pool bytes are those of hi (an upper bound
 * for a range).
 */
static void eval_range(struct sgl_tune_row *row, unsigned int n, __u64 lo, __u64 hi, __u64 c,
		       double *pool)
{
	unsigned int h = hi > UINT_MAX ? UINT_MAX : (unsigned int)hi;

	if (lo == hi) {
		if (!sgl_is_chained(h, n))
			return;
	} else {
		if (!sgl_is_chained(h, n))
			return;
		if (n > lo)	/* lo < n < hi: some of them may not chain */
			row->exact = false;
		row->pool_exact = false;
	}
	row->chained += c;
	*pool += (double)c * (double)sgl_chained_bytes(h, n);
}

void sgl_tune_eval(const struct sgl_tune_input *in, unsigned int n, struct sgl_tune_row *row)
{
	__u64 total = 0, lo, hi, max = in->max_segments;
	double pool = 0;
	bool open_top;
	unsigned int s, i;

	memset(row, 0, sizeof(*row));
	/* the driver clamps inline_sg_cnt to max segments */
	if (max && n > max)
		n = (unsigned int)max;
	row->n = n;
	row->exact = true;
	row->pool_exact = true;
	for (s = 0; s < SGL_SEG_SLOTS; s++) {
		__u64 c = in->seg[s];

		if (!c)
			continue;
		total += c;
		sgl_seg_bounds(s, &lo, &hi, &open_top);
		/* the open top slot holds everything above its nominal bound */
		if (open_top && max > hi)
			hi = max;
		/* no request has more than max segments */
		if (max && hi > max && lo < max)
			hi = max;
		eval_range(row, n, lo, hi, c, &pool);
	}
	for (i = 0; i < in->nr_ranges && i < SGL_TUNE_MAX_RANGES; i++) {
		const struct sgl_tune_range *r = &in->range[i];

		if (!r->count)
			continue;
		hi = r->hi;
		if (max && hi > max && r->lo < max)
			hi = max;
		total += r->count;
		eval_range(row, n, r->lo, hi < r->lo ? r->lo : hi, r->count, &pool);
	}
	row->total = total;
	row->chained_frac = total ? (double)row->chained / (double)total : 0;
	if (in->duration_s > 0) {
		row->chained_per_s = (double)row->chained / in->duration_s;
		row->pool_bytes_per_s = pool / in->duration_s;
	}
	row->inline_bytes = in->nr_requests_total * n * SGL_ENTRY_BYTES;
	row->full_bytes = in->nr_requests_total * in->max_segments * SGL_ENTRY_BYTES;
}

int sgl_tune_table(const struct sgl_tune_input *in, struct sgl_tune_row *rows, int cap)
{
	unsigned int max = in->max_segments;
	__u64 n;
	int i = 0;

	if (!max || cap < 1)
		return -EINVAL;
	for (n = 0; n <= max && n <= SGL_SEG_LINEAR_MAX && i < cap; n++)
		sgl_tune_eval(in, (unsigned int)n, &rows[i++]);
	/* the log2 slot bounds (exact candidates) below max, then max */
	for (n = 2 * SGL_SEG_LINEAR_MAX;
	     n < max && n <= ((__u64)SGL_SEG_LINEAR_MAX << SGL_SEG_LOG_SLOTS) && i < cap; n *= 2)
		sgl_tune_eval(in, (unsigned int)n, &rows[i++]);
	if (max > SGL_SEG_LINEAR_MAX && i < cap)
		sgl_tune_eval(in, max, &rows[i++]);
	return i;
}

bool sgl_tune_meets(const struct sgl_tune_row *row, double target)
{
	/* integer comparison where possible: chained <= target * total */
	if (!row->total)
		return true;
	return (double)row->chained <= target * (double)row->total * (1 + 1e-12);
}

unsigned int sgl_tune_pick(const struct sgl_tune_input *in, double target)
{
	struct sgl_tune_row rows[SGL_TUNE_MAX_ROWS];
	__u64 total = 0;
	unsigned int s;
	int i, nr;

	for (s = 0; s < SGL_SEG_SLOTS; s++)
		total += in->seg[s];
	for (s = 0; s < in->nr_ranges && s < SGL_TUNE_MAX_RANGES; s++)
		total += in->range[s].count;
	if (!total)
		return in->max_segments < 2 ? in->max_segments : 2;
	nr = sgl_tune_table(in, rows, SGL_TUNE_MAX_ROWS);
	for (i = 0; i < nr; i++)
		if (sgl_tune_meets(&rows[i], target))
			return rows[i].n;
	return in->max_segments;
}

void sgl_tune_bound_input(const struct sgl_tune_input *in, struct sgl_tune_input *out)
{
	unsigned int s, cap = in->max_segments ? sgl_seg_slot(in->max_segments) : SGL_SEG_SLOTS - 1;

	*out = *in;
	memset(out->seg, 0, sizeof(out->seg));
	out->nr_ranges = 0;
	out->bound_known = false;
	for (s = 0; s < SGL_SEG_SLOTS; s++)
		out->seg[s < cap ? s : cap] += in->bound[s];
}

unsigned int sgl_tune_pick_by(const struct sgl_tune_input *in, double target, bool observed,
			      bool *by_bound)
{
	static struct sgl_tune_input b;

	if (by_bound)
		*by_bound = in->bound_known && !observed;
	if (!in->bound_known || observed)
		return sgl_tune_pick(in, target);
	sgl_tune_bound_input(in, &b);
	return sgl_tune_pick(&b, target);
}
