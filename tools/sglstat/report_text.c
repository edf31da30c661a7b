// SPDX-License-Identifier: GPL-2.0
/* Human output: per-op table, segment table, biolatency-style histograms. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "report.h"
#include "hist.h"
#include "disks.h"

#define STARS 40

static void stars(FILE *out, __u64 v, __u64 max)
{
	int n = max ? (int)((double)v * STARS / (double)max + 0.5) : 0, i;

	if (v && !n)
		n = 1;
	fputc('|', out);
	for (i = 0; i < STARS; i++)
		fputc(i < n ? '*' : ' ', out);
	fputc('|', out);
}

static __u64 hist_max(const __u64 *h, unsigned int n)
{
	__u64 m = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (h[i] > m)
			m = h[i];
	return m;
}

/* One histogram row: @fixed as the label, else "(lo, hi]" or "(lo, inf)". */
static void hist_row(FILE *out, const char *fixed, __u64 lo, __u64 hi, bool open, __u64 n,
		     __u64 max)
{
	char label[64];

	if (fixed)
		snprintf(label, sizeof(label), "%s", fixed);
	else if (open)
		snprintf(label, sizeof(label), "(%llu, inf)", (unsigned long long)lo);
	else
		snprintf(label, sizeof(label), "(%llu, %llu]", (unsigned long long)lo,
			 (unsigned long long)hi);
	fprintf(out, "  %28s : %-10llu ", label, (unsigned long long)n);
	stars(out, n, max);
	fputc('\n', out);
}

/* Upper-inclusive log2 histogram: rows (lo, hi] (slot 0: [0, 1]), in ns or ms. */
static void print_lat_hist(FILE *out, const __u64 h[SGL_LAT_SLOTS], bool ms)
{
	int first = sgl_hist_first(h, SGL_LAT_SLOTS), last = sgl_hist_last(h, SGL_LAT_SLOTS), i;
	__u64 max = hist_max(h, SGL_LAT_SLOTS);

	if (last < 0)
		return;
	fprintf(out, "  %28s : count      distribution\n", ms ? "msecs" : "nsecs");
	for (i = first; i <= last; i++) {
		char label[64], a[32], b[32];
		__u64 lo, hi;
		bool open;

		sgl_lat_bounds(i, &lo, &hi, &open);
		sgl_lat_bound_text(lo, ms, a, sizeof(a));
		sgl_lat_bound_text(hi, ms, b, sizeof(b));
		if (open)
			snprintf(label, sizeof(label), "(%s, inf)", a);
		else
			snprintf(label, sizeof(label), i == 0 ? "[%s, %s]" : "(%s, %s]", a, b);
		hist_row(out, label, lo, hi, open, h[i], max);
	}
}

/* Linear rows for exact counts (only non-empty ones when sparse), log2 rows above 128. */
static void print_seg_hist(FILE *out, const __u64 h[SGL_SEG_SLOTS])
{
	int first = sgl_hist_first(h, SGL_SEG_SLOTS), last = sgl_hist_last(h, SGL_SEG_SLOTS), i;
	__u64 max = hist_max(h, SGL_SEG_SLOTS);
	int lin_last = last > SGL_SEG_LINEAR_MAX ? SGL_SEG_LINEAR_MAX : last;
	bool dense = lin_last - first <= 16;
	char point[24];

	if (last < 0)
		return;
	fprintf(out, "  %28s : count      distribution\n", "segments");
	for (i = first; i <= last; i++) {
		__u64 lo, hi;
		bool open;

		if (!h[i] && !(dense && i <= lin_last))
			continue;
		sgl_seg_bounds(i, &lo, &hi, &open);
		snprintf(point, sizeof(point), "%llu", (unsigned long long)lo);
		hist_row(out, lo == hi ? point : NULL, lo, hi, open, h[i], max);
	}
}

/* Percentiles as the log2 slot that holds them: the precision the histogram has. */
static void pct_line(FILE *out, const char *what, const __u64 h[SGL_LAT_SLOTS], bool ms)
{
	char p50[64], p90[64], p99[64];

	sgl_lat_pct_text(h, 50, ms, p50, sizeof(p50));
	sgl_lat_pct_text(h, 90, ms, p90, sizeof(p90));
	sgl_lat_pct_text(h, 99, ms, p99, sizeof(p99));
	fprintf(out, "  %s: n=%llu p50 %s, p90 %s, p99 %s %s\n", what,
		(unsigned long long)sgl_hist_sum(h, SGL_LAT_SLOTS), p50, p90, p99, ms ? "ms" : "ns");
}

static void print_disk(FILE *out, const struct sgl_snapshot *snap, const struct sgl_disk_snap *d,
		       const struct sgl_report_opts *o)
{
	double secs = o->cumulative ? snap->elapsed_s : snap->interval_s;
	struct sgl_stats tot;
	unsigned int op;

	if (secs <= 0)
		secs = 1e-9;
	enum sgl_mode mode = sgl_disk_mode(snap, d);
	bool failures_known = mode == SGL_MODE_DRIVER;

	fprintf(out, "%s: %s mode, ", d->name, mode == SGL_MODE_AUTO ? "mixed" : sgl_mode_name(mode));
	if (d->kind != SGL_DISK_OTHER)
		fprintf(out, "%s, ", sgl_kind_name(d->kind));
	if (d->inline_cnt || !d->inline_assumed)
		fprintf(out, "inline %u%s", d->inline_cnt, d->inline_assumed ? " (assumed)" : "");
	else
		fprintf(out, "inline mixed");
	fprintf(out, ", %s %.2f s\n", o->cumulative ? "cumulative over" : "interval", secs);

	fprintf(out, "  %-12s %10s %9s %9s %8s %12s %10s %8s %8s %7s\n", "op", "req/s", "MiB/s",
		"chained", "chain%", "chainKiB/s", "allocfail", "retries", "requeue", "ioerr");
	sgl_disk_total(d, o->cumulative, &tot);
	for (op = 0; op <= SGL_NR_OPS; op++) {
		const struct sgl_stats *s = op < SGL_NR_OPS ? sgl_pick(d, op, o->cumulative) : &tot;
		char fail[24];

		if (op < SGL_NR_OPS && !s->c.requests && !s->c.completions && !s->c.alloc_failures &&
		    !s->c.retries && !s->c.requeues)
			continue;
		if (failures_known)
			snprintf(fail, sizeof(fail), "%llu", (unsigned long long)s->c.alloc_failures);
		else
			snprintf(fail, sizeof(fail), "unknown");
		fprintf(out, "  %-12s %10.1f %9.2f %9llu %7.2f%% %12.1f %10s %8llu %8llu %7llu\n",
			op < SGL_NR_OPS ? sgl_op_name(op) : "total",
			s->c.requests / secs, s->c.bytes / secs / 1048576.0,
			(unsigned long long)s->c.chained,
			s->c.requests ? 100.0 * s->c.chained / s->c.requests : 0.0,
			s->c.chained_bytes / secs / 1024.0, fail,
			(unsigned long long)s->c.retries, (unsigned long long)s->c.requeues,
			(unsigned long long)s->c.io_errors);
	}
	if (!failures_known)
		fprintf(out, "  (stock mode: SG allocation failures are not traced (block_rq_issue fires after mapping);\n"
			     "   retries = requests requeued before issue, which in-tree virtio_blk does for read/write\n"
			     "   only when the SG allocation failed; requeue = requeued after issue, e.g. virtqueue full)\n");
	else if (tot.c.model_mismatch)
		fprintf(out, "  WARNING: %llu chained setups whose chained_bytes differ from sgl_chained_bytes()\n",
			(unsigned long long)tot.c.model_mismatch);
	fprintf(out, "  sg_pool bytes in flight %lld, peak %lld (%s)\n",
		(long long)d->chained_now, (long long)d->chained_peak,
		mode == SGL_MODE_DRIVER && !snap->setup_events ?
		"the driver's: peak since load or reset" : "as seen since attach");
	if (tot.c.lat_src_io_start || tot.c.lat_src_start)
		fprintf(out, "  latency from %s: %llu samples from io_start_time_ns (device time), %llu from start_time_ns (with queueing)\n",
			o->queued ? "request allocation (-Q)" :
			tot.c.lat_src_start ? "issue where the queue keeps stats, else allocation" : "issue",
			(unsigned long long)tot.c.lat_src_io_start, (unsigned long long)tot.c.lat_src_start);

	for (op = 0; op < SGL_NR_OPS; op++) {
		const struct sgl_stats *s = sgl_pick(d, op, o->cumulative);
		int k;

		if (!s->c.requests && !s->c.completions)
			continue;
		fprintf(out, "\n  %s: segments per request (mean %.2f)\n", sgl_op_name(op),
			s->c.requests ? (double)s->c.segments / s->c.requests : 0.0);
		print_seg_hist(out, s->seg);
		for (k = 0; k < SGL_NR_LAT; k++) {
			if (!sgl_hist_sum(s->lat[k], SGL_LAT_SLOTS))
				continue;
			fprintf(out, "\n  %s: I/O latency, %s SG table\n", sgl_op_name(op),
				k == SGL_LAT_INLINE ? "inline" : "chained");
			pct_line(out, "latency", s->lat[k], o->milliseconds);
			print_lat_hist(out, s->lat[k], o->milliseconds);
		}
		if (mode != SGL_MODE_STOCK && sgl_hist_sum(s->setup, SGL_LAT_SLOTS)) {
			fprintf(out, "\n  %s: SG setup time (setup_ns)\n", sgl_op_name(op));
			pct_line(out, "setup", s->setup, o->milliseconds);
			print_lat_hist(out, s->setup, o->milliseconds);
		}
	}
	fputc('\n', out);
}

void sgl_report_text(FILE *out, const struct sgl_snapshot *snap, const struct sgl_report_opts *o)
{
	unsigned int i;

	if (o->timestamp) {
		time_t t = (time_t)snap->ts_realtime;
		struct tm tm;
		char buf[32];

		localtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
		fprintf(out, "%s\n", buf);
	}
	if (o->per_disk) {
		for (i = 0; i < snap->nr_disks; i++)
			print_disk(out, snap, &snap->disk[i], o);
	} else {
		static struct sgl_disk_snap all;

		sgl_snapshot_sum_disks(snap, &all);
		if (snap->nr_disks == 1)
			sgl_strcpy(all.name, sizeof(all.name), snap->disk[0].name);
		print_disk(out, snap, &all, o);
	}
	fflush(out);
}
