/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsgl.h - what the files of virtio_blk_sgl share: the device, queue and
 * request structures and the hot-path counters.  vsgl_main.c has the data
 * path, probe/remove and power management; vsgl_sysfs.c the disk
 * attributes and the sgl/ accounting group (docs/ABI.md).
 */
#ifndef VSGL_H
#define VSGL_H

#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hdreg.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/virtio.h>
#include <linux/virtio_blk.h>
#include <linux/workqueue.h>

/* Largest page block blk_mq_alloc_rqs() packs requests into (max_order). */
#define VSGL_RQS_MAX_ORDER	4

/*
 * Hot-path counters, one set per CPU, summed when sysfs is read.  On 64-bit
 * hosts an increment is one this_cpu instruction and nothing can tear; on
 * 32-bit ones @syncp lets a reader retry instead of reading half an update.
 * A request the ring refused is counted in @mapped and then in @unsent:
 * counters only grow, and requests_mapped is the difference.
 */
struct vsgl_pcpu_stats {
	struct u64_stats_sync syncp;
	u64 mapped;
	u64 unsent;
	u64 chained;
	u64 unsent_chained;
	u64 alloc_failures;
	u64 alloc_injected;
	u64 retries;
	u64 completed;
	u64 io_errors;
	u64 used_len_mismatch;
	u64 reissued;
	/*
	 * sg_pool bytes held by the requests set up on this CPU, and their
	 * peak.  A request gives its bytes back to the CPU it took them on,
	 * possibly from another one (hence atomics, on a line that is shared
	 * only then); no cache line is shared by all CPUs.
	 */
	atomic64_t chained_now;
	atomic64_t chained_peak;
};

struct vsgl_vq {
	struct virtqueue *vq;
	/*
	 * Serialises the virtqueue (virtio_ring has no locking of its own)
	 * and @dead against submission.
	 */
	spinlock_t lock;
	bool dead;
	unsigned long last_done;	/* jiffies of the last completion */
	char name[24];		/* "req_poll.%u" */
} ____cacheline_aligned_in_smp;

struct vsgl_dev {
	/*
	 * NULL once remove has run: the gendisk (and this structure, freed in
	 * vsgl_free_disk()) can outlive the device while someone holds the
	 * disk open.  Block device operations check it under @vdev_mutex.
	 */
	struct virtio_device *vdev;
	struct mutex vdev_mutex;
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	u32 devt;		/* disk dev_t, for the tracepoints */
	int index;

	unsigned int num_vqs;
	struct vsgl_vq *vqs;
	bool have_vqs;		/* the transport holds virtqueues for us */
	/* hardware queues per blk-mq map: default, read (none), poll */
	unsigned int io_queues[HCTX_MAX_TYPES];

	unsigned int max_segments;
	unsigned int inline_sg;	/* inline SG entries per PDU in force */
	struct hd_geometry geo;

	struct vsgl_pcpu_stats __percpu *stats;

	/* Capacity changes are handled in process context. */
	struct work_struct config_work;
	spinlock_t config_lock;	/* guards @removing against config IRQs */
	bool removing;

	/* Tear-down of a device that stopped working (see vsgl_kill()). */
	struct work_struct kill_work;
	struct mutex kill_lock;	/* also serialises vsgl_reset_work() */
	bool killed;

	/* Recovery of a device that stopped answering (vsgl_reset_work()). */
	struct work_struct reset_work;
	bool resetting;
	atomic_t resets;

	unsigned long warned;	/* VSGL_WARNED_* bits: logged once per disk */
};

#define VSGL_WARNED_USED_LEN	0

/* Per-request driver data (the blk-mq PDU). */
struct vsgl_req {
	struct virtio_blk_outhdr out_hdr;
	u8 status;		/* written by the device */
	u8 map_failed:1;	/* last setup failed, request was requeued */
	u8 retried:1;		/* this setup succeeded after a failed one */
	u8 chained:1;		/* sg_table came from sg_pool */
	u8 aborted:1;		/* never completed by the device */
	u8 reissue:1;		/* taken back by a reset: requeue it */
	u8 reissues;		/* times a reset re-issued this request */
	u16 nsegs;		/* segments the sg_table was sized for */
	u16 nents;		/* SG entries blk_rq_map_sg() filled */
	u16 chained_cpu;	/* the CPU @chained_bytes were taken on */
	u32 chained_bytes;	/* sg_pool bytes held (sgl_model.h) */
	u32 in_len;		/* bytes the device must write: data + status */
	u32 used_len;		/* bytes the device said it wrote */
	/* DISCARD / WRITE_ZEROES payload: @range1 or a kmalloc'ed array. */
	struct virtio_blk_discard_write_zeroes *range;
	struct virtio_blk_discard_write_zeroes range1;
	struct sg_table sg_table;
	struct scatterlist sg[];	/* inline_sg entries */
};

#if BITS_PER_LONG == 64
#define vsgl_count(vblk, field)	this_cpu_inc((vblk)->stats->field)
#else
#define vsgl_count(vblk, field)	do {					\
	struct vsgl_pcpu_stats *s_ = get_cpu_ptr((vblk)->stats);	\
	unsigned long f_ = u64_stats_update_begin_irqsave(&s_->syncp);	\
									\
	s_->field++;							\
	u64_stats_update_end_irqrestore(&s_->syncp, f_);		\
	put_cpu_ptr((vblk)->stats);					\
} while (0)
#endif

/* vsgl_main.c */
unsigned int vsgl_inline_fit(void);

/* vsgl_sysfs.c */
u64 vsgl_chained_now(struct vsgl_dev *vblk);
extern const struct attribute_group *vsgl_attr_groups[];
int vsgl_update_cache_mode(struct vsgl_dev *vblk);

#endif /* VSGL_H */
