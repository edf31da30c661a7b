/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsgl_compat.h - the kernel API differences between the lines
 * virtio_blk_sgl supports (Debian 12's 6.1 and the 6.12 line; see
 * docs/DRIVER.md, "Kernel lines").  Nothing else in the driver tests a
 * kernel version: the data path reads the same on every line.
 *
 * The VSGL_HAVE_* macros come from driver/Kbuild, which looks for each API
 * in the headers it builds against instead of comparing version numbers:
 *
 *   VSGL_HAVE_LIM_AT_ALLOC  blk_mq_alloc_disk(set, lim, queuedata) takes the
 *                           queue limits at allocation (6.9+); before, the
 *                           limits were set one by one on the new queue.
 *   VSGL_HAVE_BLK_FEAT      the volatile write cache is a queue_limits
 *                           feature (BLK_FEAT_WRITE_CACHE, 6.11+), changed
 *                           through queue_limits_start/commit_update();
 *                           before, blk_queue_write_cache().
 *   VSGL_HAVE_VQ_INFO       virtio_find_vqs() takes struct virtqueue_info
 *                           (6.11+) instead of callback and name arrays.
 */
#ifndef VSGL_COMPAT_H
#define VSGL_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>

/* Allocate the disk with the limits the driver filled in @lim. */
#ifdef VSGL_HAVE_LIM_AT_ALLOC
static inline struct gendisk *vsgl_alloc_disk(struct blk_mq_tag_set *set,
					      struct queue_limits *lim,
					      void *queuedata)
{
	return blk_mq_alloc_disk(set, lim, queuedata);
}
#else
/*
 * The old setters, in an order where each one's side effects (a logical
 * block size raises the physical one and io_min) are overridden by the
 * later, explicit values.  Zero means "not given", as for the new API.
 */
static inline void vsgl_apply_limits(struct request_queue *q,
				     const struct queue_limits *lim)
{
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segment_size(q, lim->max_segment_size);
	if (lim->logical_block_size)
		blk_queue_logical_block_size(q, lim->logical_block_size);
	if (lim->physical_block_size)
		blk_queue_physical_block_size(q, lim->physical_block_size);
	if (lim->alignment_offset)
		blk_queue_alignment_offset(q, lim->alignment_offset);
	if (lim->io_min)
		blk_queue_io_min(q, lim->io_min);
	if (lim->io_opt)
		blk_queue_io_opt(q, lim->io_opt);
	/*
	 * These kernels merge secure erase requests up to the discard
	 * maximum (measured on 6.1: four 1 MiB erases became one 4 MiB
	 * request for a device that takes 1 MiB), so with both commands
	 * the stricter maximum serves both.
	 */
	if (lim->max_hw_discard_sectors)
		blk_queue_max_discard_sectors(q,
			min_not_zero(lim->max_hw_discard_sectors,
				     lim->max_secure_erase_sectors));
	if (lim->max_secure_erase_sectors)
		blk_queue_max_secure_erase_sectors(q,
						   lim->max_secure_erase_sectors);
	/* shared by discard and secure erase */
	if (lim->max_discard_segments) {
		q->limits.discard_granularity = lim->discard_granularity;
		blk_queue_max_discard_segments(q, lim->max_discard_segments);
	}
	if (lim->max_write_zeroes_sectors)
		blk_queue_max_write_zeroes_sectors(q,
						   lim->max_write_zeroes_sectors);
}

static inline struct gendisk *vsgl_alloc_disk(struct blk_mq_tag_set *set,
					      struct queue_limits *lim,
					      void *queuedata)
{
	struct gendisk *disk = blk_mq_alloc_disk(set, queuedata);

	if (!IS_ERR(disk))
		vsgl_apply_limits(disk->queue, lim);
	return disk;
}
#endif

/* Announce (or stop announcing) a volatile write cache; process context. */
#ifdef VSGL_HAVE_BLK_FEAT
static inline int vsgl_set_write_cache(struct request_queue *q, bool wce)
{
	struct queue_limits lim = queue_limits_start_update(q);
	int err;

	if (wce)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	else
		lim.features &= ~BLK_FEAT_WRITE_CACHE;
	blk_mq_freeze_queue(q);
	err = queue_limits_commit_update(q, &lim);
	blk_mq_unfreeze_queue(q);
	return err;
}
#else
static inline int vsgl_set_write_cache(struct request_queue *q, bool wce)
{
	blk_queue_write_cache(q, wce, false);
	return 0;
}
#endif

/*
 * The request lists of mq_ops->queue_rqs: a bare struct request * chain in
 * 6.1, struct rq_list (head and tail) since 6.12's backport of 6.13's.
 */
#ifdef VSGL_HAVE_RQ_LIST
typedef struct rq_list vsgl_rq_list;

static inline void vsgl_rq_list_set(struct rq_list *l, struct request *head,
				    struct request *tail)
{
	l->head = head;
	l->tail = tail;
}
#else
typedef struct request *vsgl_rq_list;

static inline void vsgl_rq_list_set(struct request **l, struct request *head,
				    struct request *tail)
{
	*l = head;
}
#endif
#define vsgl_rq_pop(l)	rq_list_pop(l)

/* Find @n virtqueues; all but the last @n_poll complete through @cb. */
static inline int vsgl_find_vqs(struct virtio_device *vdev, unsigned int n,
				struct virtqueue **vqs, vq_callback_t *cb,
				unsigned int n_poll, const char * const *names,
				struct irq_affinity *desc)
{
#ifdef VSGL_HAVE_VQ_INFO
	struct virtqueue_info *info;
#else
	vq_callback_t **info;
#endif
	unsigned int i;
	int err;

	info = kcalloc(n, sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
#ifdef VSGL_HAVE_VQ_INFO
		info[i].name = names[i];
		info[i].callback = i < n - n_poll ? cb : NULL;
#else
		info[i] = i < n - n_poll ? cb : NULL;
#endif
	}
#ifdef VSGL_HAVE_VQ_INFO
	err = virtio_find_vqs(vdev, n, vqs, info, desc);
#else
	err = virtio_find_vqs(vdev, n, vqs, info, names, desc);
#endif
	kfree(info);
	return err;
}

#endif /* VSGL_COMPAT_H */
