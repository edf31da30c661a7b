/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregated data of one reporting interval.  Every output backend
 * (report_text.c, report_json.c, and report_prom.c for issue #5) reads only
 * this struct.  Cumulative values (since sglstat attached) are kept next to
 * the per-interval deltas: text/JSON print deltas unless --cumulative, a
 * Prometheus backend exports the cumulative counters.
 */
#ifndef SGLSTAT_SNAPSHOT_H
#define SGLSTAT_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>
#include "sglstat.h"

enum sgl_mode {
	SGL_MODE_AUTO = 0,
	SGL_MODE_DRIVER,
	SGL_MODE_STOCK,
};

enum sgl_disk_kind {
	SGL_DISK_OTHER = 0,
	SGL_DISK_VIRTIO_BLK,	/* in-tree virtio_blk */
	SGL_DISK_VSGL,		/* our virtio_blk_sgl driver (has sgl/ in sysfs) */
};

/* Counters of our driver's sysfs sgl/ directory (docs/ABI.md). */
struct sgl_drv_sysfs {
	bool valid;
	__u64 inline_sg_cnt, max_segments, nr_hw_queues, queue_depth;
	__u64 nr_requests_total, sg_prealloc_bytes, sg_full_prealloc_bytes;
	__u64 requests_mapped, requests_chained, chain_alloc_failures;
	__u64 chain_alloc_injected, retries, chained_bytes_now, chained_bytes_peak;
	__u64 requests_completed, io_errors;
};

/*
 * Disk geometry for `sglstat tune`: from our driver's sgl/ (exact) or, for
 * the in-tree driver, estimated by memory.c from the block layer's sysfs.
 */
struct sgl_geo {
	bool valid;
	bool estimated;			/* nr_requests_total estimated (stock) */
	__u64 max_segments, nr_requests_total;
};

struct sgl_disk_snap {
	char name[32];
	unsigned int major, first_minor;
	enum sgl_disk_kind kind;
	bool present;			/* still in /sys/block at this interval */
	unsigned int inline_cnt;	/* inline SG count used (stock: inferred) */
	bool inline_assumed;		/* inline_cnt is an assumption (stock driver) */
	struct sgl_stats cum[SGL_NR_OPS];	/* since attach */
	struct sgl_stats delta[SGL_NR_OPS];	/* this interval */
	__s64 chained_now;		/* tracer's view of sg_pool bytes in flight */
	__s64 chained_peak;		/* its peak since attach */
	struct sgl_drv_sysfs sysfs;	/* driver mode: sysfs counters at this interval */
	struct sgl_geo geo;		/* geometry at this interval (JSON "geometry") */
};

struct sgl_snapshot {
	enum sgl_mode mode;		/* DRIVER or STOCK (never AUTO here) */
	bool failures_known;		/* false in stock mode: alloc failures invisible */
	bool tp_btf;			/* stock mode: tp_btf (true) or raw_tp programs */
	unsigned long long seq;		/* interval number, 1-based */
	double ts_realtime;		/* end of the interval, CLOCK_REALTIME seconds */
	double interval_s;		/* length of this interval (monotonic) */
	double elapsed_s;		/* since attach (monotonic) */
	unsigned int nr_disks;
	struct sgl_disk_snap disk[SGL_MAX_DISKS];
};

/* snapshot.c: pure helpers */
void sgl_stats_add(struct sgl_stats *dst, const struct sgl_stats *src);
void sgl_stats_sub(struct sgl_stats *dst, const struct sgl_stats *a, const struct sgl_stats *b);
/* Replace the cumulative stats of @d by @now, computing the deltas. */
void sgl_disk_update(struct sgl_disk_snap *d, const struct sgl_stats now[SGL_NR_OPS]);
/* Sum of all ops of @d (cumulative or delta). */
void sgl_disk_total(const struct sgl_disk_snap *d, bool cumulative, struct sgl_stats *out);
/* All disks summed into @out (name "all"), for output without -D. */
void sgl_snapshot_sum_disks(const struct sgl_snapshot *snap, struct sgl_disk_snap *out);

const char *sgl_op_name(unsigned int op);
const char *sgl_mode_name(enum sgl_mode m);
const char *sgl_kind_name(enum sgl_disk_kind k);

#endif
