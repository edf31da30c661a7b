/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_HIST_H
#define SGLSTAT_HIST_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "sglstat.h"

/*
 * Bounds of a latency slot: slot 0 is [0, 1], slot k >= 1 is (lo, hi] with
 * lo = 2^(k-1), hi = 2^k.  The last slot also holds everything above; for
 * it *open_top is set (hi is then only the nominal bound).
 */
void sgl_lat_bounds(unsigned int slot, __u64 *lo, __u64 *hi, bool *open_top);

/*
 * Bounds of a segment slot: slots 0..128 are exact (lo == hi == slot);
 * slot 129 + j is (128 * 2^j, 128 * 2^(j+1)]; the last is open-topped.
 */
void sgl_seg_bounds(unsigned int slot, __u64 *lo, __u64 *hi, bool *open_top);

__u64 sgl_hist_sum(const __u64 *h, unsigned int n);

/*
 * Percentile @p (0 < p <= 100) of a histogram, -1 when it is empty.
 * The rank is r = p / 100 * N; the slot is the first whose cumulative count
 * reaches r; within an exact slot the value is the slot's value, within a
 * range slot (lo, hi] it is interpolated linearly:
 *   lo + (hi - lo) * (r - count below the slot) / count in the slot,
 * assuming values spread evenly inside the slot.  In the open-topped last
 * slot the result is lo (a lower bound).
 */
double sgl_lat_percentile(const __u64 h[SGL_LAT_SLOTS], double p);
double sgl_seg_percentile(const __u64 h[SGL_SEG_SLOTS], double p);

/*
 * Text form of percentile @p of a latency histogram at the precision the
 * log2 slots support: the bounds of the slot holding it, "(lo, hi]" ("[0, 1]"
 * for slot 0, "> lo" for the open last one), in ns or, with @ms, in
 * milliseconds to 3 significant digits.  "-" when empty.
 */
void sgl_lat_pct_text(const __u64 h[SGL_LAT_SLOTS], double p, bool ms, char *buf, size_t len);
/* A latency bound @ns as text: the integer, or ms to 3 significant digits. */
void sgl_lat_bound_text(__u64 ns, bool ms, char *buf, size_t len);

/* Last non-zero slot, or -1. */
int sgl_hist_last(const __u64 *h, unsigned int n);
int sgl_hist_first(const __u64 *h, unsigned int n);

#endif
