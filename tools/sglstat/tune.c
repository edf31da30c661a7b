// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include "tune.h"
#include "hist.h"
#include "sgl_model.h"

void sgl_tune_eval(const struct sgl_tune_input *in, unsigned int n, struct sgl_tune_row *row)
{
	__u64 total = 0, chained = 0, lo, hi;
	double pool = 0;
	bool open_top;
	unsigned int s;

	memset(row, 0, sizeof(*row));
	row->n = n;
	row->exact = true;
	for (s = 0; s < SGL_SEG_SLOTS; s++) {
		__u64 c = in->seg[s];

		if (!c)
			continue;
		total += c;
		sgl_seg_bounds(s, &lo, &hi, &open_top);
		if (lo == hi) {
			if (!sgl_is_chained(lo, n))
				continue;
		} else {
			/* values in (lo, hi]: none chain when n >= hi; some may
			 * not when lo < n < hi, counted as chaining (a bound) */
			if (!sgl_is_chained(hi, n))
				continue;
			row->exact = false;
		}
		chained += c;
		pool += (double)c * sgl_chained_bytes(hi, n);
	}
	row->chained = chained;
	row->chained_frac = total ? (double)chained / total : 0;
	if (in->duration_s > 0) {
		row->chained_per_s = chained / in->duration_s;
		row->pool_bytes_per_s = pool / in->duration_s;
	}
	row->inline_bytes = in->nr_requests_total * n * SGL_ENTRY_BYTES;
	row->full_bytes = in->nr_requests_total * in->max_segments * SGL_ENTRY_BYTES;
}

int sgl_tune_table(const struct sgl_tune_input *in, struct sgl_tune_row *rows, int cap)
{
	unsigned int n, max = in->max_segments;
	int i = 0;

	if (!max || cap < 1)
		return -EINVAL;
	for (n = 0; n <= max && n <= SGL_SEG_LINEAR_MAX && i < cap; n++)
		sgl_tune_eval(in, n, &rows[i++]);
	for (n = 2 * SGL_SEG_LINEAR_MAX; n < max && i < cap; n *= 2)
		sgl_tune_eval(in, n, &rows[i++]);
	if (max > SGL_SEG_LINEAR_MAX && i < cap)
		sgl_tune_eval(in, max, &rows[i++]);
	return i;
}

unsigned int sgl_tune_pick(const struct sgl_tune_input *in, double target)
{
	struct sgl_tune_row rows[SGL_SEG_LINEAR_MAX + SGL_SEG_LOG_SLOTS + 2];
	__u64 total = 0;
	unsigned int s;
	int i, nr;

	for (s = 0; s < SGL_SEG_SLOTS; s++)
		total += in->seg[s];
	if (!total)
		return in->max_segments < 2 ? in->max_segments : 2;
	nr = sgl_tune_table(in, rows, sizeof(rows) / sizeof(rows[0]));
	for (i = 0; i < nr; i++)
		if (rows[i].chained_frac <= target)
			return rows[i].n;
	return in->max_segments;
}
