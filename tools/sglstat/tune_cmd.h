/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `sglstat tune`: the per-disk inputs (live, from a capture, from Prometheus),
 * the choice of the one modprobe.d value, the text/JSON reports and --apply.
 * The prediction itself is tune.c.  See docs/TUNING.md.
 */
#ifndef SGLSTAT_TUNE_CMD_H
#define SGLSTAT_TUNE_CMD_H

#include <stdio.h>
#include <stddef.h>
#include "tune.h"
#include "snapshot.h"

#define SGL_TUNE_MAX_INPUT_DISKS	4096	/* fleet: disks over all files */
#define SGL_TUNE_NAME_LEN		128

struct sgl_tune_disk {
	char name[SGL_TUNE_NAME_LEN];	/* disk name; fleet: "source:disk" */
	char cls[64];			/* fleet class: "max_segments=N" */
	enum sgl_disk_kind kind;	/* driver of the disk (OTHER: unknown) */
	bool geo_known;			/* max_segments and nr_requests_total known */
	bool nr_estimated;		/* nr_requests_total estimated (in-tree driver) */
	bool current_known;
	unsigned int current;		/* inline count in force (in-tree: --stock-inline) */
	struct sgl_tune_input in;
};

struct sgl_tune_set {
	struct sgl_tune_disk *d;
	int n, cap;
};

struct sgl_tune_opts {
	double target;			/* --target-chain-rate */
	unsigned int stock_inline;	/* in-tree inline count (default 2) */
	const char *source;		/* "live", "capture FILE", "prometheus" */
	bool fleet;			/* group by class */
	bool pick_observed;		/* pick by the observed segments, not the bound */
};

/* Append a zeroed disk; NULL when full or out of memory. */
struct sgl_tune_disk *sgl_tune_set_add(struct sgl_tune_set *s);
/* Find a disk by name, NULL if absent. */
struct sgl_tune_disk *sgl_tune_set_find(struct sgl_tune_set *s, const char *name);
void sgl_tune_set_free(struct sgl_tune_set *s);

/*
 * Disks of a snapshot (cumulative histograms, all ops summed; duration
 * elapsed_s).  Geometry from d->geo, else read now from @root's sysfs.
 */
int sgl_tune_from_snapshot(const struct sgl_snapshot *snap, const char *root,
			   unsigned int stock_inline, struct sgl_tune_set *set);

/*
 * The rows worth printing: 0..16, every N where the predicted chained count
 * drops, @current, @pick and max.  Returns how many (<= SGL_TUNE_MAX_ROWS).
 */
int sgl_tune_rows_trimmed(const struct sgl_tune_input *in, unsigned int current, unsigned int pick,
			  struct sgl_tune_row *out);

/*
 * The one modprobe.d value for several disks: the largest of the disks'
 * picks (every disk then meets the target; a larger inline count never
 * raises a disk's chained fraction), over disks that saw requests.  2 when
 * none did.
 */
unsigned int sgl_tune_choose(const struct sgl_tune_set *s, double target);
/* The same, each disk's pick by the bound (when known) or, with @observed, the observed. */
unsigned int sgl_tune_choose_by(const struct sgl_tune_set *s, double target, bool observed);

/* Reports; return 0, or -EINVAL when no disk can be tuned (no geometry). */
int sgl_tune_print_text(FILE *out, const struct sgl_tune_set *s, const struct sgl_tune_opts *o,
			unsigned int *chosen);
int sgl_tune_print_json(FILE *out, const struct sgl_tune_set *s, const struct sgl_tune_opts *o,
			unsigned int *chosen);

/* ---- inputs (tune_input.c) ---- */

/*
 * A saved `sglstat -j` capture (one JSON object per line).  If the last
 * line is cumulative, its totals alone are used (duration elapsed_s);
 * otherwise the deltas of all lines are summed per disk (duration: the sum
 * of interval_s); a non-cumulative capture with cumulative lines in it is
 * refused.  Geometry: each disk's "geometry" from the last line that has
 * it, else @root's sysfs if the disk is there.  0 or -errno, @err set.
 */
int sgl_tune_read_capture(const char *buf, size_t len, const char *root,
			  unsigned int stock_inline, struct sgl_tune_set *set, char *err, size_t errlen);

/*
 * A Prometheus textfile as `sglstat --prom-file` writes it: the
 * virtio_blk_sgl_segments_bucket{disk,op,mode,le} buckets (ops summed) and
 * the max_segments / preallocated_requests / inline_sg_entries gauges.
 * Disks are named "@source:DISK".  0 or -errno, @err set.
 */
int sgl_tune_read_prom(const char *buf, size_t len, const char *source,
		       struct sgl_tune_set *set, char *err, size_t errlen);

/*
 * A Prometheus HTTP API query result ({"status":"success","data":
 * {"resultType":"vector","result":[{"metric":{...},"value":[t,"v"]}]}}) of
 * the same metric names.  A series is all its labels but __name__, op and
 * le; series that differ only in op are summed.  0 or -errno, @err set.
 */
int sgl_tune_read_prom_query(const char *buf, size_t len, struct sgl_tune_set *set,
			     char *err, size_t errlen);

/* Convert cumulative buckets (le, count) into @in (exact slots and ranges). */
int sgl_tune_buckets_to_input(const double *le, const double *cum, int n, struct sgl_tune_input *in,
			      char *err, size_t errlen);

/* ---- --apply (tune_apply.c) ---- */

/*
 * Edit the text of a modprobe.d file: every "options virtio_blk_sgl" line
 * gets inline_sg_cnt=@n (replacing an existing inline_sg_cnt=, other
 * options and comments kept); with no such line one is appended.  Result
 * malloc'ed in *@out (*@outlen bytes).  0 or -errno.
 */
int sgl_modprobe_edit(const char *old, size_t oldlen, unsigned int n, char **out, size_t *outlen);

/* Write <root>/etc/modprobe.d/virtio_blk_sgl.conf atomically.  0 or -errno, @err set. */
int sgl_tune_apply(const char *root, unsigned int n, char *path, size_t pathlen,
		   char *err, size_t errlen);

/* Read a whole file (at most @max bytes, else -EFBIG) into a malloc'ed buffer. */
int sgl_read_file(const char *path, size_t max, char **buf, size_t *len);

#endif
