// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver for tools/sglstat/report_prom.c and atomic_file.c.
 *
 * Builds a synthetic struct sgl_snapshot from a deterministic pseudo-random
 * request stream (--seed), the way the BPF programs would count it (slots via
 * sglstat.h, chained bytes via sgl_model.h), and
 *   --json FILE   dumps the *raw inputs* (value -> count maps of segments and
 *                 latencies, counter totals, sysfs values) so the test can
 *                 compute every expected series itself, independently of the
 *                 slot arithmetic;
 *   --out PATH    writes PATH with sgl_prom_write() (--loop N: N more times,
 *                 each with more requests, as fast as possible; 0 = until
 *                 SIGTERM/SIGINT);
 *   --stdout      prints sgl_prom_format()'s output;
 *   --dip PREFIX  the monotonic-guard sequence, PREFIX.N.prom and PREFIX.N.json
 *                 for N = 1 (base), 2 (some requests requeued after issue: the
 *                 cumulative inputs dip), 3 (reissued, plus more), 4 (disk 0's
 *                 statistics really reset), all through one sgl_prom_meta;
 *   --check PATH  runs sgl_prom_check_target() (prints its line, rc 1 on error);
 *   --escape STR  prints sgl_prom_escape_label(STR).
 * Options: --mode driver|stock, --disks N (0..16), --disk-name NAME (disk 0),
 *          --ts SECONDS (interval end, default 1700000000.5),
 *          --no-guard (no monotonic guard, to show the check can fail),
 *          --sysfs-root DIR (driver version and stock-mode memory figures;
 *          default a path that does not exist, so the host's /sys never leaks in).
 * Exit: 0 ok, 1 operation failed (message on stderr), 2 usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sgl_model.h"
#include "snapshot.h"
#include "report_prom.h"
#include "memory.h"

#define MAX_VALS 256

/* value -> count map, small and linear */
struct vmap {
	unsigned int n;
	unsigned long long v[MAX_VALS], c[MAX_VALS];
};

struct op_raw {
	struct vmap segs, lat[SGL_NR_LAT], setup;
};

static struct op_raw raw[SGL_MAX_DISKS][SGL_NR_OPS];
static unsigned long long rng;
static volatile sig_atomic_t stop;

static void vmap_add(struct vmap *m, unsigned long long v)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (m->v[i] == v) {
			m->c[i]++;
			return;
		}
	if (m->n == MAX_VALS) {
		fprintf(stderr, "prom_writer: vmap full\n");
		exit(1);
	}
	m->v[m->n] = v;
	m->c[m->n++] = 1;
}

static void vmap_sub(struct vmap *m, unsigned long long v)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (m->v[i] == v && m->c[i]) {
			m->c[i]--;
			return;
		}
	fprintf(stderr, "prom_writer: vmap_sub of a value never added\n");
	exit(1);
}

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Segment counts, chosen to hit every bucket boundary and both sides of it. */
static const unsigned int seg_pool[] = {
	1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 25, 32, 33, 48, 49,
	64, 65, 96, 97, 127, 128, 129, 200, 254, 256, 257, 512, 513, 1024, 1025, 5000,
};
/* Latencies (ns): powers of two (upper-inclusive bounds) and their neighbours. */
static unsigned long long lat_value(void)
{
	unsigned int k = 8 + (unsigned int)(rnd() % 30);	/* 2^8 .. 2^37 */

	switch (rnd() % 4) {
	case 0: return 1ULL << k;
	case 1: return (1ULL << k) + 1;
	case 2: return (1ULL << k) - 1;
	default: return (1ULL << k) + (1ULL << (k - 1));
	}
}

static unsigned long long setup_value(void)
{
	unsigned int k = 3 + (unsigned int)(rnd() % 26);	/* 2^3 .. 2^28 */

	return rnd() % 2 ? 1ULL << k : (1ULL << k) + 3;
}

/* One request on disk @i, op @op. */
static void request(struct sgl_snapshot *snap, unsigned int i, unsigned int op, unsigned int segs)
{
	struct sgl_disk_snap *d = &snap->disk[i];
	struct sgl_stats *s = &d->cum[op];
	struct op_raw *r = &raw[i][op];
	int chained = sgl_is_chained(segs, d->inline_cnt);
	unsigned long long v;

	s->c.requests++;
	s->c.segments += segs;
	s->c.bytes += (unsigned long long)segs * 4096;
	s->seg[sgl_seg_slot(segs)]++;
	vmap_add(&r->segs, segs);
	if (chained) {
		s->c.chained++;
		s->c.chained_bytes += sgl_chained_bytes(segs, d->inline_cnt);
	}
	if (snap->mode == SGL_MODE_DRIVER) {
		v = setup_value();
		s->setup[sgl_lat_slot(v)]++;
		s->c.setup_sum_ns += v;
		vmap_add(&r->setup, v);
	}
	s->c.completions++;
	if (rnd() % 97 == 0)
		s->c.io_errors++;
	if (rnd() % 41 == 0) {
		s->c.lat_untimed++;
	} else {
		v = lat_value();
		if (v & 1)
			s->c.lat_src_start++;
		else
			s->c.lat_src_io_start++;
		s->lat[chained ? SGL_LAT_CHAINED : SGL_LAT_INLINE][sgl_lat_slot(v)]++;
		s->c.lat_sum_ns[chained ? SGL_LAT_CHAINED : SGL_LAT_INLINE] += v;
		vmap_add(&r->lat[chained ? SGL_LAT_CHAINED : SGL_LAT_INLINE], v);
	}
}

/*
 * A request on disk @i, op @op with @segs segments requeued after issue: the
 * BPF programs take that issue back out of requests, segments, bytes, the
 * segment histogram and chained (bpf/sglstat.bpf.c), and count a requeue.
 */
static void requeue(struct sgl_snapshot *snap, unsigned int i, unsigned int op, unsigned int segs)
{
	struct sgl_disk_snap *d = &snap->disk[i];
	struct sgl_stats *s = &d->cum[op];

	s->c.requests--;
	s->c.segments -= segs;
	s->c.bytes -= (unsigned long long)segs * 4096;
	s->seg[sgl_seg_slot(segs)]--;
	vmap_sub(&raw[i][op].segs, segs);
	if (sgl_is_chained(segs, d->inline_cnt)) {
		s->c.chained--;
		s->c.chained_bytes -= sgl_chained_bytes(segs, d->inline_cnt);
	}
	s->c.requeues++;
}

/* The same request issued again (setup side only: it has not completed). */
static void reissue(struct sgl_snapshot *snap, unsigned int i, unsigned int op, unsigned int segs)
{
	struct sgl_disk_snap *d = &snap->disk[i];
	struct sgl_stats *s = &d->cum[op];

	s->c.requests++;
	s->c.segments += segs;
	s->c.bytes += (unsigned long long)segs * 4096;
	s->seg[sgl_seg_slot(segs)]++;
	vmap_add(&raw[i][op].segs, segs);
	if (sgl_is_chained(segs, d->inline_cnt)) {
		s->c.chained++;
		s->c.chained_bytes += sgl_chained_bytes(segs, d->inline_cnt);
	}
}

static void fill(struct sgl_snapshot *snap, enum sgl_mode mode, unsigned int nd,
		 const char *name0, double ts)
{
	unsigned int i, op, n, k;

	memset(snap, 0, sizeof(*snap));
	memset(raw, 0, sizeof(raw));
	snap->mode = mode;
	snap->failures_known = mode == SGL_MODE_DRIVER;
	snap->seq = 1;
	snap->ts_realtime = ts;
	snap->interval_s = 15;
	snap->elapsed_s = 15;
	snap->nr_disks = nd;
	for (i = 0; i < nd; i++) {
		struct sgl_disk_snap *d = &snap->disk[i];

		if (i == 0 && name0)
			snprintf(d->name, sizeof(d->name), "%s", name0);
		else
			snprintf(d->name, sizeof(d->name), "%s%c",
				 mode == SGL_MODE_DRIVER ? "vsgl" : "vd", 'a' + i);
		d->major = 252;
		d->first_minor = i << 4;
		d->kind = mode == SGL_MODE_DRIVER ? SGL_DISK_VSGL : SGL_DISK_VIRTIO_BLK;
		d->present = i != 2;	/* disk 2 (if any) has gone away */
		d->inline_cnt = 2 + (unsigned int)(rnd() % 3) * 2;	/* 2, 4, 6 */
		d->inline_assumed = mode == SGL_MODE_STOCK;
		for (op = 0; op < SGL_NR_OPS; op++) {
			if (op == SGL_OP_WRITE_ZEROES || op == SGL_OP_OTHER)
				continue;	/* never seen: no histograms for them */
			n = 40 + (unsigned int)(rnd() % 160);
			for (k = 0; k < n; k++) {
				unsigned int segs;

				if (op == SGL_OP_FLUSH)
					segs = 0;
				else if (op == SGL_OP_DISCARD)
					segs = 1;
				else
					segs = seg_pool[rnd() % (sizeof(seg_pool) / sizeof(seg_pool[0]))];
				request(snap, i, op, segs);
			}
			d->cum[op].c.retries = rnd() % 7;
			d->cum[op].c.requeues = rnd() % 3;
			if (mode == SGL_MODE_DRIVER) {
				d->cum[op].c.alloc_failures = rnd() % 5;
				d->cum[op].c.alloc_injected = d->cum[op].c.alloc_failures / 2;
				d->cum[op].c.map_errors = d->cum[op].c.alloc_failures + rnd() % 2;
			}
		}
		d->chained_now = (long long)(rnd() % 100000) - 20000;	/* may be < 0 */
		d->chained_peak = 100000 + (long long)(rnd() % 100000);
		if (mode == SGL_MODE_DRIVER) {
			struct sgl_drv_sysfs *s = &d->sysfs;

			s->valid = true;
			s->inline_sg_cnt = d->inline_cnt;
			s->max_segments = 254;
			s->nr_hw_queues = 1 + (unsigned int)(rnd() % 4);
			s->queue_depth = 128 << (rnd() % 2);
			s->nr_requests_total = s->nr_hw_queues * s->queue_depth * 2 + s->nr_hw_queues;
			s->sg_prealloc_bytes = s->nr_requests_total * s->inline_sg_cnt * SGL_ENTRY_BYTES;
			s->sg_full_prealloc_bytes = s->nr_requests_total * s->max_segments * SGL_ENTRY_BYTES;
			s->chained_bytes_now = rnd() % 50000;
			s->chained_bytes_peak = 50000 + rnd() % 50000;
			if (i == 1)	/* a disk whose peak beats the savings: clamp to 0 */
				s->chained_bytes_peak = s->sg_full_prealloc_bytes;
		}
	}
}

static void json_vmap(FILE *f, const char *key, const struct vmap *m)
{
	unsigned int i;

	fprintf(f, "\"%s\":{", key);
	for (i = 0; i < m->n; i++)
		fprintf(f, "%s\"%llu\":%llu", i ? "," : "", m->v[i], m->c[i]);
	fprintf(f, "}");
}

/* Minimal JSON string escaping (the names are test input). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int dump_json(const char *path, const struct sgl_snapshot *snap,
		     const struct sgl_prom_meta *meta)
{
	FILE *f = fopen(path, "w");
	unsigned int i, op;

	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "{\"mode\":\"%s\",\"failures_known\":%s,\"ts\":%.3f,\"meta\":{\"version\":",
		sgl_mode_name(snap->mode), snap->failures_known ? "true" : "false",
		snap->ts_realtime);
	json_str(f, meta->version);
	fprintf(f, ",\"kernel\":");
	json_str(f, meta->kernel);
	fprintf(f, ",\"driver\":");
	json_str(f, meta->driver);
	fprintf(f, "},\"sysfs_root\":");
	json_str(f, meta->sysfs_root);
	fprintf(f, ",\"disks\":[");
	for (i = 0; i < snap->nr_disks; i++) {
		const struct sgl_disk_snap *d = &snap->disk[i];
		const struct sgl_drv_sysfs *s = &d->sysfs;

		fprintf(f, "%s{\"name\":", i ? "," : "");
		json_str(f, d->name);
		fprintf(f, ",\"present\":%d,\"inline\":%u,\"chained_now\":%lld,\"chained_peak\":%lld",
			d->present, d->inline_cnt, (long long)d->chained_now,
			(long long)d->chained_peak);
		if (s->valid)
			fprintf(f, ",\"sysfs\":{\"max_segments\":%llu,\"nr_hw_queues\":%llu,"
				"\"queue_depth\":%llu,\"nr_requests_total\":%llu,"
				"\"sg_prealloc_bytes\":%llu,\"sg_full_prealloc_bytes\":%llu,"
				"\"chained_bytes_now\":%llu,\"chained_bytes_peak\":%llu}",
				s->max_segments, s->nr_hw_queues, s->queue_depth,
				s->nr_requests_total, s->sg_prealloc_bytes,
				s->sg_full_prealloc_bytes, s->chained_bytes_now,
				s->chained_bytes_peak);
		fprintf(f, ",\"ops\":{");
		for (op = 0; op < SGL_NR_OPS; op++) {
			const struct sgl_counters *c = &d->cum[op].c;
			const struct op_raw *r = &raw[i][op];

			fprintf(f, "%s\"%s\":{\"requests\":%llu,\"chained\":%llu,"
				"\"chained_bytes\":%llu,\"bytes\":%llu,\"segments\":%llu,"
				"\"alloc_failures\":%llu,\"alloc_injected\":%llu,\"map_errors\":%llu,"
				"\"retries\":%llu,\"completions\":%llu,\"io_errors\":%llu,"
				"\"lat_untimed\":%llu,\"model_mismatch\":%llu,\"requeues\":%llu,"
				"\"lat_src_io_start\":%llu,\"lat_src_start\":%llu,",
				op ? "," : "", sgl_op_name(op),
				(unsigned long long)c->requests, (unsigned long long)c->chained,
				(unsigned long long)c->chained_bytes, (unsigned long long)c->bytes,
				(unsigned long long)c->segments,
				(unsigned long long)c->alloc_failures,
				(unsigned long long)c->alloc_injected,
				(unsigned long long)c->map_errors, (unsigned long long)c->retries,
				(unsigned long long)c->completions,
				(unsigned long long)c->io_errors,
				(unsigned long long)c->lat_untimed,
				(unsigned long long)c->model_mismatch,
				(unsigned long long)c->requeues,
				(unsigned long long)c->lat_src_io_start,
				(unsigned long long)c->lat_src_start);
			json_vmap(f, "segs", &r->segs);
			fputc(',', f);
			json_vmap(f, "lat_inline", &r->lat[SGL_LAT_INLINE]);
			fputc(',', f);
			json_vmap(f, "lat_chained", &r->lat[SGL_LAT_CHAINED]);
			fputc(',', f);
			json_vmap(f, "setup", &r->setup);
			fputc('}', f);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "]}\n");
	return fclose(f) ? 1 : 0;
}

static void on_sig(int sig)
{
	(void)sig;
	stop = 1;
}

static int write_pair(const char *prefix, int n, struct sgl_snapshot *snap,
		      const struct sgl_prom_meta *meta)
{
	char p[4096];
	int err;

	snap->seq++;
	snap->ts_realtime += 15;
	snprintf(p, sizeof(p), "%s.%d.json", prefix, n);
	if (dump_json(p, snap, meta))
		return 1;
	snprintf(p, sizeof(p), "%s.%d.prom", prefix, n);
	err = sgl_prom_write(p, snap, meta);
	if (err) {
		fprintf(stderr, "prom_writer: write %s: %s\n", p, strerror(-err));
		return 1;
	}
	return 0;
}

/* Segment counts of the requests that get requeued: inline and chained ones. */
static const unsigned int dip_segs[] = { 1, 2, 3, 5, 8, 33, 200, 254 };
#define NDIP (sizeof(dip_segs) / sizeof(dip_segs[0]))

static int dip_sequence(const char *prefix, struct sgl_snapshot *snap,
			const struct sgl_prom_meta *meta)
{
	unsigned int k, op;

	/* 1: base, with the to-be-requeued requests issued */
	for (k = 0; k < NDIP; k++)
		request(snap, 0, SGL_OP_READ, dip_segs[k]);
	if (write_pair(prefix, 1, snap, meta))
		return 1;
	/* 2: they are requeued after issue: requests, segments, chained dip */
	for (k = 0; k < NDIP; k++)
		requeue(snap, 0, SGL_OP_READ, dip_segs[k]);
	if (write_pair(prefix, 2, snap, meta))
		return 1;
	/* 3: issued again, and a few more requests */
	for (k = 0; k < NDIP; k++)
		reissue(snap, 0, SGL_OP_READ, dip_segs[k]);
	for (k = 0; k < 3; k++)
		request(snap, 0, SGL_OP_READ, 4);
	if (write_pair(prefix, 3, snap, meta))
		return 1;
	/* 4: disk 0's statistics start over (e.g. its slot was reassigned) */
	memset(snap->disk[0].cum, 0, sizeof(snap->disk[0].cum));
	memset(raw[0], 0, sizeof(raw[0]));
	for (op = 0; op < SGL_OP_FLUSH; op++)
		for (k = 0; k < 5; k++)
			request(snap, 0, op, 1 + k);
	return write_pair(prefix, 4, snap, meta);
}

static int usage(void)
{
	fprintf(stderr, "usage: prom_writer [--seed N] [--mode driver|stock] [--disks N] "
		"[--disk-name NAME] [--ts T] [--json FILE] [--out PATH [--loop N]] [--stdout] "
		"[--check PATH] [--escape STR]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *json = NULL, *check = NULL, *name0 = NULL, *dip = NULL;
	const char *root = "/nonexistent-sglstat-test-sysfs";
	enum sgl_mode mode = SGL_MODE_DRIVER;
	unsigned long long seed = 1;
	struct sgl_prom_meta meta;
	static struct sgl_snapshot snap;
	int to_stdout = 0, no_guard = 0, i, err, rc;
	long loop = -1, nd = 2, n;
	double ts = 1700000000.5;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--stdout")) {
			to_stdout = 1;
			continue;
		}
		if (!strcmp(a, "--no-guard")) {
			no_guard = 1;
			continue;
		}
		if (!v)
			return usage();
		i++;
		if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--mode"))
			mode = !strcmp(v, "stock") ? SGL_MODE_STOCK : SGL_MODE_DRIVER;
		else if (!strcmp(a, "--disks"))
			nd = strtol(v, NULL, 0);
		else if (!strcmp(a, "--disk-name"))
			name0 = v;
		else if (!strcmp(a, "--ts"))
			ts = strtod(v, NULL);
		else if (!strcmp(a, "--sysfs-root"))
			root = v;
		else if (!strcmp(a, "--json"))
			json = v;
		else if (!strcmp(a, "--out"))
			out = v;
		else if (!strcmp(a, "--loop"))
			loop = strtol(v, NULL, 0);
		else if (!strcmp(a, "--dip"))
			dip = v;
		else if (!strcmp(a, "--check"))
			check = v;
		else if (!strcmp(a, "--escape")) {
			char buf[1024];

			sgl_prom_escape_label(v, buf, sizeof(buf));
			printf("%s\n", buf);
			return 0;
		} else
			return usage();
	}
	if (nd < 0 || nd > SGL_MAX_DISKS)
		return usage();
	if (check)
		return sgl_prom_check_target(check) ? 1 : 0;

	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	sgl_prom_meta_init(&meta, "0.1.0-test", root);
	if (no_guard)
		sgl_prom_meta_free(&meta);	/* mono = NULL: no monotonic guard */
	fill(&snap, mode, (unsigned int)nd, name0, ts);
	/* in-tree disks' memory gauges, as the tracer fills them */
	for (i = 0; i < (int)snap.nr_disks; i++)
		sgl_disk_mem_fill(root, &snap.disk[i]);
	rc = 0;
	if (dip) {
		rc = dip_sequence(dip, &snap, &meta);
		goto out;
	}
	if (json && dump_json(json, &snap, &meta)) {
		rc = 1;
		goto out;
	}
	if (to_stdout) {
		char *buf;
		size_t len;

		err = sgl_prom_format(&snap, &meta, &buf, &len);
		if (err) {
			fprintf(stderr, "prom_writer: format: %s\n", strerror(-err));
			rc = 1;
			goto out;
		}
		fwrite(buf, 1, len, stdout);
		free(buf);
	}
	if (!out)
		goto out;
	err = sgl_prom_write(out, &snap, &meta);
	if (err) {
		fprintf(stderr, "prom_writer: write %s: %s\n", out, strerror(-err));
		rc = 1;
		goto out;
	}
	if (loop < 0)
		goto out;
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	for (n = 0; !stop && (loop == 0 || n < loop); n++) {
		unsigned int d;

		/*
		 * More requests every round, so the file changes; every third
		 * round the previous round's request is requeued after issue
		 * (the inputs dip) and reissued in the round after.
		 */
		for (d = 0; d < snap.nr_disks; d++) {
			unsigned int np = sizeof(seg_pool) / sizeof(seg_pool[0]);

			if (n % 3 == 1)
				requeue(&snap, d, SGL_OP_READ, seg_pool[(n - 1) % np]);
			else if (n % 3 == 2)
				reissue(&snap, d, SGL_OP_READ, seg_pool[(n - 2) % np]);
			else
				request(&snap, d, SGL_OP_READ, seg_pool[n % np]);
		}
		snap.seq++;
		snap.ts_realtime += 0.001;
		err = sgl_prom_write(out, &snap, &meta);
		if (err) {
			fprintf(stderr, "prom_writer: write %s (round %ld): %s\n", out, n,
				strerror(-err));
			rc = 1;
			goto out;
		}
	}
	printf("%ld\n", n);
out:
	sgl_prom_meta_free(&meta);
	return rc;
}
