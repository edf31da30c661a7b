/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer: loads and attaches the BPF programs, keeps the disk map in step
 * with /sys/block (slots recycled as disks come and go), and reads the maps
 * into a snapshot.  sglstat.c keeps the loop and the printing.
 */
#ifndef SGLSTAT_TRACER_H
#define SGLSTAT_TRACER_H

#include <stdbool.h>
#include "snapshot.h"

struct sglstat_bpf;

struct sgl_tracer_opts {
	enum sgl_mode mode;		/* requested: AUTO, DRIVER or STOCK */
	const char *const *disks;	/* -d DISK..., NULL/0: every virtio disk */
	int nr_disks;
	unsigned int stock_inline;	/* --stock-inline */
	const char *btf_path;		/* --btf (already checked) */
	bool force_raw_tp;		/* --raw-tp */
	bool queued;			/* -Q: latency from start_time_ns */
	bool setup_events;		/* --setup-time: driver setup events too */
	unsigned int max_disks;		/* --max-disks; 0: sized from the host */
};

struct sgl_tracer {
	struct sglstat_bpf *skel;
	const struct sgl_tracer_opts *o;
	int disks_fd, stats_fd, inflight_fd;
	struct sgl_snapshot *snap;
	struct sgl_stats *percpu;	/* ncpus values for one lookup */
	struct sgl_stats *zero;		/* ncpus zeroed values (slot recycling) */
	int ncpus;
	unsigned int nslots;		/* BPF slots (maps sized at load) */
	int slot_owner[SGL_MAX_DISKS];	/* snapshot index per slot, -1 free */
	bool drv;			/* driver tracepoint programs loaded */
	bool drv_setup;			/* driver requests counted at setup events */
	bool stock;			/* block tracepoint issue/complete programs loaded */
	bool tp_btf;			/* block programs as tp_btf (else raw_tp) */
	bool warned_full, warned_slots;
	bool warned[SGL_MAX_DISKS];	/* per snapshot entry: collision warned */
};

/* Open, size, load, fill the disk map and attach.  0 or -errno (message printed). */
int sgl_tracer_open(struct sgl_tracer *t, const struct sgl_tracer_opts *o);
/*
 * Follow /sys/block: departed disks are read one last time into the
 * snapshot and give back their slot; new disks (and disks that lost a slot
 * or a disk-map collision before) get one.  0 or -errno.
 */
int sgl_tracer_rescan(struct sgl_tracer *t, bool initial);
/* Read the maps into t->snap (seq++, times set). 0 or -errno. */
int sgl_tracer_collect(struct sgl_tracer *t, double interval_s, double elapsed_s);
/* The snapshot has been reported: departed disks may now be dropped. */
void sgl_tracer_reported(struct sgl_tracer *t);
/* One line naming the programs, for the start-up message. */
const char *sgl_tracer_describe(const struct sgl_tracer *t);
void sgl_tracer_close(struct sgl_tracer *t);

#endif
