// SPDX-License-Identifier: GPL-2.0
/* JSON output: one object per line per interval (schema in docs/SGLSTAT.md). */
#include <math.h>
#include <stdio.h>
#include "report.h"
#include "hist.h"
#include "json.h"

static void num_or_null(FILE *out, double v)
{
	if (v < 0 || isnan(v))
		fputs("null", out);
	else
		fprintf(out, "%.1f", v);
}

/* One histogram item [lo,hi,count] (hi null when open), comma-separated. */
static void range_item(FILE *out, bool *first, __u64 lo, __u64 hi, bool open, __u64 n)
{
	fprintf(out, "%s[%llu,", *first ? "" : ",", (unsigned long long)lo);
	if (open)
		fputs("null", out);
	else
		fprintf(out, "%llu", (unsigned long long)hi);
	fprintf(out, ",%llu]", (unsigned long long)n);
	*first = false;
}

static void lat_obj(FILE *out, const __u64 h[SGL_LAT_SLOTS])
{
	bool first = true;
	unsigned int i;

	fprintf(out, "{\"count\":%llu,\"hist\":[", (unsigned long long)sgl_hist_sum(h, SGL_LAT_SLOTS));
	for (i = 0; i < SGL_LAT_SLOTS; i++) {
		__u64 lo, hi;
		bool open;

		if (!h[i])
			continue;
		sgl_lat_bounds(i, &lo, &hi, &open);
		range_item(out, &first, lo, hi, open, h[i]);
	}
	fputs("],\"p50\":", out);
	num_or_null(out, sgl_lat_percentile(h, 50));
	fputs(",\"p90\":", out);
	num_or_null(out, sgl_lat_percentile(h, 90));
	fputs(",\"p99\":", out);
	num_or_null(out, sgl_lat_percentile(h, 99));
	fputc('}', out);
}

static void known(FILE *out, const char *name, unsigned long long v, bool is_known)
{
	if (is_known)
		fprintf(out, ",\"%s\":%llu", name, v);
	else
		fprintf(out, ",\"%s\":null", name);
}

/* seg_hist-style arrays of @h: exact [n,count] pairs, then log2 [lo,hi,count] ranges. */
static void seg_arrays(FILE *out, const char *name, const __u64 h[SGL_SEG_SLOTS])
{
	unsigned int i;
	bool first;

	fprintf(out, ",\"%s\":[", name);
	for (i = 0, first = true; i <= SGL_SEG_LINEAR_MAX; i++) {
		if (!h[i])
			continue;
		fprintf(out, "%s[%u,%llu]", first ? "" : ",", i, (unsigned long long)h[i]);
		first = false;
	}
	fprintf(out, "],\"%s_log2\":[", name);
	for (i = SGL_SEG_LINEAR_MAX + 1, first = true; i < SGL_SEG_SLOTS; i++) {
		__u64 lo, hi;
		bool open;

		if (!h[i])
			continue;
		sgl_seg_bounds(i, &lo, &hi, &open);
		range_item(out, &first, lo, hi, open, h[i]);
	}
	fputc(']', out);
}

static void stats_obj(FILE *out, enum sgl_mode mode, bool setup_events, const struct sgl_stats *s)
{
	bool drv = mode == SGL_MODE_DRIVER;

	fprintf(out, "{\"requests\":%llu,\"chained\":%llu,\"chained_bytes\":%llu,\"bytes\":%llu,"
		"\"segments\":%llu",
		(unsigned long long)s->c.requests, (unsigned long long)s->c.chained,
		(unsigned long long)s->c.chained_bytes, (unsigned long long)s->c.bytes,
		(unsigned long long)s->c.segments);
	known(out, "alloc_failures", s->c.alloc_failures, drv);
	known(out, "alloc_injected", s->c.alloc_injected, drv);
	known(out, "map_errors", s->c.map_errors, drv);
	fprintf(out, ",\"retries\":%llu,\"completions\":%llu,\"io_errors\":%llu",
		(unsigned long long)s->c.retries, (unsigned long long)s->c.completions,
		(unsigned long long)s->c.io_errors);
	known(out, "model_mismatch", s->c.model_mismatch, drv);
	fprintf(out, ",\"requeues\":%llu,\"lat_untimed\":%llu", (unsigned long long)s->c.requeues,
		(unsigned long long)s->c.lat_untimed);

	seg_arrays(out, "seg_hist", s->seg);
	seg_arrays(out, "seg_bound_hist", s->segbound);
	fprintf(out, ",\"lat_source\":{\"io_start\":%llu,\"start\":%llu}",
		(unsigned long long)s->c.lat_src_io_start, (unsigned long long)s->c.lat_src_start);
	fputs(",\"lat_ns\":{\"inline\":", out);
	lat_obj(out, s->lat[SGL_LAT_INLINE]);
	fputs(",\"chained\":", out);
	lat_obj(out, s->lat[SGL_LAT_CHAINED]);
	fputs("},\"setup_ns\":", out);
	if (drv && setup_events)
		lat_obj(out, s->setup);
	else
		fputs("null", out);
	fputc('}', out);
}

static void sysfs_obj(FILE *out, const struct sgl_drv_sysfs *f)
{
	fprintf(out, "{\"requests_mapped\":%llu,\"requests_chained\":%llu,"
		"\"chain_alloc_failures\":%llu,\"chain_alloc_injected\":%llu,\"retries\":%llu,"
		"\"chained_bytes_now\":%llu,\"chained_bytes_peak\":%llu,"
		"\"requests_completed\":%llu,\"io_errors\":%llu,\"inline_sg_cnt\":%llu}",
		(unsigned long long)f->requests_mapped, (unsigned long long)f->requests_chained,
		(unsigned long long)f->chain_alloc_failures, (unsigned long long)f->chain_alloc_injected,
		(unsigned long long)f->retries, (unsigned long long)f->chained_bytes_now,
		(unsigned long long)f->chained_bytes_peak, (unsigned long long)f->requests_completed,
		(unsigned long long)f->io_errors, (unsigned long long)f->inline_sg_cnt);
}

void sgl_report_json(FILE *out, const struct sgl_snapshot *snap, const struct sgl_report_opts *o)
{
	unsigned int i, op;

	fprintf(out, "{\"seq\":%llu,\"time\":%.3f,\"interval_s\":%.6f,\"elapsed_s\":%.6f,"
		"\"mode\":\"%s\",\"programs\":\"%s\",\"cumulative\":%s,\"failures_known\":%s,"
		"\"queued\":%s,\"setup_events\":%s,\"disks\":[",
		snap->seq, snap->ts_realtime, snap->interval_s, snap->elapsed_s,
		sgl_mode_name(snap->mode),
		snap->mode == SGL_MODE_DRIVER ? "raw_tp" : (snap->tp_btf ? "tp_btf" : "raw_tp"),
		o->cumulative ? "true" : "false", snap->failures_known ? "true" : "false",
		o->queued ? "true" : "false", snap->setup_events ? "true" : "false");
	for (i = 0; i < snap->nr_disks; i++) {
		const struct sgl_disk_snap *d = &snap->disk[i];
		enum sgl_mode mode = sgl_disk_mode(snap, d);
		struct sgl_stats tot;

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		sgl_json_str(out, d->name);
		fprintf(out, ",\"mode\":\"%s\",\"traced\":%s", sgl_mode_name(mode),
			d->traced ? "true" : "false");
		fprintf(out, ",\"dev\":\"%u:%u\",\"driver\":\"%s\",\"present\":%s,\"inline_cnt\":%u,"
			"\"inline_assumed\":%s,\"chained_bytes_inflight\":%lld,\"chained_bytes_peak\":%lld,"
			"\"total\":",
			d->major, d->first_minor, sgl_kind_name(d->kind), d->present ? "true" : "false",
			d->inline_cnt, d->inline_assumed ? "true" : "false",
			(long long)d->chained_now, (long long)d->chained_peak);
		sgl_disk_total(d, o->cumulative, &tot);
		stats_obj(out, mode, snap->setup_events, &tot);
		fputs(",\"ops\":{", out);
		for (op = 0; op < SGL_NR_OPS; op++) {
			fprintf(out, "%s\"%s\":", op ? "," : "", sgl_op_name(op));
			stats_obj(out, mode, snap->setup_events, sgl_pick(d, op, o->cumulative));
		}
		fputs("},\"sysfs\":", out);
		if (d->sysfs.valid)
			sysfs_obj(out, &d->sysfs);
		else
			fputs("null", out);
		fputs(",\"geometry\":", out);
		if (d->geo.valid)
			fprintf(out, "{\"max_segments\":%llu,\"nr_requests_total\":%llu,\"estimated\":%s}",
				(unsigned long long)d->geo.max_segments,
				(unsigned long long)d->geo.nr_requests_total,
				d->geo.estimated ? "true" : "false");
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("]}\n", out);
	fflush(out);
}
