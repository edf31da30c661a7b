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

/*
 * Memory gauges of a disk on the in-tree driver, from the block layer's
 * sysfs (memory.c; estimated), filled by whoever builds the snapshot (the
 * tracer), so that the formatters only format.
 */
struct sgl_disk_mem {
	bool valid;
	__u64 nr_hw_queues, queue_depth, max_segments, nr_requests_total;
	__u64 full_prealloc_bytes, inline_bytes;
};

/* Latency sums without u64 wrap: accumulated from the map's (mod 2^64) deltas. */
struct sgl_wide_sums {
	unsigned __int128 lat_ns[SGL_NR_LAT];
	unsigned __int128 setup_ns;
};

struct sgl_disk_snap {
	char name[32];
	unsigned int major, first_minor;
	enum sgl_disk_kind kind;
	enum sgl_mode mode;		/* DRIVER or STOCK; AUTO (0): as snap->mode */
	bool present;			/* still in /sys/block at this interval */
	bool traced;			/* has a BPF slot (slot valid) now */
	unsigned int slot;		/* BPF stats slot while traced */
	unsigned int inline_cnt;	/* inline SG count used (stock: inferred) */
	bool inline_assumed;		/* inline_cnt is an assumption (stock driver) */
	struct sgl_stats cum[SGL_NR_OPS];	/* since attach */
	struct sgl_stats delta[SGL_NR_OPS];	/* this interval */
	/*
	 * Bookkeeping of sgl_disk_update(): the last values read from the BPF
	 * slot (zeroed when the disk gets a new slot) and the exact running
	 * total, which a requeue undo can make dip; cum is its running max, so
	 * per-interval deltas are never negative (a dip is paid back first).
	 */
	struct sgl_stats raw[SGL_NR_OPS];
	struct sgl_stats acc[SGL_NR_OPS];
	bool wide_valid;		/* wide[] kept by sgl_disk_update() */
	struct sgl_wide_sums wide[SGL_NR_OPS];
	struct sgl_disk_mem mem;	/* in-tree driver: block-layer sysfs gauges */
	bool gone_reported;		/* departed, and in a report since */
	bool flushed;			/* departed: last counts read, not yet reported */
	__s64 chained_now;		/* tracer's view of sg_pool bytes in flight */
	__s64 chained_peak;		/* its peak since attach */
	struct sgl_drv_sysfs sysfs;	/* driver mode: sysfs counters at this interval */
	struct sgl_geo geo;		/* geometry at this interval (JSON "geometry") */
};

struct sgl_snapshot {
	/*
	 * DRIVER or STOCK when every disk is traced that way; AUTO ("mixed")
	 * when --mode auto traces some disks each way.
	 */
	enum sgl_mode mode;
	bool failures_known;		/* every disk in driver mode: alloc failures visible */
	bool tp_btf;			/* stock mode: tp_btf (true) or raw_tp programs */
	/*
	 * Driver mode with setup events (--setup-time): setup_ns histograms,
	 * and an in-flight gauge of our own; without, requests count at their
	 * completion and the gauge is the driver's (since load or reset).
	 */
	bool setup_events;
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
/*
 * New values @now read from @d's BPF slot: the deltas since the last read
 * (mod 2^64, so a wrapped map word still gives the right delta) go into the
 * running totals; cum/delta never go down (see raw/acc above), the wide
 * latency sums never wrap.
 */
void sgl_disk_update(struct sgl_disk_snap *d, const struct sgl_stats now[SGL_NR_OPS]);
/* @d got a fresh (zeroed) BPF slot: the next read starts from 0. */
void sgl_disk_slot_reset(struct sgl_disk_snap *d);
/* Mode of disk @d: its own, else the snapshot's. */
enum sgl_mode sgl_disk_mode(const struct sgl_snapshot *snap, const struct sgl_disk_snap *d);
/* Cumulative latency sums of @d/@op without wrap (wide if kept, else cum). */
unsigned __int128 sgl_disk_lat_sum(const struct sgl_disk_snap *d, unsigned int op, int kind);
unsigned __int128 sgl_disk_setup_sum(const struct sgl_disk_snap *d, unsigned int op);
/* Sum of all ops of @d (cumulative or delta). */
void sgl_disk_total(const struct sgl_disk_snap *d, bool cumulative, struct sgl_stats *out);
/* All disks summed into @out (name "all"), for output without -D. */
void sgl_snapshot_sum_disks(const struct sgl_snapshot *snap, struct sgl_disk_snap *out);

const char *sgl_op_name(unsigned int op);
const char *sgl_mode_name(enum sgl_mode m);
const char *sgl_kind_name(enum sgl_disk_kind k);

#endif
