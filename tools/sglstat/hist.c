// SPDX-License-Identifier: GPL-2.0
/* Histogram slot bounds and percentiles (see hist.h for the definitions). */
#include <stdio.h>
#include "hist.h"

void sgl_lat_bounds(unsigned int slot, __u64 *lo, __u64 *hi, bool *open_top)
{
	*open_top = slot >= SGL_LAT_SLOTS - 1;
	if (slot == 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	*lo = 1ULL << (slot - 1);
	*hi = 1ULL << slot;
}

void sgl_seg_bounds(unsigned int slot, __u64 *lo, __u64 *hi, bool *open_top)
{
	unsigned int j;

	*open_top = slot >= SGL_SEG_SLOTS - 1;
	if (slot <= SGL_SEG_LINEAR_MAX) {
		*lo = *hi = slot;
		return;
	}
	j = slot - SGL_SEG_LINEAR_MAX - 1;
	*lo = (__u64)SGL_SEG_LINEAR_MAX << j;
	*hi = (__u64)SGL_SEG_LINEAR_MAX << (j + 1);
}

__u64 sgl_hist_sum(const __u64 *h, unsigned int n)
{
	__u64 s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		s += h[i];
	return s;
}

int sgl_hist_last(const __u64 *h, unsigned int n)
{
	int i;

	for (i = (int)n - 1; i >= 0; i--)
		if (h[i])
			return i;
	return -1;
}

int sgl_hist_first(const __u64 *h, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (h[i])
			return (int)i;
	return -1;
}

typedef void (*bounds_fn)(unsigned int, __u64 *, __u64 *, bool *);

static double percentile(const __u64 *h, unsigned int n, bounds_fn bounds, double p)
{
	__u64 total = sgl_hist_sum(h, n), below = 0;
	double r;
	unsigned int i;

	if (!total || p <= 0 || p > 100)
		return -1;
	r = p / 100.0 * (double)total;
	for (i = 0; i < n; i++) {
		__u64 lo, hi;
		bool open;

		if (!h[i])
			continue;
		if ((double)(below + h[i]) >= r) {
			bounds(i, &lo, &hi, &open);
			if (lo == hi || open)
				return (double)lo;
			/* slot 0 of the latency histogram is [0, 1]: same formula */
			return (double)lo + (double)(hi - lo) * (r - (double)below) / (double)h[i];
		}
		below += h[i];
	}
	return -1;	/* not reached: r <= total */
}

double sgl_lat_percentile(const __u64 h[SGL_LAT_SLOTS], double p)
{
	return percentile(h, SGL_LAT_SLOTS, sgl_lat_bounds, p);
}

double sgl_seg_percentile(const __u64 h[SGL_SEG_SLOTS], double p)
{
	return percentile(h, SGL_SEG_SLOTS, sgl_seg_bounds, p);
}

void sgl_lat_bound_text(__u64 ns, bool ms, char *buf, size_t len)
{
	if (ms)
		snprintf(buf, len, "%.3g", (double)ns / 1e6);
	else
		snprintf(buf, len, "%llu", (unsigned long long)ns);
}

void sgl_lat_pct_text(const __u64 h[SGL_LAT_SLOTS], double p, bool ms, char *buf, size_t len)
{
	__u64 total = sgl_hist_sum(h, SGL_LAT_SLOTS), below = 0, lo, hi;
	char a[32], b[32];
	double r;
	bool open;
	unsigned int i;

	if (!total || p <= 0 || p > 100) {
		snprintf(buf, len, "-");
		return;
	}
	r = p / 100.0 * (double)total;
	for (i = 0; i < SGL_LAT_SLOTS; i++) {
		below += h[i];
		if (h[i] && (double)below >= r)
			break;
	}
	if (i >= SGL_LAT_SLOTS)
		i = SGL_LAT_SLOTS - 1;
	sgl_lat_bounds(i, &lo, &hi, &open);
	sgl_lat_bound_text(lo, ms, a, sizeof(a));
	sgl_lat_bound_text(hi, ms, b, sizeof(b));
	if (open)
		snprintf(buf, len, "> %s", a);
	else if (i == 0)
		snprintf(buf, len, "[%s, %s]", a, b);
	else
		snprintf(buf, len, "(%s, %s]", a, b);
}
