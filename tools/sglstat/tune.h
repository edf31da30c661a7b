/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sglstat tune: predict, for each candidate inline SG count N, what a disk
 * with the observed segment distribution would do, and pick one N.
 */
#ifndef SGLSTAT_TUNE_H
#define SGLSTAT_TUNE_H

#include <linux/types.h>
#include <stdbool.h>
#include "sglstat.h"

/* Default --target-chain-rate: at most 1% of requests allocate. */
#define SGL_TUNE_DEFAULT_TARGET	0.01

/*
 * A count of requests with segment counts in (lo, hi] (lo < hi), or exactly
 * lo (lo == hi): for histograms coarser than sglstat's own (Prometheus
 * buckets).  hi may be above max_segments (clamped, e.g. le="+Inf").
 */
struct sgl_tune_range {
	__u64 lo, hi, count;
};

#define SGL_TUNE_MAX_RANGES	64
/* Rows sgl_tune_table() can return: 0..128, the 10 log2 bounds, max. */
#define SGL_TUNE_MAX_ROWS	(SGL_SEG_LINEAR_MAX + 1 + SGL_SEG_LOG_SLOTS + 1)

struct sgl_tune_input {
	__u64 seg[SGL_SEG_SLOTS];	/* exact segment histogram, all ops */
	struct sgl_tune_range range[SGL_TUNE_MAX_RANGES];	/* extra coarse counts */
	unsigned int nr_ranges;
	double duration_s;		/* time the histogram covers */
	unsigned int max_segments;	/* the device's limit */
	__u64 nr_requests_total;	/* PDUs the block layer allocates (tags, sched, flush) */
	/*
	 * Fragmentation bound per request (sglstat.h segbound): the segments
	 * the same request sizes could need in the next process, wherever its
	 * buffer pages land.  Slots above max_segments count at max_segments.
	 */
	__u64 bound[SGL_SEG_SLOTS];
	bool bound_known;
};

struct sgl_tune_row {
	unsigned int n;			/* candidate inline_sg_cnt */
	__u64 total;			/* requests in the histogram */
	__u64 chained;			/* requests that would allocate */
	double chained_frac;		/* of all requests */
	double chained_per_s;
	double pool_bytes_per_s;	/* sg_pool bytes allocated per second */
	__u64 inline_bytes;		/* nr_requests_total * n * entry size */
	__u64 full_bytes;		/* with n = max_segments */
	bool exact;			/* false: n falls inside a range slot (chained is a bound) */
	bool pool_exact;		/* false: range slots counted at their top (a bound) */
};

/*
 * Candidates worth a row: 0 .. min(128, max), then the log2 slot bounds
 * above 128 (up to 128 << SGL_SEG_LOG_SLOTS) below max, and max itself.
 * Fills up to @cap
 * rows, returns how many, or -EINVAL.
 */
int sgl_tune_table(const struct sgl_tune_input *in, struct sgl_tune_row *rows, int cap);

/* One row for an arbitrary @n (for "what does the current value do");
 * n above max_segments is clamped to it, as the driver does. */
void sgl_tune_eval(const struct sgl_tune_input *in, unsigned int n, struct sgl_tune_row *row);

/*
 * The rule: the smallest candidate N whose predicted chained fraction is at
 * most @target; max_segments (full preallocation) when none is.  With no
 * requests at all, 2 (the upstream default).  Returns the N.
 */
/* Does @row meet @target (chained <= target * total)? */
bool sgl_tune_meets(const struct sgl_tune_row *row, double target);

unsigned int sgl_tune_pick(const struct sgl_tune_input *in, double target);

/* @in with the fragmentation bound as its segment histogram (capped at max_segments). */
void sgl_tune_bound_input(const struct sgl_tune_input *in, struct sgl_tune_input *out);
/*
 * The pick that holds for the next process: by the fragmentation bound when
 * @in has it and !@observed, else by the observed segments.  *@by_bound (if
 * not NULL) says which one the pick rests on.
 */
unsigned int sgl_tune_pick_by(const struct sgl_tune_input *in, double target, bool observed,
			      bool *by_bound);

#endif
