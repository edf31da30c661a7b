// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition of a struct sgl_snapshot (issue #5).
 *
 * Rules followed (docs/PROMETHEUS.md has the metric reference):
 *  - prefix virtio_blk_sgl_, counters end in _total, base units (_seconds,
 *    _bytes); no client-side timestamps (node_exporter rejects them);
 *  - labels: disk, op, mode (and le); the one exception is
 *    virtio_blk_sgl_exporter_info, whose version labels are the point of an
 *    _info metric;
 *  - one HELP and one TYPE per family, before its samples, families never
 *    interleaved; a family without samples is left out entirely;
 *  - counters come from the cumulative stats (disk[i].cum); a requeue undo
 *    can make those dip between intervals, so a monotonic guard (mono_apply)
 *    keeps every exported counter and bucket from going down within a run;
 *    a restart is an ordinary counter reset;
 *  - histogram buckets are cumulative sums of exact slots, so every le bound
 *    is exact and upper-inclusive, and le="+Inf" equals _count by
 *    construction.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include "atomic_file.h"
#include "disks.h"
#include "memory.h"
#include "report_prom.h"

#define P "virtio_blk_sgl_"

/* ------------------------------------------------------------ buffer */

struct out {
	char *p;
	size_t len, cap;
	int err;
};

static void out_vprintf(struct out *o, const char *fmt, va_list ap)
{
	va_list aq;
	size_t need;
	char *np;
	int n;

	if (o->err)
		return;
	va_copy(aq, ap);
	n = vsnprintf(o->p ? o->p + o->len : NULL, o->p ? o->cap - o->len : 0, fmt, aq);
	va_end(aq);
	if (n < 0) {
		o->err = -EINVAL;
		return;
	}
	if (o->p && o->len + (size_t)n < o->cap) {
		o->len += (size_t)n;
		return;
	}
	need = o->len + (size_t)n + 1;
	if (need < 2 * o->cap)
		need = 2 * o->cap;
	if (need < 16384)
		need = 16384;
	np = realloc(o->p, need);
	if (!np) {
		o->err = -ENOMEM;
		return;
	}
	o->p = np;
	o->cap = need;
	vsnprintf(o->p + o->len, o->cap - o->len, fmt, ap);
	o->len += (size_t)n;
}

__attribute__((format(printf, 2, 3)))
static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vprintf(o, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ escaping */

size_t sgl_prom_escape_label(const char *in, char *out, size_t outlen)
{
	size_t n = 0;
	const char *s;

	for (s = in; *s; s++) {
		const char *rep = NULL;
		char c[2] = { *s, '\0' };

		if (*s == '\\')
			rep = "\\\\";
		else if (*s == '"')
			rep = "\\\"";
		else if (*s == '\n')
			rep = "\\n";
		else
			rep = c;
		for (; *rep; rep++, n++)
			if (outlen && n < outlen - 1)
				out[n] = *rep;
	}
	if (outlen)
		out[n < outlen ? n : outlen - 1] = '\0';
	return n;
}

/* Append an escaped label value. */
static void out_label(struct out *o, const char *v)
{
	char buf[256];
	size_t n = sgl_prom_escape_label(v, buf, sizeof(buf));
	char *big;

	if (n < sizeof(buf)) {
		out_printf(o, "%s", buf);
		return;
	}
	big = malloc(n + 1);
	if (!big) {
		o->err = -ENOMEM;
		return;
	}
	sgl_prom_escape_label(v, big, n + 1);
	out_printf(o, "%s", big);
	free(big);
}

/* ------------------------------------------------------------ families */

struct fam {
	const char *name, *type, *help;
	int started;
};

/* HELP and TYPE, once, just before the first sample of the family. */
static void fam_sample(struct out *o, struct fam *f)
{
	if (f->started)
		return;
	f->started = 1;
	/* help strings are constants without \ or newline: nothing to escape */
	out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
}

struct lbl {
	const char *disk;	/* NULL: no disk label */
	const char *op;		/* NULL: no op label */
	const char *mode;
};

static void out_labels(struct out *o, const struct lbl *l, const char *le)
{
	int first = 1;

	out_printf(o, "{");
	if (l->disk) {
		out_printf(o, "disk=\"");
		out_label(o, l->disk);
		out_printf(o, "\"");
		first = 0;
	}
	if (l->op) {
		out_printf(o, "%sop=\"%s\"", first ? "" : ",", l->op);
		first = 0;
	}
	out_printf(o, "%smode=\"%s\"", first ? "" : ",", l->mode);
	if (le)
		out_printf(o, ",le=\"%s\"", le);
	out_printf(o, "}");
}

static void out_u64(struct out *o, struct fam *f, const char *suffix, const struct lbl *l,
		    const char *le, unsigned long long v)
{
	fam_sample(o, f);
	out_printf(o, "%s%s", f->name, suffix);
	out_labels(o, l, le);
	out_printf(o, " %llu\n", v);
}

/* @ns nanoseconds as exact decimal seconds: 1024 -> "0.000001024", 2e9 -> "2". */
static void ns_to_seconds(unsigned long long ns, char *buf, size_t len)
{
	char frac[16];
	int i;

	snprintf(frac, sizeof(frac), "%09llu", ns % 1000000000ULL);
	for (i = 8; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	if (frac[0])
		snprintf(buf, len, "%llu.%s", ns / 1000000000ULL, frac);
	else
		snprintf(buf, len, "%llu", ns / 1000000000ULL);
}

/* The same for a latency sum that may exceed 2^64 ns (months of a busy disk). */
static void wide_ns_to_seconds(unsigned __int128 ns, char *buf, size_t len)
{
	unsigned long long sec = (unsigned long long)(ns / 1000000000ULL);
	unsigned long long rest = (unsigned long long)(ns % 1000000000ULL);
	char frac[16];
	int i;

	snprintf(frac, sizeof(frac), "%09llu", rest);
	for (i = 8; i >= 0 && frac[i] == '0'; i--)
		frac[i] = '\0';
	if (frac[0])
		snprintf(buf, len, "%llu.%s", sec, frac);
	else
		snprintf(buf, len, "%llu", sec);
}

/* ------------------------------------------------------------ histograms */

/* Segment buckets: exact counts up to 16 (where inline counts are tuned),
 * then a ~1.5x ladder; above 128
 * only 128 * 2^m, the log slots' own (exact) bounds. */
static const unsigned int seg_le[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 20, 24, 28, 32, 48, 64, 96,
	128, 256, 512, 1024,
};

/* Last seg slot counted by bucket le=@le. */
static unsigned int seg_le_slot(unsigned int le)
{
	unsigned int m = 0;

	if (le <= SGL_SEG_LINEAR_MAX)
		return le;
	while (((unsigned int)SGL_SEG_LINEAR_MAX << (m + 1)) < le)
		m++;
	/* slot 129 + j holds (128 * 2^j, 128 * 2^(j+1)]: le = 128 * 2^(m+1) -> j = m */
	return SGL_SEG_LINEAR_MAX + 1 + m;
}

/* Latency buckets le = 2^k ns for k in [lo, hi]: slot k holds (2^(k-1), 2^k]. */
#define IO_LAT_K_LO	10	/* 1.024 us */
#define IO_LAT_K_HI	35	/* 34.36 s */
#define SETUP_LAT_K_LO	6	/* 64 ns */
#define SETUP_LAT_K_HI	26	/* 67.1 ms */

#define NSEG_LE		(sizeof(seg_le) / sizeof(seg_le[0]))
#define SEG_NB		(NSEG_LE + 1)				/* + Inf */
#define IO_NB		(IO_LAT_K_HI - IO_LAT_K_LO + 2)
#define SETUP_NB	(SETUP_LAT_K_HI - SETUP_LAT_K_LO + 2)

/*
 * Every monotonic value exported for one (disk, op): the counters, and the
 * histograms as cumulative bucket counts (last element = +Inf = _count).
 * All words are independent monotonic series, so a word-wise max keeps them
 * monotonic and the histograms consistent (+Inf == _count, buckets
 * non-decreasing in le).
 */
struct mono_op {
	__u64 ctr[SGL_NR_COUNTERS];
	__u64 seg[SEG_NB], seg_sum;
	__u64 lat[SGL_NR_LAT][IO_NB];
	__u64 setup[SETUP_NB];
	__u64 lat_sum_ns[SGL_NR_LAT], setup_sum_ns;
};

#define MONO_WORDS	(sizeof(struct mono_op) / sizeof(__u64))
#define MONO_DISKS	(4 * SGL_MAX_DISKS)

struct mono_disk {
	int used;
	char name[32];
	unsigned int major, first_minor;
	unsigned long long never_dec, last_use;
	struct mono_op op[SGL_NR_OPS];
};

struct sgl_prom_mono {
	unsigned long long tick;
	struct mono_disk d[MONO_DISKS];
};

/* Cumulative buckets of a latency histogram: le = 2^k ns, k in [klo, khi]. */
static void lat_cum(const __u64 h[SGL_LAT_SLOTS], unsigned int klo, unsigned int khi,
		    __u64 *out)
{
	unsigned long long cum = 0;
	unsigned int k, slot = 0, n = 0;

	for (k = klo; k <= khi; k++) {
		for (; slot <= k && slot < SGL_LAT_SLOTS; slot++)
			cum += h[slot];
		out[n++] = cum;
	}
	for (; slot < SGL_LAT_SLOTS; slot++)
		cum += h[slot];
	out[n] = cum;
}

static void mono_compute(const struct sgl_stats *s, struct mono_op *m)
{
	unsigned long long cum = 0;
	unsigned int b, slot = 0, last, c;

	memcpy(m->ctr, &s->c, sizeof(m->ctr));
	for (b = 0; b < NSEG_LE; b++) {
		last = seg_le_slot(seg_le[b]);
		for (; slot <= last; slot++)
			cum += s->seg[slot];
		m->seg[b] = cum;
	}
	for (; slot < SGL_SEG_SLOTS; slot++)
		cum += s->seg[slot];
	m->seg[NSEG_LE] = cum;
	m->seg_sum = s->c.segments;
	for (c = 0; c < SGL_NR_LAT; c++)
		lat_cum(s->lat[c], IO_LAT_K_LO, IO_LAT_K_HI, m->lat[c]);
	lat_cum(s->setup, SETUP_LAT_K_LO, SETUP_LAT_K_HI, m->setup);
	for (c = 0; c < SGL_NR_LAT; c++)
		m->lat_sum_ns[c] = s->c.lat_sum_ns[c];
	m->setup_sum_ns = s->c.setup_sum_ns;
}

/* Sum of the counters the BPF programs only ever increment: if it drops, the
 * statistics of the disk were really reset (not a requeue undo). */
static unsigned long long never_dec(const struct sgl_disk_snap *d)
{
	unsigned long long t = 0;
	unsigned int op;

	for (op = 0; op < SGL_NR_OPS; op++) {
		const struct sgl_counters *c = &d->cum[op].c;

		t += c->completions + c->io_errors + c->lat_untimed + c->alloc_failures +
		     c->alloc_injected + c->map_errors + c->retries + c->model_mismatch +
		     c->requeues;
	}
	return t;
}

/*
 * Monotonic guard.  A request requeued after issue is taken back out of
 * requests, segments, chained and the segment histogram (bpf/sglstat.bpf.c)
 * and counted again when it is reissued, so between two intervals those
 * cumulative values can drop a little.  A Prometheus counter that drops is a
 * reset (rate() would count the whole value again), so each exported value
 * is the max of the current value and the last one exported for the same
 * (disk, op); it is exact again once the requests are reissued.  A real
 * reset (a counter that is only ever incremented went down, or the disk's
 * major:minor changed) starts over.
 */
static void mono_apply(struct sgl_prom_mono *st, const struct sgl_disk_snap *d,
		       struct mono_op cur[SGL_NR_OPS])
{
	unsigned long long nd = never_dec(d);
	struct mono_disk *e = NULL, *victim = NULL;
	unsigned int i, op;
	size_t w;

	if (!st)
		return;
	st->tick++;
	for (i = 0; i < MONO_DISKS; i++) {
		struct mono_disk *x = &st->d[i];

		if (x->used && !strncmp(x->name, d->name, sizeof(x->name))) {
			e = x;
			break;
		}
		/* a free entry, else the least recently used one */
		if (!x->used) {
			if (!victim || victim->used)
				victim = x;
		} else if (!victim || (victim->used && x->last_use < victim->last_use)) {
			victim = x;
		}
	}
	if (!e) {
		e = victim;
		memset(e, 0, sizeof(*e));
		e->used = 1;
		snprintf(e->name, sizeof(e->name), "%s", d->name);
		e->major = d->major;
		e->first_minor = d->first_minor;
	} else if (e->major != d->major || e->first_minor != d->first_minor ||
		   nd < e->never_dec) {
		memset(e->op, 0, sizeof(e->op));
		e->major = d->major;
		e->first_minor = d->first_minor;
	}
	e->never_dec = nd;
	e->last_use = st->tick;
	for (op = 0; op < SGL_NR_OPS; op++) {
		__u64 *last = (__u64 *)&e->op[op], *v = (__u64 *)&cur[op];

		for (w = 0; w < MONO_WORDS; w++) {
			if (v[w] < last[w])
				v[w] = last[w];
			last[w] = v[w];
		}
	}
}

static void out_seg_hist(struct out *o, struct fam *f, const struct lbl *l,
			 const struct mono_op *m)
{
	unsigned int b;
	char le[16];

	for (b = 0; b < NSEG_LE; b++) {
		snprintf(le, sizeof(le), "%u", seg_le[b]);
		out_u64(o, f, "_bucket", l, le, m->seg[b]);
	}
	out_u64(o, f, "_bucket", l, "+Inf", m->seg[NSEG_LE]);
	out_u64(o, f, "_sum", l, NULL, m->seg_sum);
	out_u64(o, f, "_count", l, NULL, m->seg[NSEG_LE]);
}

/* Latency histogram; the BPF side sums the latencies in ns for _sum. */
static void out_lat_hist(struct out *o, struct fam *f, const struct lbl *l,
			 const __u64 *cum, unsigned int klo, unsigned int khi, unsigned __int128 sum_ns)
{
	unsigned int k, n = 0;
	char le[40];

	for (k = klo; k <= khi; k++) {
		ns_to_seconds(1ULL << k, le, sizeof(le));
		out_u64(o, f, "_bucket", l, le, cum[n++]);
	}
	out_u64(o, f, "_bucket", l, "+Inf", cum[n]);
	wide_ns_to_seconds(sum_ns, le, sizeof(le));
	fam_sample(o, f);
	out_printf(o, "%s_sum", f->name);
	out_labels(o, l, NULL);
	out_printf(o, " %s\n", le);
	out_u64(o, f, "_count", l, NULL, cum[n]);
}

/* ------------------------------------------------------------ the file */

/* Disks to export: skip empty names and duplicates (duplicate series would
 * make node_exporter drop the whole file). */
static int disk_exported(const struct sgl_snapshot *snap, unsigned int i)
{
	unsigned int j;

	if (!snap->disk[i].name[0])
		return 0;
	for (j = 0; j < i; j++)
		if (!strncmp(snap->disk[j].name, snap->disk[i].name, sizeof(snap->disk[i].name)))
			return 0;
	return 1;
}

enum when { W_ALL, W_FAILURES_KNOWN, W_DRIVER };

static const struct ctr_def {
	const char *name, *help;
	size_t off;
	enum when when;
} ctr_defs[] = {
	{ P "requests_total",
	  "Requests completed (driver mode; set up, with --setup-time) or issued (stock mode), by disk and op.",
	  offsetof(struct sgl_counters, requests), W_ALL },
	{ P "chained_requests_total",
	  "Of those, requests whose SG table needed an sg_pool allocation (stock mode: inferred from the inline count).",
	  offsetof(struct sgl_counters, chained), W_ALL },
	{ P "chained_bytes_total",
	  "Bytes taken from sg_pool by chained requests (include/sgl_model.h).",
	  offsetof(struct sgl_counters, chained_bytes), W_ALL },
	{ P "data_bytes_total",
	  "Data bytes of the requests counted in requests_total.",
	  offsetof(struct sgl_counters, bytes), W_ALL },
	{ P "alloc_failures_total",
	  "Failed chained SG allocations, injected ones included (driver mode only).",
	  offsetof(struct sgl_counters, alloc_failures), W_FAILURES_KNOWN },
	{ P "alloc_failures_injected_total",
	  "Of the failed chained SG allocations, those caused by the injection knobs.",
	  offsetof(struct sgl_counters, alloc_injected), W_FAILURES_KNOWN },
	{ P "map_errors_total",
	  "Setups that failed to map the request (driver mode only).",
	  offsetof(struct sgl_counters, map_errors), W_DRIVER },
	{ P "retries_total",
	  "Driver mode: requests whose successful setup followed a failed one; stock mode: requests requeued before issue (in-tree virtio_blk: SG allocation failures).",
	  offsetof(struct sgl_counters, retries), W_ALL },
	{ P "requeues_total",
	  "Requests requeued after issue (e.g. virtqueue full); that attempt is taken back out of the request counts.",
	  offsetof(struct sgl_counters, requeues), W_ALL },
	{ P "completions_total",
	  "Completed requests (any status).",
	  offsetof(struct sgl_counters, completions), W_ALL },
	{ P "io_errors_total",
	  "Completions with a non-OK status.",
	  offsetof(struct sgl_counters, io_errors), W_ALL },
	{ P "io_latency_untimed_total",
	  "Completions without a start timestamp (not in the latency histograms).",
	  offsetof(struct sgl_counters, lat_untimed), W_ALL },
	{ P "io_latency_from_io_start_total",
	  "Latency samples timed from io_start_time_ns (queue statistics on: device time only).",
	  offsetof(struct sgl_counters, lat_src_io_start), W_ALL },
	{ P "io_latency_from_start_total",
	  "Latency samples timed from start_time_ns (includes scheduler and tag wait; always with -Q).",
	  offsetof(struct sgl_counters, lat_src_start), W_ALL },
	{ P "model_mismatch_total",
	  "Driver mode: requests whose chained_bytes differ from sglstat's sg_pool model (should stay 0).",
	  offsetof(struct sgl_counters, model_mismatch), W_DRIVER },
};

static int when_ok(const struct sgl_snapshot *snap, const struct sgl_disk_snap *d, enum when w)
{
	switch (w) {
	case W_FAILURES_KNOWN:
	case W_DRIVER:
		return sgl_disk_mode(snap, d) == SGL_MODE_DRIVER;
	default:
		return 1;
	}
}

static unsigned long long clamp0(__s64 v)
{
	return v < 0 ? 0 : (unsigned long long)v;
}

enum gauge_id {
	G_PRESENT, G_INLINE, G_CHAINED_NOW, G_CHAINED_PEAK,
	G_HWQ, G_QD, G_MAXSEG, G_NREQ, G_FULL, G_INLINE_BYTES, G_SAVED, G_NR
};

static const struct gauge_def {
	const char *name, *help;
	int sysfs_only;
} gauge_defs[G_NR] = {
	[G_PRESENT] = { P "disk_present", "1 while the disk is in /sys/block, 0 after it went away.", 0 },
	[G_INLINE] = { P "inline_sg_entries", "Inline SG entries per request (stock mode: the count assumed for the in-tree driver).", 0 },
	[G_CHAINED_NOW] = { P "chained_bytes", "sg_pool bytes held by in-flight requests now (driver mode: driver sysfs; stock mode: the tracer's view, clamped at 0).", 0 },
	[G_CHAINED_PEAK] = { P "chained_peak_bytes", "Peak of chained_bytes (driver mode: since module load or reset; stock mode: since sglstat attached).", 0 },
	/* the following: driver sysfs (exact); stock mode: block-layer sysfs via memory.c, estimated */
	[G_HWQ] = { P "hw_queues", "Hardware queues of the disk.", 1 },
	[G_QD] = { P "queue_depth", "Tags per hardware queue.", 1 },
	[G_MAXSEG] = { P "max_segments", "Max segments per request.", 1 },
	[G_NREQ] = { P "preallocated_requests", "Requests with a PDU the block layer allocated for the disk (driver and scheduler tags, flush requests; stock mode: estimated).", 1 },
	[G_FULL] = { P "sg_full_prealloc_bytes", "Bytes of SG entries a full (pre-5.16, max_segments per request) preallocation would take.", 1 },
	[G_INLINE_BYTES] = { P "sg_inline_bytes", "Bytes of inline SG entries preallocated in the PDUs.", 1 },
	[G_SAVED] = { P "memory_saved_bytes", "sg_full_prealloc_bytes - sg_inline_bytes - chained_peak_bytes (clamped at 0): saved against full preallocation even at the observed peak.", 1 },
};

/* Memory figures of one disk: driver sysfs (exact) or memory.c (stock, estimated). */
struct disk_mem {
	int valid;
	unsigned long long hwq, qd, maxseg, nreq, full, inl, now, peak;
};

static void disk_mem_get(const struct sgl_disk_snap *d, struct disk_mem *m)
{
	const struct sgl_drv_sysfs *s = &d->sysfs;
	const struct sgl_disk_mem *mi = &d->mem;

	memset(m, 0, sizeof(*m));
	m->now = s->valid ? s->chained_bytes_now : clamp0(d->chained_now);
	m->peak = s->valid ? s->chained_bytes_peak : clamp0(d->chained_peak);
	if (s->valid) {
		m->valid = 1;
		m->hwq = s->nr_hw_queues;
		m->qd = s->queue_depth;
		m->maxseg = s->max_segments;
		m->nreq = s->nr_requests_total;
		m->full = s->sg_full_prealloc_bytes;
		m->inl = s->sg_prealloc_bytes;
		return;
	}
	/* in-tree driver: block-layer sysfs, read by the snapshot's builder */
	if (d->kind != SGL_DISK_VIRTIO_BLK || !d->present || !mi->valid)
		return;
	m->valid = 1;
	m->hwq = mi->nr_hw_queues;
	m->qd = mi->queue_depth;
	m->maxseg = mi->max_segments;
	m->nreq = mi->nr_requests_total;
	m->full = mi->full_prealloc_bytes;
	m->inl = mi->inline_bytes;
}

static unsigned long long gauge_get(const struct sgl_disk_snap *d, const struct disk_mem *m,
				    enum gauge_id g)
{
	long long saved;

	switch (g) {
	case G_PRESENT: return d->present ? 1 : 0;
	case G_INLINE: return d->inline_cnt;
	case G_CHAINED_NOW: return m->now;
	case G_CHAINED_PEAK: return m->peak;
	case G_HWQ: return m->hwq;
	case G_QD: return m->qd;
	case G_MAXSEG: return m->maxseg;
	case G_NREQ: return m->nreq;
	case G_FULL: return m->full;
	case G_INLINE_BYTES: return m->inl;
	case G_SAVED:
		saved = (long long)m->full - (long long)m->inl - (long long)m->peak;
		return saved < 0 ? 0 : (unsigned long long)saved;
	default: return 0;
	}
}

static double now_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define DMODE(i)	sgl_mode_name(sgl_disk_mode(snap, &snap->disk[i]))
#define DMODE_DRV(i)	(sgl_disk_mode(snap, &snap->disk[i]) == SGL_MODE_DRIVER)

int sgl_prom_format(const struct sgl_snapshot *snap, const struct sgl_prom_meta *meta,
		    char **res, size_t *reslen)
{
	const char *mode = sgl_mode_name(snap->mode);
	unsigned int nd = snap->nr_disks < SGL_MAX_DISKS ? snap->nr_disks : SGL_MAX_DISKS;
	struct disk_mem mem[SGL_MAX_DISKS];
	struct mono_op (*mv)[SGL_NR_OPS];
	struct out o = { 0 };
	unsigned int i, op, g, c;
	struct lbl l;
	double ts;

	/* all monotonic values first, through the guard */
	mv = calloc(SGL_MAX_DISKS, sizeof(*mv));
	if (!mv)
		return -ENOMEM;
	for (i = 0; i < nd; i++) {
		if (!disk_exported(snap, i))
			continue;
		for (op = 0; op < SGL_NR_OPS; op++)
			mono_compute(&snap->disk[i].cum[op], &mv[i][op]);
		mono_apply(meta ? meta->mono : NULL, &snap->disk[i], mv[i]);
	}

	/* exporter_info: the accepted label exception (version metadata) */
	out_printf(&o, "# HELP " P "exporter_info sglstat exporter metadata (value always 1).\n"
		   "# TYPE " P "exporter_info gauge\n" P "exporter_info{version=\"");
	out_label(&o, meta && meta->version[0] ? meta->version : "unknown");
	out_printf(&o, "\",kernel=\"");
	out_label(&o, meta && meta->kernel[0] ? meta->kernel : "unknown");
	out_printf(&o, "\",driver=\"");
	out_label(&o, meta && meta->driver[0] ? meta->driver : "unknown");
	out_printf(&o, "\",mode=\"%s\"} 1\n", mode);

	ts = snap->ts_realtime > 0 ? snap->ts_realtime : now_realtime();
	out_printf(&o, "# HELP " P "last_export_timestamp_seconds Time (Unix seconds) of the interval this file reports.\n"
		   "# TYPE " P "last_export_timestamp_seconds gauge\n"
		   P "last_export_timestamp_seconds %.3f\n", ts);

	/* counters, by disk and op */
	for (c = 0; c < sizeof(ctr_defs) / sizeof(ctr_defs[0]); c++) {
		struct fam f = { ctr_defs[c].name, "counter", ctr_defs[c].help, 0 };

		for (i = 0; i < nd; i++) {
			if (!disk_exported(snap, i) || !when_ok(snap, &snap->disk[i], ctr_defs[c].when))
				continue;
			for (op = 0; op < SGL_NR_OPS; op++) {
				l = (struct lbl){ snap->disk[i].name, sgl_op_name(op), DMODE(i) };
				out_u64(&o, &f, "", &l, NULL,
					mv[i][op].ctr[ctr_defs[c].off / sizeof(__u64)]);
			}
		}
	}

	/* histograms, by disk and op: a (disk, op) appears with its first observation */
	{
		struct fam f = { P "segments", "histogram",
				 "Physical segments per request (the SG entries it needs), by disk and op.", 0 };

		for (i = 0; i < nd; i++)
			for (op = 0; disk_exported(snap, i) && op < SGL_NR_OPS; op++) {
				if (!mv[i][op].seg[NSEG_LE])
					continue;
				l = (struct lbl){ snap->disk[i].name, sgl_op_name(op), DMODE(i) };
				out_seg_hist(&o, &f, &l, &mv[i][op]);
			}
	}
	for (c = 0; c < SGL_NR_LAT; c++) {
		struct fam f = { c == SGL_LAT_INLINE ? P "io_latency_inline_seconds"
						     : P "io_latency_chained_seconds",
				 "histogram",
				 c == SGL_LAT_INLINE ?
				 "Completion latency of requests that did not chain, from io_start_time_ns (else start_time_ns)." :
				 "Completion latency of chained requests, from io_start_time_ns (else start_time_ns).", 0 };

		for (i = 0; i < nd; i++)
			for (op = 0; disk_exported(snap, i) && op < SGL_NR_OPS; op++) {
				const __u64 *h = mv[i][op].lat[c];

				if (!h[IO_NB - 1])
					continue;
				l = (struct lbl){ snap->disk[i].name, sgl_op_name(op), DMODE(i) };
				out_lat_hist(&o, &f, &l, h, IO_LAT_K_LO, IO_LAT_K_HI,
					     sgl_disk_lat_sum(&snap->disk[i], op, c));
			}
	}
	{
		struct fam f = { P "setup_latency_seconds", "histogram",
				 "Driver mode with --setup-time: time to map a request (sg_pool allocation + blk_rq_map_sg).", 0 };

		for (i = 0; i < nd; i++)
			for (op = 0; disk_exported(snap, i) && DMODE_DRV(i) && op < SGL_NR_OPS; op++) {
				const __u64 *h = mv[i][op].setup;

				if (!h[SETUP_NB - 1])
					continue;
				l = (struct lbl){ snap->disk[i].name, sgl_op_name(op), DMODE(i) };
				out_lat_hist(&o, &f, &l, h, SETUP_LAT_K_LO, SETUP_LAT_K_HI,
					     sgl_disk_setup_sum(&snap->disk[i], op));
			}
	}

	/* gauges, by disk */
	for (i = 0; i < nd; i++)
		disk_mem_get(&snap->disk[i], &mem[i]);
	for (g = 0; g < G_NR; g++) {
		struct fam f = { gauge_defs[g].name, "gauge", gauge_defs[g].help, 0 };

		for (i = 0; i < nd; i++) {
			const struct sgl_disk_snap *d = &snap->disk[i];

			if (!disk_exported(snap, i))
				continue;
			if (gauge_defs[g].sysfs_only && !mem[i].valid)
				continue;
			l = (struct lbl){ d->name, NULL, DMODE(i) };
			out_u64(&o, &f, "", &l, NULL, gauge_get(d, &mem[i], g));
		}
	}

	free(mv);
	if (o.err) {
		free(o.p);
		return o.err;
	}
	*res = o.p;
	*reslen = o.len;
	return 0;
}

int sgl_prom_write(const char *path, const struct sgl_snapshot *snap,
		   const struct sgl_prom_meta *meta)
{
	size_t len;
	char *buf;
	int err;

	err = sgl_prom_format(snap, meta, &buf, &len);
	if (err)
		return err;
	err = sgl_atomic_write(path, buf, len, 0644);
	free(buf);
	return err;
}

int sgl_prom_check_target_msg(const char *path, char *msg, size_t msglen)
{
	size_t n = path ? strlen(path) : 0;

	if (n < 6 || strcmp(path + n - 5, ".prom") || path[n - 6] == '/') {
		snprintf(msg, msglen, "%s: name must end in .prom (node_exporter's textfile "
			 "collector reads only *.prom)", path ? path : "");
		return -EINVAL;
	}
	return sgl_atomic_check_target(path, msg, msglen);
}

int sgl_prom_check_target(const char *path)
{
	char msg[4608];
	int err = sgl_prom_check_target_msg(path, msg, sizeof(msg));

	if (err)
		fprintf(stderr, "sglstat: --prom-file %s\n", msg);
	return err;
}

/* ------------------------------------------------------------ meta */

static void copy_clean(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i] && src[i] != '\n'; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

void sgl_prom_meta_init(struct sgl_prom_meta *m, const char *version, const char *sysfs_root)
{
	char path[4096], line[128];
	struct utsname u;
	struct stat st;
	FILE *f;

	memset(m, 0, sizeof(*m));
	copy_clean(m->version, sizeof(m->version), version ? version : "unknown");
	copy_clean(m->kernel, sizeof(m->kernel), uname(&u) == 0 ? u.release : "unknown");
	if (!sysfs_root)
		sysfs_root = "/sys";
	copy_clean(m->sysfs_root, sizeof(m->sysfs_root), sysfs_root);
	m->mono = calloc(1, sizeof(*m->mono));	/* NULL: no monotonic guard */
	snprintf(path, sizeof(path), "%s/module/virtio_blk_sgl/version", sysfs_root);
	f = fopen(path, "re");
	if (f && fgets(line, sizeof(line), f) && line[0] && line[0] != '\n') {
		copy_clean(m->driver, sizeof(m->driver), line);
	} else {
		snprintf(path, sizeof(path), "%s/module/virtio_blk_sgl", sysfs_root);
		copy_clean(m->driver, sizeof(m->driver),
			   stat(path, &st) == 0 ? "unknown" : "none");
	}
	if (f)
		fclose(f);
}

void sgl_prom_meta_free(struct sgl_prom_meta *m)
{
	free(m->mono);
	m->mono = NULL;
}
