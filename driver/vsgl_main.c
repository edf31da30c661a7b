// SPDX-License-Identifier: GPL-2.0
/*
 * virtio_blk_sgl - a virtio block driver with a chained scatter-gather data
 * path and instrumentation for measuring it.
 *
 * Written from the virtio 1.2 specification (section 5.2, block device) and
 * the kernel's blk-mq / virtio / sg_pool APIs.  Each request PDU embeds a
 * small inline scatterlist; requests with more segments than that take the
 * rest from sg_pool with sg_alloc_table_chained(), as upstream virtio_blk
 * does since v5.16 (commit 02746e26c39e).  The stable interfaces
 * (tracepoints, module parameters, sysfs) are described in docs/ABI.md, the
 * design in docs/DRIVER.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blk-mq-virtio.h>
#include <linux/blkdev.h>
#include <linux/hdreg.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string_helpers.h>
#include <linux/virtio.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <linux/workqueue.h>

#define SGL_ENTRY_BYTES sizeof(struct scatterlist)
#include "sgl_model.h"
#include "vsgl.h"
#include "vsgl_compat.h"
#include "vsgl_testing.h"

#define CREATE_TRACE_POINTS
#include "virtio_blk_sgl_trace.h"

#define VSGL_PART_BITS		4	/* 16 minors per disk (docs/ABI.md) */
#define VSGL_MAX_DISKS		(1U << (MINORBITS - VSGL_PART_BITS))
#define VSGL_INLINE_MAX		65535U	/* max_segments is an unsigned short */
#define VSGL_MAX_DISCARD_SEGS	256U	/* cap on ranges per discard command */
#define VSGL_STATUS_UNSET	0xffU	/* not a valid VIRTIO_BLK_S_* value */

/* Upstream chained-SGL default; 0 where sg chaining is not available. */
#ifdef CONFIG_ARCH_NO_SG_CHAIN
#define VSGL_DEFAULT_INLINE	0
#else
#define VSGL_DEFAULT_INLINE	2
#endif

/* ---------------------------------------------------------------------- */
/* Module parameters                                                       */

int vsgl_param_set_uint_max(const char *val, const struct kernel_param *kp,
			     unsigned int max)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret || v > max) {
		pr_err("%s=%s is invalid: expected an integer 0..%u\n",
		       kp->name, val, max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int vsgl_set_inline(const char *val, const struct kernel_param *kp)
{
	return vsgl_param_set_uint_max(val, kp, VSGL_INLINE_MAX);
}

static int vsgl_set_nrq(const char *val, const struct kernel_param *kp)
{
	return vsgl_param_set_uint_max(val, kp, nr_cpu_ids);
}

static int vsgl_set_depth(const char *val, const struct kernel_param *kp)
{
	return vsgl_param_set_uint_max(val, kp, BLK_MQ_MAX_DEPTH);
}

static const struct kernel_param_ops vsgl_inline_ops = {
	.set = vsgl_set_inline,
	.get = param_get_uint,
};

static const struct kernel_param_ops vsgl_nrq_ops = {
	.set = vsgl_set_nrq,
	.get = param_get_uint,
};

static const struct kernel_param_ops vsgl_depth_ops = {
	.set = vsgl_set_depth,
	.get = param_get_uint,
};

static unsigned int inline_sg_cnt = VSGL_DEFAULT_INLINE;
module_param_cb(inline_sg_cnt, &vsgl_inline_ops, &inline_sg_cnt, 0444);
MODULE_PARM_DESC(inline_sg_cnt,
		 "Inline SG entries per request (default 2; 0 = always allocate; clamped to max segments)");

static bool prealloc;
module_param(prealloc, bool, 0444);
MODULE_PARM_DESC(prealloc,
		 "Preallocate max segments SG entries per request (pre-5.16 layout)");

static unsigned int num_request_queues;
module_param_cb(num_request_queues, &vsgl_nrq_ops, &num_request_queues, 0444);
MODULE_PARM_DESC(num_request_queues,
		 "Limit the number of request queues (0 = number of CPUs)");

static unsigned int poll_queues;
module_param_cb(poll_queues, &vsgl_nrq_ops, &poll_queues, 0444);
MODULE_PARM_DESC(poll_queues,
		 "Request queues for polled I/O, without interrupts (default 0; at most one less than the request queues)");

static unsigned int queue_depth;
module_param_cb(queue_depth, &vsgl_depth_ops, &queue_depth, 0444);
MODULE_PARM_DESC(queue_depth,
		 "Tags per hardware queue (0 = derived from the virtqueue size)");

#define VSGL_RESET_TIMEOUT_MAX	3600U

static int vsgl_set_reset_timeout(const char *val,
				  const struct kernel_param *kp)
{
	return vsgl_param_set_uint_max(val, kp, VSGL_RESET_TIMEOUT_MAX);
}

static const struct kernel_param_ops vsgl_reset_timeout_ops = {
	.set = vsgl_set_reset_timeout,
	.get = param_get_uint,
};

static unsigned int reset_timeout = 30;
module_param_cb(reset_timeout, &vsgl_reset_timeout_ops, &reset_timeout, 0444);
MODULE_PARM_DESC(reset_timeout,
		 "Seconds a queue may complete nothing before the device is reset and its requests re-issued, as often as it takes while resets succeed (default 30; 0 = never reset, only wait)");

/*
 * virtio_cread_feature() / virtio_cread(), with the testing flavour's
 * test_config override (vsgl_testing.h: no override in the production build).
 */
#define vsgl_cread_feature(vdev, fbit, field, ptr)				\
	({									\
		u64 __v;							\
		int __r;							\
		if (vsgl_test_cfg(vdev, VSGL_CFG_##field, &__v)) {		\
			*(ptr) = (typeof(*(ptr)))__v;				\
			__r = 0;						\
		} else {							\
			__r = virtio_cread_feature(vdev, fbit,			\
				struct virtio_blk_config, field, ptr);		\
		}								\
		__r;								\
	})

#define vsgl_cread(vdev, field, ptr)						\
	do {									\
		u64 __v;							\
		if (vsgl_test_cfg(vdev, VSGL_CFG_##field, &__v))		\
			*(ptr) = (typeof(*(ptr)))__v;				\
		else								\
			virtio_cread(vdev, struct virtio_blk_config, field, ptr); \
	} while (0)

static int vsgl_major;
static DEFINE_IDA(vsgl_index_ida);

/* ---------------------------------------------------------------------- */
/* Request setup                                                           */

/* Hold @bytes of sg_pool for @vbr, on this CPU's count. */
static void vsgl_chained_take(struct vsgl_dev *vblk, struct vsgl_req *vbr,
			      u32 bytes)
{
	/*
	 * Preemption may move us on meanwhile: the bytes then go to the
	 * count of the CPU we read, which is still the one they come back to.
	 */
	int cpu = raw_smp_processor_id();
	struct vsgl_pcpu_stats *s = per_cpu_ptr(vblk->stats, cpu);
	s64 now = atomic64_add_return(bytes, &s->chained_now);
	s64 peak = atomic64_read(&s->chained_peak);

	while (now > peak && !atomic64_try_cmpxchg(&s->chained_peak, &peak, now))
		;
	vbr->chained = 1;
	vbr->chained_bytes = bytes;
	vbr->chained_cpu = cpu;
}

/* Release what vsgl_map_data() set up; safe to call when nothing was. */
static __always_inline void vsgl_unmap_data(struct vsgl_dev *vblk, struct vsgl_req *vbr)
{
	if (vbr->nsegs) {
		sg_free_table_chained(&vbr->sg_table, vblk->inline_sg);
		if (vbr->chained)
			atomic64_sub(vbr->chained_bytes,
				     &per_cpu_ptr(vblk->stats,
						  vbr->chained_cpu)->chained_now);
	}
	vbr->nsegs = 0;
	vbr->chained = 0;
	vbr->chained_bytes = 0;
}

/* Data segments: discard, write-zeroes, erase carry a driver-built range. */
static unsigned int vsgl_data_segments(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
	case REQ_OP_SECURE_ERASE:
		return 0;
	default:
		return blk_rq_nr_phys_segments(rq);
	}
}

/*
 * The inline entries, chained to sg_pool chunks when they are too few.
 * Failure injection (testing flavour only) spares a request that already
 * failed once, so that every request makes progress whatever the knobs say
 * and each injected failure costs exactly one retry.
 */
static int vsgl_alloc_sgt(struct vsgl_dev *vblk, struct vsgl_req *vbr,
			  unsigned int nsegs, bool *injected)
{
	unsigned int inline_cnt = vblk->inline_sg;

	*injected = sgl_is_chained(nsegs, inline_cnt) && !vbr->map_failed &&
		    vsgl_test_fail_chain();
	if (*injected)
		return -ENOMEM;
	vbr->sg_table.sgl = inline_cnt ? vbr->sg : NULL;
	return sg_alloc_table_chained(&vbr->sg_table, nsegs, vbr->sg_table.sgl,
				      inline_cnt);
}

static void vsgl_alloc_failed(struct vsgl_dev *vblk,
			      struct blk_mq_hw_ctx *hctx, struct request *rq,
			      unsigned int nsegs, bool injected)
{
	vsgl_count(vblk, alloc_failures);
	if (injected)
		vsgl_count(vblk, alloc_injected);
	trace_virtio_blk_sgl_alloc_fail(rq, vblk->devt, hctx->queue_num, nsegs,
					vblk->inline_sg, -ENOMEM, injected);
}

/*
 * Map the request's data.  Returns the number of mapped SG entries (0 for
 * requests without data), -ENOMEM when the chained table could not be
 * allocated (blk-mq retries) or -EIO.  The count stays signed and apart
 * from the unsigned segment count: upstream twice compared an unsigned
 * count "< 0" (0466a39bd0b6, a26116c1e740).
 */
static int vsgl_map_data(struct vsgl_dev *vblk, struct blk_mq_hw_ctx *hctx,
			 struct request *rq, struct vsgl_req *vbr)
{
	unsigned int nsegs = vsgl_data_segments(rq);
	bool injected;
	int nents;

	if (!nsegs)
		return 0;
	if (unlikely(vsgl_alloc_sgt(vblk, vbr, nsegs, &injected))) {
		vsgl_alloc_failed(vblk, hctx, rq, nsegs, injected);
		return -ENOMEM;
	}
	vbr->nsegs = nsegs;
	if (sgl_is_chained(nsegs, vblk->inline_sg))
		vsgl_chained_take(vblk, vbr,
				  sgl_chained_bytes(nsegs, vblk->inline_sg));

	nents = blk_rq_map_sg(hctx->queue, rq, vbr->sg_table.sgl);
	if (WARN_ON_ONCE(nents <= 0 || nents > nsegs)) {
		/* The block layer broke its own segment limit. */
		vsgl_unmap_data(vblk, vbr);
		return -EIO;
	}
	return nents;
}

/* vsgl_map_data(), its retry accounting and, when traced, its cost. */
static int vsgl_setup_data(struct vsgl_dev *vblk, struct blk_mq_hw_ctx *hctx,
			   struct request *rq, struct vsgl_req *vbr)
{
	bool tracing = trace_virtio_blk_sgl_setup_enabled();
	bool retry = vbr->map_failed;
	u64 t0 = tracing ? ktime_get_ns() : 0;
	int ret = vsgl_map_data(vblk, hctx, rq, vbr);

	vbr->map_failed = ret == -ENOMEM;
	vbr->retried = ret >= 0 && retry;
	if (vbr->retried)
		vsgl_count(vblk, retries);
	if (tracing)
		trace_virtio_blk_sgl_setup(rq, vblk->devt, hctx->queue_num,
					   vsgl_data_segments(rq),
					   vblk->inline_sg, vbr->chained,
					   vbr->chained_bytes,
					   ret < 0 ? ret : 0, retry,
					   ktime_get_ns() - t0,
					   (__force u32)rq->cmd_flags,
					   blk_rq_bytes(rq));
	return ret;
}

/* Build the DISCARD / WRITE_ZEROES range list (virtio 1.2, 5.2.6). */
static blk_status_t vsgl_setup_ranges(struct request *rq, struct vsgl_req *vbr,
				      bool unmap)
{
	unsigned short segs = blk_rq_nr_discard_segments(rq);
	u32 flags = unmap ? VIRTIO_BLK_WRITE_ZEROES_FLAG_UNMAP : 0;
	struct virtio_blk_discard_write_zeroes *range;
	unsigned int n = 0;
	struct bio *bio;

	/*
	 * A request that is one contiguous extent (including back-merged
	 * bios) is sent as one range: per-bio ranges would exceed the
	 * segment count the block layer promised.
	 */
	if (segs <= 1 || req_op(rq) == REQ_OP_WRITE_ZEROES) {
		vbr->range1.sector = cpu_to_le64(blk_rq_pos(rq));
		vbr->range1.num_sectors = cpu_to_le32(blk_rq_sectors(rq));
		vbr->range1.flags = cpu_to_le32(flags);
		vbr->range = &vbr->range1;
		return BLK_STS_OK;
	}

	range = kmalloc_array(segs, sizeof(*range), GFP_ATOMIC);
	if (!range)
		return BLK_STS_RESOURCE;

	__rq_for_each_bio(bio, rq) {
		if (WARN_ON_ONCE(n >= segs)) {
			kfree(range);
			return BLK_STS_IOERR;
		}
		range[n].sector = cpu_to_le64(bio->bi_iter.bi_sector);
		range[n].num_sectors = cpu_to_le32(bio_sectors(bio));
		range[n].flags = cpu_to_le32(flags);
		n++;
	}
	vbr->range = range;
	vbr->range1.num_sectors = cpu_to_le32(n);	/* ranges in use */
	return BLK_STS_OK;
}

static unsigned int vsgl_nr_ranges(struct vsgl_req *vbr)
{
	if (vbr->range == &vbr->range1)
		return 1;
	return le32_to_cpu(vbr->range1.num_sectors);
}

static void vsgl_free_ranges(struct vsgl_req *vbr)
{
	if (vbr->range && vbr->range != &vbr->range1)
		kfree(vbr->range);
	vbr->range = NULL;
}

static blk_status_t vsgl_setup_cmd(struct vsgl_dev *vblk, struct request *rq,
				   struct vsgl_req *vbr)
{
	struct virtio_device *vdev = vblk->vdev;
	u64 sector = 0;
	u32 type;

	vbr->range = NULL;
	vbr->aborted = 0;
	vbr->reissue = 0;
	vbr->used_len = 0;
	vbr->in_len = 1;	/* the status byte */

	switch (req_op(rq)) {
	case REQ_OP_READ:
		type = VIRTIO_BLK_T_IN;
		sector = blk_rq_pos(rq);
		vbr->in_len += blk_rq_bytes(rq);
		break;
	case REQ_OP_WRITE:
		type = VIRTIO_BLK_T_OUT;
		sector = blk_rq_pos(rq);
		break;
	case REQ_OP_FLUSH:
		type = VIRTIO_BLK_T_FLUSH;
		break;
	case REQ_OP_DISCARD:
		type = VIRTIO_BLK_T_DISCARD;
		break;
	case REQ_OP_WRITE_ZEROES:
		type = VIRTIO_BLK_T_WRITE_ZEROES;
		break;
	case REQ_OP_SECURE_ERASE:
		type = VIRTIO_BLK_T_SECURE_ERASE;
		break;
	case REQ_OP_DRV_IN:
		/* Only GET_ID is ever issued as a driver-private request. */
		type = VIRTIO_BLK_T_GET_ID;
		vbr->in_len += blk_rq_bytes(rq);
		break;
	default:
		return BLK_STS_NOTSUPP;
	}

	vbr->out_hdr.type = cpu_to_virtio32(vdev, type);
	vbr->out_hdr.ioprio = cpu_to_virtio32(vdev, req_get_ioprio(rq));
	vbr->out_hdr.sector = cpu_to_virtio64(vdev, sector);
	/* Lets a device that completes without writing it be detected. */
	vbr->status = VSGL_STATUS_UNSET;

	if (type == VIRTIO_BLK_T_DISCARD || type == VIRTIO_BLK_T_SECURE_ERASE)
		return vsgl_setup_ranges(rq, vbr, false);
	if (type == VIRTIO_BLK_T_WRITE_ZEROES)
		return vsgl_setup_ranges(rq, vbr,
					 !(rq->cmd_flags & REQ_NOUNMAP));
	return BLK_STS_OK;
}

/* Queue header, data or ranges, and status as one descriptor chain. */
static int vsgl_add_req(struct virtqueue *vq, struct vsgl_req *vbr,
			unsigned int nents, bool data_in)
{
	struct scatterlist hdr, status, ranges, *sgs[3];
	unsigned int num_out = 0, num_in = 0;

	sg_init_one(&hdr, &vbr->out_hdr, sizeof(vbr->out_hdr));
	sgs[num_out++] = &hdr;

	if (vbr->range) {
		sg_init_one(&ranges, vbr->range,
			    vsgl_nr_ranges(vbr) * sizeof(*vbr->range));
		sgs[num_out++] = &ranges;
	} else if (nents) {
		if (data_in)
			sgs[num_out + num_in++] = vbr->sg_table.sgl;
		else
			sgs[num_out++] = vbr->sg_table.sgl;
	}

	sg_init_one(&status, &vbr->status, sizeof(vbr->status));
	sgs[num_out + num_in++] = &status;

	return virtqueue_add_sgs(vq, sgs, num_out, num_in, vbr, GFP_ATOMIC);
}

/* Header, data and start: all a request needs before it goes on a ring. */
static blk_status_t vsgl_prep_rq(struct vsgl_dev *vblk,
				 struct blk_mq_hw_ctx *hctx, struct request *rq,
				 struct vsgl_req *vbr)
{
	blk_status_t sts;
	int ret;

	sts = vsgl_setup_cmd(vblk, rq, vbr);
	if (unlikely(sts))
		return sts;

	ret = vsgl_setup_data(vblk, hctx, rq, vbr);
	if (unlikely(ret < 0)) {
		vsgl_free_ranges(vbr);
		/* Only an allocation failure is worth retrying. */
		return ret == -ENOMEM ? BLK_STS_RESOURCE : BLK_STS_IOERR;
	}
	vbr->nents = ret;
	blk_mq_start_request(rq);
	return BLK_STS_OK;
}

/*
 * Counted before the request goes on the ring, where it may complete (and
 * even be reused) on another CPU at once: a reader never sees more
 * requests completed than mapped.  A request a reset re-issued was counted
 * when first sent; GET_ID is not counted.  vsgl_uncount_sent() takes it
 * back when the ring refuses the request (blk-mq sends it again).
 */
static bool vsgl_counts_as_new(struct request *rq, struct vsgl_req *vbr)
{
	return req_op(rq) != REQ_OP_DRV_IN && !vbr->reissues;
}

static void vsgl_count_sent(struct vsgl_dev *vblk, bool new, bool chained)
{
	if (new) {
		vsgl_count(vblk, mapped);
		if (chained)
			vsgl_count(vblk, chained);
	}
}

static void vsgl_uncount_sent(struct vsgl_dev *vblk, bool new, bool chained)
{
	if (new) {
		vsgl_count(vblk, unsent);
		if (chained)
			vsgl_count(vblk, unsent_chained);
	}
}

static void vsgl_unprep_rq(struct vsgl_dev *vblk, struct vsgl_req *vbr)
{
	vsgl_unmap_data(vblk, vbr);
	vsgl_free_ranges(vbr);
}

/*
 * A request queue_rq fails for good is ended by blk-mq, not completed
 * here.  One a reset took back was counted when first sent, so its end is
 * counted now (a dead disk fails every re-issue), and the PDU, which
 * outlives the request, forgets its re-issues.
 */
static void vsgl_end_unsent(struct vsgl_dev *vblk, struct request *rq,
			    struct vsgl_req *vbr, blk_status_t sts)
{
	if (!vbr->reissues || sts == BLK_STS_RESOURCE ||
	    sts == BLK_STS_DEV_RESOURCE)
		return;
	vbr->reissues = 0;
	if (req_op(rq) == REQ_OP_DRV_IN)
		return;
	vsgl_count(vblk, completed);
	vsgl_count(vblk, io_errors);
}

static blk_status_t vsgl_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	struct vsgl_dev *vblk = hctx->queue->queuedata;
	struct vsgl_vq *vq = &vblk->vqs[hctx->queue_num];
	struct request *rq = bd->rq;
	struct vsgl_req *vbr = blk_mq_rq_to_pdu(rq);
	bool notify = false, new, chained;
	unsigned long flags;
	blk_status_t sts;
	int ret;

	sts = vsgl_prep_rq(vblk, hctx, rq, vbr);
	if (unlikely(sts)) {
		vsgl_end_unsent(vblk, rq, vbr, sts);
		return sts;
	}
	new = vsgl_counts_as_new(rq, vbr);
	chained = vbr->chained;
	vsgl_count_sent(vblk, new, chained);

	spin_lock_irqsave(&vq->lock, flags);
	if (unlikely(vq->dead)) {
		spin_unlock_irqrestore(&vq->lock, flags);
		sts = BLK_STS_IOERR;
		goto out_unprep;
	}
	ret = vsgl_add_req(vq->vq, vbr, vbr->nents, rq_data_dir(rq) == READ);
	if (unlikely(ret)) {
		/* Let the device drain what is queued, then try again. */
		virtqueue_kick(vq->vq);
		if (ret == -ENOSPC)
			blk_mq_stop_hw_queue(hctx);
		spin_unlock_irqrestore(&vq->lock, flags);
		if (ret == -ENOSPC)
			sts = BLK_STS_DEV_RESOURCE;
		else if (ret == -ENOMEM)
			sts = BLK_STS_RESOURCE;
		else
			sts = BLK_STS_IOERR;
		goto out_unprep;
	}
	if (bd->last && virtqueue_kick_prepare(vq->vq))
		notify = true;
	spin_unlock_irqrestore(&vq->lock, flags);

	if (notify)
		virtqueue_notify(vq->vq);
	return BLK_STS_OK;

out_unprep:
	vsgl_uncount_sent(vblk, new, chained);
	vsgl_unprep_rq(vblk, vbr);
	vsgl_end_unsent(vblk, rq, vbr, sts);
	return sts;
}

/*
 * Put prepared requests of one hardware queue (linked by rq_next) on its
 * ring under one lock, with one notification.  One that does not fit (or
 * meets a dead queue) goes back to blk-mq's requeue list, and from there
 * through queue_rq, which knows what to do with it.
 */
static void vsgl_send_batch(struct blk_mq_hw_ctx *hctx, struct request *rq)
{
	struct vsgl_dev *vblk = hctx->queue->queuedata;
	struct vsgl_vq *vq = &vblk->vqs[hctx->queue_num];
	struct request *next;
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&vq->lock, flags);
	for (; rq; rq = next) {
		struct vsgl_req *vbr = blk_mq_rq_to_pdu(rq);
		bool new = vsgl_counts_as_new(rq, vbr), chained = vbr->chained;

		next = rq->rq_next;
		vsgl_count_sent(vblk, new, chained);
		if (unlikely(vq->dead) ||
		    vsgl_add_req(vq->vq, vbr, vbr->nents, rq_data_dir(rq) == READ)) {
			vsgl_uncount_sent(vblk, new, chained);
			vsgl_unprep_rq(vblk, vbr);
			blk_mq_requeue_request(rq, true);
		}
	}
	notify = !vq->dead && virtqueue_kick_prepare(vq->vq);
	spin_unlock_irqrestore(&vq->lock, flags);
	if (notify)
		virtqueue_notify(vq->vq);
}

/*
 * mq_ops->queue_rqs: a plug's requests at once (blk-mq passes them grouped
 * by hardware queue).  Each is prepared on its own and each run of one
 * hardware queue sent as a batch; one that cannot be prepared stays in
 * @rqlist, which blk-mq then issues through queue_rq.
 */
static void vsgl_queue_rqs(vsgl_rq_list *rqlist)
{
	struct request *rq, *batch = NULL, **batch_tail = &batch;
	struct request *left = NULL, *left_last = NULL;
	struct blk_mq_hw_ctx *hctx = NULL;

	while ((rq = vsgl_rq_pop(rqlist)) != NULL) {
		struct vsgl_req *vbr = blk_mq_rq_to_pdu(rq);

		if (hctx && rq->mq_hctx != hctx) {
			vsgl_send_batch(hctx, batch);
			batch = NULL;
			batch_tail = &batch;
		}
		hctx = rq->mq_hctx;
		/* as the driver tag allocation of the queue_rq path does */
		hctx->tags->rqs[rq->tag] = rq;
		rq->rq_next = NULL;
		if (vsgl_prep_rq(hctx->queue->queuedata, hctx, rq, vbr)) {
			if (left_last)
				left_last->rq_next = rq;
			else
				left = rq;
			left_last = rq;
			continue;
		}
		*batch_tail = rq;
		batch_tail = &rq->rq_next;
	}
	if (batch)
		vsgl_send_batch(hctx, batch);
	vsgl_rq_list_set(rqlist, left, left_last);
}

static void vsgl_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct vsgl_dev *vblk = hctx->queue->queuedata;
	struct vsgl_vq *vq = &vblk->vqs[hctx->queue_num];
	unsigned long flags;
	bool notify = false;

	spin_lock_irqsave(&vq->lock, flags);
	if (!vq->dead)
		notify = virtqueue_kick_prepare(vq->vq);
	spin_unlock_irqrestore(&vq->lock, flags);
	if (notify)
		virtqueue_notify(vq->vq);
}

/* ---------------------------------------------------------------------- */
/* Completion                                                              */

static blk_status_t vsgl_result(struct vsgl_dev *vblk, struct request *rq,
				struct vsgl_req *vbr, u8 vstatus)
{
	/* the device is dead or gone: no reset can bring the request back */
	if (unlikely(vbr->aborted))
		return BLK_STS_IOERR;
	/*
	 * The used length is what the device says it wrote (virtio 1.2,
	 * 2.7.8.1).  Real devices get it wrong (legacy ones, older
	 * Firecracker, some vhost-user backends report 0 or the data length),
	 * which is why the in-tree driver and the virtio core ignore it: a
	 * difference is counted and logged once per disk, and the status byte
	 * decides (pre-set to 0xff, so a device that did not write it fails
	 * the request as an invalid status).  Only a length beyond the
	 * device-writable part is provably broken: the status byte, the last
	 * byte written, would lie outside the buffer we gave.
	 */
	if (unlikely(vbr->used_len != vbr->in_len)) {
		vsgl_count(vblk, used_len_mismatch);
		if (!test_and_set_bit(VSGL_WARNED_USED_LEN, &vblk->warned))
			dev_warn(&vblk->vdev->dev,
				 "tag %d: used length %u, expected %u; ignoring wrong used lengths (counted in sgl/used_len_mismatch, logged once)\n",
				 rq->tag, vbr->used_len, vbr->in_len);
		if (vbr->used_len > vbr->in_len) {
			dev_err_ratelimited(&vblk->vdev->dev,
					    "tag %d: used length %u beyond the %u bytes the device may write; failing request\n",
					    rq->tag, vbr->used_len,
					    vbr->in_len);
			return BLK_STS_IOERR;
		}
	}
	/* tested first: a switch compared it last, on every completion */
	if (likely(vstatus == VIRTIO_BLK_S_OK))
		return BLK_STS_OK;
	switch (vstatus) {
	case VIRTIO_BLK_S_UNSUPP:
		return BLK_STS_NOTSUPP;
	case VIRTIO_BLK_S_IOERR:
		return BLK_STS_IOERR;
	default:
		dev_err_ratelimited(&vblk->vdev->dev,
				    "tag %d: invalid status %u from device\n",
				    rq->tag, vstatus);
		return BLK_STS_IOERR;
	}
}

/*
 * Out of line: inside vsgl_finish_rq() the compiler loaded the eleven
 * arguments ahead of the tracepoint's static branch, on every completion.
 */
static noinline void vsgl_trace_complete(struct vsgl_dev *vblk,
					 struct request *rq,
					 struct vsgl_req *vbr, u8 vstatus,
					 blk_status_t sts)
{
	trace_virtio_blk_sgl_complete(rq, vblk->devt, rq->mq_hctx->queue_num,
				      vbr->nsegs, vbr->chained,
				      vbr->chained_bytes, vstatus,
				      (__force int)sts,
				      (__force u32)rq->cmd_flags,
				      rq->start_time_ns, rq->io_start_time_ns,
				      blk_rq_bytes(rq) |
				      (u64)vbr->retried << SGL_TP_RETRIED_SHIFT);
}

/*
 * What every completion does before the request goes back to blk-mq.
 * Inlined with what it calls: each call level the in-tree driver does not
 * have cost about 15 instructions per I/O (docs/BENCHMARKS.md).
 */
static __always_inline void vsgl_finish_rq(struct vsgl_dev *vblk,
					   struct request *rq,
					   struct vsgl_req *vbr, u8 vstatus,
					   blk_status_t sts)
{
	if (trace_virtio_blk_sgl_complete_enabled())
		vsgl_trace_complete(vblk, rq, vbr, vstatus, sts);
	vsgl_unmap_data(vblk, vbr);
	vsgl_free_ranges(vbr);
	vbr->reissues = 0;
	/* Like requests_mapped, the internal GET_ID is not counted. */
	if (req_op(rq) != REQ_OP_DRV_IN) {
		vsgl_count(vblk, completed);
		if (sts)
			vsgl_count(vblk, io_errors);
	}
}

static void vsgl_complete_rq(struct request *rq)
{
	struct vsgl_dev *vblk = rq->q->queuedata;
	struct vsgl_req *vbr = blk_mq_rq_to_pdu(rq);
	u8 vstatus = READ_ONCE(vbr->status);
	blk_status_t sts;

	if (unlikely(vbr->reissue)) {
		/* Taken back by a device reset: send it again (vsgl_reset_work()). */
		vsgl_unmap_data(vblk, vbr);
		vsgl_free_ranges(vbr);
		/* saturates: non-zero means "sent before", not how often */
		if (vbr->reissues < U8_MAX)
			vbr->reissues++;
		vsgl_count(vblk, reissued);
		blk_mq_requeue_request(rq, true);
		return;
	}
	sts = vsgl_result(vblk, rq, vbr, vstatus);
	vsgl_finish_rq(vblk, rq, vbr, vstatus, sts);
	blk_mq_end_request(rq, sts);
}

static void vsgl_complete_batch(struct io_comp_batch *iob)
{
	struct request *rq;

	rq_list_for_each(&iob->req_list, rq)
		vsgl_finish_rq(rq->q->queuedata, rq, blk_mq_rq_to_pdu(rq),
			       VIRTIO_BLK_S_OK, BLK_STS_OK);
	blk_mq_end_request_batch(iob);
}

/*
 * A request the device completed as it should, with nothing else to do
 * (no reset took it back, the used length is the expected one): it may
 * end in a batch, without vsgl_result()'s checks and messages.
 */
static bool vsgl_plain_success(struct vsgl_req *vbr)
{
	return !vbr->reissue && !vbr->aborted &&
	       vbr->used_len == vbr->in_len &&
	       READ_ONCE(vbr->status) == VIRTIO_BLK_S_OK;
}

/*
 * Complete @rq, or add it to @iob when it may end in a batch.  The batch
 * takes the clock once, frees its tags and drops its queue references
 * together: what NVMe's interrupt handler does, and what the in-tree
 * virtio_blk leaves out (it ends each request on its own).
 */
static __always_inline void vsgl_complete_or_batch(struct request *rq,
						   struct vsgl_req *vbr,
						   struct io_comp_batch *iob)
{
	if (blk_mq_complete_request_remote(rq))
		return;
	if (!vsgl_plain_success(vbr) ||
	    !blk_mq_add_to_batch(rq, iob, false, vsgl_complete_batch))
		vsgl_complete_rq(rq);
}

/*
 * Called with vq->lock held; a NULL @iob completes each request at once.
 * Returns the number of requests the device returned.
 */
static __always_inline int vsgl_reap(struct vsgl_vq *vq,
				     struct io_comp_batch *iob)
{
	struct vsgl_req *vbr;
	unsigned int len;
	int found = 0;

	/*
	 * virtio_ring validates the descriptor id the device returns and
	 * marks the queue broken (returning NULL) on garbage, so @vbr is
	 * always one of ours.
	 */
	while ((vbr = virtqueue_get_buf(vq->vq, &len)) != NULL) {
		vbr->used_len = len;
		vsgl_test_used(&vbr->status, &vbr->used_len);
		vsgl_complete_or_batch(blk_mq_rq_from_pdu(vbr), vbr, iob);
		found++;
	}
	if (found)
		vq->last_done = jiffies;
	return found;
}

static void vsgl_done(struct virtqueue *vq)
{
	struct vsgl_dev *vblk = vq->vdev->priv;
	struct vsgl_vq *q = &vblk->vqs[vq->index];
	DEFINE_IO_COMP_BATCH(iob);
	unsigned long flags;
	int found = 0;

	spin_lock_irqsave(&q->lock, flags);
	/*
	 * A reset or kill took the queue: it reaps what the device finished
	 * itself, and q->vq may already be NULL (the interrupt of a backend
	 * that completed requests while the reset drained it comes late).
	 */
	if (unlikely(q->dead)) {
		spin_unlock_irqrestore(&q->lock, flags);
		return;
	}
	do {
		virtqueue_disable_cb(vq);
		found += vsgl_reap(q, &iob);
		if (unlikely(virtqueue_is_broken(vq)))
			break;
	} while (!virtqueue_enable_cb(vq));
	spin_unlock_irqrestore(&q->lock, flags);

	/* set with the first request added (blk_mq_add_to_batch()) */
	if (iob.complete)
		iob.complete(&iob);
	/* Queues stopped on a full ring can go again. */
	if (found)
		blk_mq_start_stopped_hw_queues(vblk->disk->queue, true);
}

/* mq_ops->poll of the poll queues, which have no interrupt. */
static int vsgl_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct vsgl_dev *vblk = hctx->queue->queuedata;
	struct vsgl_vq *vq = &vblk->vqs[hctx->queue_num];
	unsigned long flags;
	int found;

	spin_lock_irqsave(&vq->lock, flags);
	/* a reset deleted the virtqueue, or a failed one left none */
	if (unlikely(vq->dead)) {
		spin_unlock_irqrestore(&vq->lock, flags);
		return 0;
	}
	found = vsgl_reap(vq, iob);
	spin_unlock_irqrestore(&vq->lock, flags);
	/*
	 * A poll queue has no interrupt to restart it: without this, a queue
	 * stopped on a full ring (queue_rq's -ENOSPC) would stay stopped.
	 */
	if (found)
		blk_mq_start_stopped_hw_queues(hctx->queue, true);
	return found;
}

/* ---------------------------------------------------------------------- */
/* Dead devices, timeouts                                                  */

/* A surprise-removed PCI function reads as all ones. */
static bool vsgl_device_gone(struct vsgl_dev *vblk)
{
	return vblk->vdev->config->get_status(vblk->vdev) == 0xff;
}

/*
 * Stop using a device and fail everything it still holds.  New requests
 * fail in queue_rq from here on.  The device is reset first (unless it is
 * physically gone) so that it can no longer DMA into buffers we are about
 * to hand back to the block layer.  Idempotent.
 */
static void vsgl_kill(struct vsgl_dev *vblk, bool disk_live)
{
	unsigned int i, aborted = 0;
	struct vsgl_req *vbr;
	unsigned long flags;
	bool removing;

	mutex_lock(&vblk->kill_lock);
	if (vblk->killed)
		goto out;
	WRITE_ONCE(vblk->killed, true);

	for (i = 0; i < vblk->num_vqs; i++) {
		spin_lock_irqsave(&vblk->vqs[i].lock, flags);
		vblk->vqs[i].dead = true;
		spin_unlock_irqrestore(&vblk->vqs[i].lock, flags);
	}

	if (!vsgl_device_gone(vblk))
		virtio_reset_device(vblk->vdev);

	for (i = 0; i < vblk->num_vqs; i++) {
		struct vsgl_vq *vq = &vblk->vqs[i];

		spin_lock_irqsave(&vq->lock, flags);
		/* What the device finished before the reset is still valid. */
		vsgl_reap(vq, NULL);
		while ((vbr = virtqueue_detach_unused_buf(vq->vq)) != NULL) {
			vbr->aborted = 1;
			blk_mq_complete_request(blk_mq_rq_from_pdu(vbr));
			aborted++;
		}
		spin_unlock_irqrestore(&vq->lock, flags);
	}

	spin_lock_irqsave(&vblk->config_lock, flags);
	removing = vblk->removing;
	spin_unlock_irqrestore(&vblk->config_lock, flags);
	/* del_gendisk() does this itself during removal. */
	if (!removing)
		blk_mark_disk_dead(vblk->disk);

	/*
	 * Requests parked on stopped queues now fail in queue_rq.  Not once
	 * del_gendisk() is done: nothing is parked and the run work must not
	 * outlive the tag set.
	 */
	if (disk_live)
		blk_mq_start_stopped_hw_queues(vblk->disk->queue, true);
	if (aborted || !removing)
		dev_warn(&vblk->vdev->dev,
			 "device stopped, %u outstanding requests failed\n",
			 aborted);
out:
	mutex_unlock(&vblk->kill_lock);
}

static void vsgl_kill_work(struct work_struct *work)
{
	vsgl_kill(container_of(work, struct vsgl_dev, kill_work), true);
}

/*
 * A device that stopped answering (it lost its bus mastering, its backend
 * dropped requests): reset it, set the virtqueues up again and re-issue
 * what it held, as NVMe's reset does.  A reset is what makes completing
 * those requests safe: virtio has no way to abort one request, and a device
 * that may still DMA into its pages must be stopped first.  A slow or
 * stalled backend is not a failed device: requests are re-issued after
 * every reset that succeeds, however often, and fail (BLK_STS_IOERR) only
 * once the device is physically gone or cannot be set up again, when it is
 * stopped for good.
 */
static int vsgl_init_vqs(struct vsgl_dev *vblk);
static void vsgl_del_vqs(struct vsgl_dev *vblk);

static int vsgl_reinit_device(struct vsgl_dev *vblk)
{
	struct virtio_device *vdev = vblk->vdev;
	int err;

	/* A function that vanished reads as all ones, FEATURES_OK included. */
	if (vsgl_device_gone(vblk))
		return -ENODEV;

	/* The status sequence of virtio 1.2, 3.1.1, as at probe. */
	virtio_add_status(vdev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	virtio_add_status(vdev, VIRTIO_CONFIG_S_DRIVER);
	err = vdev->config->finalize_features(vdev);
	if (err)
		return err;
	if (virtio_has_feature(vdev, VIRTIO_F_VERSION_1)) {
		virtio_add_status(vdev, VIRTIO_CONFIG_S_FEATURES_OK);
		if (!(vdev->config->get_status(vdev) &
		      VIRTIO_CONFIG_S_FEATURES_OK))
			return -ENODEV;
	}
	err = vsgl_init_vqs(vblk);
	if (err)
		return err;
	if (vsgl_device_gone(vblk)) {
		vsgl_del_vqs(vblk);
		return -ENODEV;
	}
	virtio_device_ready(vdev);
	return 0;
}

static void vsgl_reset_work(struct work_struct *work)
{
	struct vsgl_dev *vblk = container_of(work, struct vsgl_dev, reset_work);
	struct request_queue *q = vblk->disk->queue;
	unsigned int i, reissued = 0, noio;
	struct vsgl_req *vbr;
	unsigned long flags;
	int err;

	mutex_lock(&vblk->kill_lock);
	if (vblk->killed || READ_ONCE(vblk->removing))
		goto out_unlock;
	if (vsgl_device_gone(vblk)) {
		mutex_unlock(&vblk->kill_lock);
		vsgl_kill(vblk, true);
		return;
	}
	WRITE_ONCE(vblk->resetting, true);
	blk_mq_quiesce_queue(q);
	for (i = 0; i < vblk->num_vqs; i++) {
		spin_lock_irqsave(&vblk->vqs[i].lock, flags);
		vblk->vqs[i].dead = true;
		spin_unlock_irqrestore(&vblk->vqs[i].lock, flags);
	}

	/* From here the device cannot touch our buffers any more. */
	virtio_reset_device(vblk->vdev);
	for (i = 0; i < vblk->num_vqs; i++) {
		struct vsgl_vq *vq = &vblk->vqs[i];

		spin_lock_irqsave(&vq->lock, flags);
		/* What it finished before the reset is valid. */
		vsgl_reap(vq, NULL);
		/* queue_rq fails them (BLK_STS_IOERR) if the reset fails */
		while ((vbr = virtqueue_detach_unused_buf(vq->vq)) != NULL) {
			vbr->reissue = 1;
			reissued++;
			blk_mq_complete_request(blk_mq_rq_from_pdu(vbr));
		}
		vq->vq = NULL;
		spin_unlock_irqrestore(&vq->lock, flags);
	}
	vsgl_del_vqs(vblk);

	/* the queue is quiesced: reclaim must not write back through it */
	noio = memalloc_noio_save();
	err = vsgl_reset_fault() ?: vsgl_reinit_device(vblk);
	memalloc_noio_restore(noio);
	atomic_inc(&vblk->resets);
	trace_virtio_blk_sgl_reset(vblk->devt, atomic_read(&vblk->resets),
				   err ? 0 : reissued, err ? reissued : 0, err);
	if (err) {
		dev_err(&vblk->vdev->dev,
			"reset failed (%d): disk is dead, %u requests failed\n",
			err, reissued);
		WRITE_ONCE(vblk->killed, true);
		blk_mark_disk_dead(vblk->disk);
	} else {
		dev_warn(&vblk->vdev->dev,
			 "device reset after a queue completed nothing for %us: %u requests re-issued\n",
			 jiffies_to_msecs(q->rq_timeout) / 1000, reissued);
	}
	WRITE_ONCE(vblk->resetting, false);
	/* A dead disk fails them in queue_rq (vq->dead stays set). */
	blk_mq_unquiesce_queue(q);
	blk_mq_kick_requeue_list(q);
	blk_mq_start_stopped_hw_queues(q, true);
out_unlock:
	mutex_unlock(&vblk->kill_lock);
}

/*
 * A request waited its timeout (reset_timeout seconds unless the disk's
 * queue/io_timeout says otherwise).  A device that can no longer complete
 * anything (a broken ring, or removal in progress) is stopped and its
 * requests failed.  One that completed nothing on this queue since the
 * request's timer started is reset (above), unless reset_timeout is 0; one
 * that is only slow (it still completes requests) is waited for.
 */
static enum blk_eh_timer_return vsgl_timeout(struct request *rq)
{
	struct vsgl_dev *vblk = rq->q->queuedata;
	struct vsgl_vq *vq = &vblk->vqs[rq->mq_hctx->queue_num];
	unsigned long flags;
	bool removing, broken, progress;

	if (READ_ONCE(vblk->killed) || READ_ONCE(vblk->resetting))
		return BLK_EH_RESET_TIMER;	/* that path completes it */

	spin_lock_irqsave(&vq->lock, flags);
	broken = !vq->dead && virtqueue_is_broken(vq->vq);
	/*
	 * A slow device still completes requests; a stuck one has completed
	 * nothing on this queue since this request's timer started.
	 */
	progress = time_after(vq->last_done, rq->deadline - rq->timeout);
	spin_unlock_irqrestore(&vq->lock, flags);
	removing = READ_ONCE(vblk->removing);
	if (removing || broken) {
		dev_warn_ratelimited(&vblk->vdev->dev,
				     "tag %d timed out on a %s device; stopping it\n",
				     rq->tag, removing ? "departing" : "broken");
		queue_work(system_long_wq, &vblk->kill_work);
		return BLK_EH_RESET_TIMER;
	}

	if (reset_timeout && !progress) {
		dev_warn_ratelimited(&vblk->vdev->dev,
				     "tag %d (op %u, sector %llu) timed out after %us; resetting the device\n",
				     rq->tag, (__force u32)req_op(rq),
				     (unsigned long long)blk_rq_pos(rq),
				     jiffies_to_msecs(rq->timeout) / 1000);
		queue_work(system_long_wq, &vblk->reset_work);
		return BLK_EH_RESET_TIMER;
	}
	dev_warn_ratelimited(&vblk->vdev->dev,
			     "tag %d (op %u, sector %llu) timed out after %lus, still waiting\n",
			     rq->tag, (__force u32)req_op(rq),
			     (unsigned long long)blk_rq_pos(rq),
			     (jiffies - rq->deadline + rq->timeout) / HZ);
	return BLK_EH_RESET_TIMER;
}

static int vsgl_init_request(struct blk_mq_tag_set *set, struct request *rq,
			     unsigned int hctx_idx, unsigned int numa_node)
{
	struct vsgl_req *vbr = blk_mq_rq_to_pdu(rq);

	vbr->map_failed = 0;
	vbr->nsegs = 0;
	vbr->chained = 0;
	vbr->reissues = 0;
	vbr->range = NULL;
	return 0;
}

static void vsgl_map_queues(struct blk_mq_tag_set *set)
{
	struct vsgl_dev *vblk = set->driver_data;
	unsigned int i, offset = 0;

	for (i = 0; i < set->nr_maps; i++) {
		struct blk_mq_queue_map *map = &set->map[i];

		map->nr_queues = vblk->io_queues[i];
		map->queue_offset = offset;
		offset += map->nr_queues;
		if (!map->nr_queues)
			continue;
		/*
		 * The interrupt of a regular queue decides its CPUs; a poll
		 * queue has none, so blk-mq spreads it.
		 */
		if (i == HCTX_TYPE_POLL)
			blk_mq_map_queues(map);
		else
			blk_mq_virtio_map_queues(map, vblk->vdev, 0);
	}
}

static const struct blk_mq_ops vsgl_mq_ops = {
	.queue_rq	= vsgl_queue_rq,
	.queue_rqs	= vsgl_queue_rqs,
	.commit_rqs	= vsgl_commit_rqs,
	.complete	= vsgl_complete_rq,
	.timeout	= vsgl_timeout,
	.init_request	= vsgl_init_request,
	.map_queues	= vsgl_map_queues,
	.poll		= vsgl_poll,
};

/* ---------------------------------------------------------------------- */
/* Block device operations and sysfs                                       */

static int vsgl_getgeo(struct block_device *bdev, struct hd_geometry *geo)
{
	struct vsgl_dev *vblk = bdev->bd_disk->private_data;
	int ret = 0;

	mutex_lock(&vblk->vdev_mutex);
	if (!vblk->vdev) {
		/* Removed while held open: no device to describe. */
		ret = -ENXIO;
		goto out;
	}
	*geo = vblk->geo;
	if (!geo->cylinders)
		geo->cylinders = min_t(sector_t,
				       get_capacity(bdev->bd_disk) /
				       (geo->heads * geo->sectors), 0xffff);
out:
	mutex_unlock(&vblk->vdev_mutex);
	return ret;
}

/*
 * The last reference to the disk is gone (remove has run and nothing holds
 * it open any more): what an opener could still reach is freed here, as the
 * in-tree driver does since free_disk exists (5.19).
 */
static void vsgl_free_disk(struct gendisk *disk)
{
	struct vsgl_dev *vblk = disk->private_data;

	free_percpu(vblk->stats);
	/* Only now may another disk take this index (and its minors). */
	ida_free(&vsgl_index_ida, vblk->index);
	mutex_destroy(&vblk->vdev_mutex);
	kfree(vblk);
}

static const struct block_device_operations vsgl_fops = {
	.owner		= THIS_MODULE,
	.getgeo		= vsgl_getgeo,
	.free_disk	= vsgl_free_disk,
};


/* ---------------------------------------------------------------------- */
/* Device configuration                                                    */

/*
 * The capacity field is in 512-byte sectors whatever the block size.  A
 * value whose byte size does not fit in loff_t cannot be represented by the
 * block layer, so clamp it; and drop a trailing partial logical block.
 */
static sector_t vsgl_read_capacity(struct vsgl_dev *vblk)
{
	unsigned int lbs = queue_logical_block_size(vblk->disk->queue);
	u64 max = MAX_LFS_FILESIZE >> SECTOR_SHIFT;
	u64 cap;

	vsgl_cread(vblk->vdev, capacity, &cap);
	if (cap > max) {
		dev_warn(&vblk->vdev->dev,
			 "capacity %llu sectors is too large, using %llu\n",
			 cap, max);
		cap = max;
	}
	return round_down(cap, lbs >> SECTOR_SHIFT);
}

static void vsgl_update_capacity(struct vsgl_dev *vblk, bool resize)
{
	unsigned int lbs = queue_logical_block_size(vblk->disk->queue);
	sector_t cap = vsgl_read_capacity(vblk);
	char s10[10], s2[10];

	string_get_size(cap, SECTOR_SIZE, STRING_UNITS_10, s10, sizeof(s10));
	string_get_size(cap, SECTOR_SIZE, STRING_UNITS_2, s2, sizeof(s2));
	dev_notice(&vblk->vdev->dev,
		   "[%s] %s%llu %u-byte logical blocks (%s/%s)\n",
		   vblk->disk->disk_name, resize ? "new size: " : "",
		   (unsigned long long)cap / (lbs >> SECTOR_SHIFT), lbs, s10,
		   s2);
	if (resize)
		set_capacity_and_notify(vblk->disk, cap);
	else
		set_capacity(vblk->disk, cap);
}

static void vsgl_config_work(struct work_struct *work)
{
	struct vsgl_dev *vblk = container_of(work, struct vsgl_dev,
					     config_work);

	if (!READ_ONCE(vblk->killed))
		vsgl_update_capacity(vblk, true);
}

/* May run in interrupt context. */
static void vsgl_config_changed(struct virtio_device *vdev)
{
	struct vsgl_dev *vblk = vdev->priv;
	unsigned long flags;

	spin_lock_irqsave(&vblk->config_lock, flags);
	/*
	 * Not on a freezable workqueue: freeze flushes this work, and work
	 * queued on a frozen workqueue would never run.
	 */
	if (!vblk->removing)
		queue_work(system_wq, &vblk->config_work);
	spin_unlock_irqrestore(&vblk->config_lock, flags);
}

static unsigned int vsgl_num_queues(struct virtio_device *vdev)
{
	unsigned int limit = num_request_queues ?: nr_cpu_ids;
	u16 n = 1;

	if (!vsgl_cread_feature(vdev, VIRTIO_BLK_F_MQ, num_queues, &n) &&
	    !n) {
		/* requestq1 always exists (virtio 1.2, 5.2.2). */
		dev_warn(&vdev->dev, "device reports 0 queues, using 1\n");
		n = 1;
	}
	/* blk-mq would not use more hardware queues than CPUs anyway. */
	return min3((unsigned int)n, limit, nr_cpu_ids);
}

/*
 * Deletes the virtqueues once: a failed reset or restore already did, and
 * some transports (virtio-mmio frees its interrupt) must not do it twice.
 */
static void vsgl_del_vqs(struct vsgl_dev *vblk)
{
	unsigned long flags;
	unsigned int i;

	if (!vblk->have_vqs)
		return;
	for (i = 0; i < vblk->num_vqs; i++) {
		spin_lock_irqsave(&vblk->vqs[i].lock, flags);
		vblk->vqs[i].dead = true;
		vblk->vqs[i].vq = NULL;
		spin_unlock_irqrestore(&vblk->vqs[i].lock, flags);
	}
	vblk->have_vqs = false;
	vblk->vdev->config->del_vqs(vblk->vdev);
}

static int vsgl_init_vqs(struct vsgl_dev *vblk)
{
	struct irq_affinity desc = { 0, };
	unsigned int i, n = vblk->num_vqs;
	struct virtqueue **vqs;
	const char **names;
	int err = -ENOMEM;

	vqs = kcalloc(n, sizeof(*vqs), GFP_KERNEL);
	names = kcalloc(n, sizeof(*names), GFP_KERNEL);
	if (!vqs || !names)
		goto out;

	/* as in-tree: the poll queues are the last ones, without a callback */
	for (i = 0; i < n; i++) {
		if (i < n - vblk->io_queues[HCTX_TYPE_POLL])
			snprintf(vblk->vqs[i].name, sizeof(vblk->vqs[i].name),
				 "req.%u", i);
		else
			snprintf(vblk->vqs[i].name, sizeof(vblk->vqs[i].name),
				 "req_poll.%u", i);
		names[i] = vblk->vqs[i].name;
	}

	err = vsgl_find_vqs(vblk->vdev, n, vqs, vsgl_done,
			    vblk->io_queues[HCTX_TYPE_POLL], names, &desc);
	if (err)
		goto out;

	for (i = 0; i < n; i++) {
		vblk->vqs[i].vq = vqs[i];
		vblk->vqs[i].dead = false;
		vblk->vqs[i].last_done = jiffies;
	}
	vblk->have_vqs = true;
out:
	kfree(names);
	kfree(vqs);
	return err;
}

static unsigned int vsgl_min_ring(struct vsgl_dev *vblk)
{
	unsigned int i, n = UINT_MAX;

	for (i = 0; i < vblk->num_vqs; i++)
		n = min(n, virtqueue_get_vring_size(vblk->vqs[i].vq));
	return n;
}

/*
 * SEG_MAX validated: at least 1; at most ring size - 2, because a
 * descriptor chain may not be longer than the queue (virtio 1.2, 2.7.5.3.1
 * applies to indirect tables too) and header and status take two; and
 * within what an sg_table and the block layer can describe.
 */
static unsigned int vsgl_max_segments(struct vsgl_dev *vblk)
{
	unsigned int ring = vsgl_min_ring(vblk);
	unsigned int limit, segs = 0;

	limit = min3(ring > 2 ? ring - 2 : 1U, (unsigned int)SG_MAX_SEGMENTS,
		     VSGL_INLINE_MAX);
	if (vsgl_cread_feature(vblk->vdev, VIRTIO_BLK_F_SEG_MAX, seg_max, &segs) ||
	    !segs)
		segs = 1;
	if (segs > limit) {
		dev_info(&vblk->vdev->dev,
			 "seg_max %u exceeds what the queue allows, using %u\n",
			 segs, limit);
		segs = limit;
	}
	return segs;
}

/*
 * blk_mq_alloc_rqs() cannot place a request bigger than its largest page
 * block: the inline entries of a request that fits one.
 */
unsigned int vsgl_inline_fit(void)
{
	return ((PAGE_SIZE << VSGL_RQS_MAX_ORDER) - cache_line_size() -
		sizeof(struct request) - sizeof(struct vsgl_req)) /
	       sizeof(struct scatterlist);
}

static unsigned int vsgl_inline_count(struct vsgl_dev *vblk)
{
	unsigned int n = prealloc ? vblk->max_segments : inline_sg_cnt;
	unsigned int max_fit;

#ifdef CONFIG_ARCH_NO_SG_CHAIN
	/* An inline chunk that must chain needs sg chaining. */
	if (n < vblk->max_segments)
		n = 0;
#endif
	if (n > vblk->max_segments) {
		dev_info(&vblk->vdev->dev,
			 "inline_sg_cnt %u clamped to max segments %u\n",
			 n, vblk->max_segments);
		n = vblk->max_segments;
	}
	/*
	 * blk_mq_alloc_rqs() cannot place a request bigger than its largest
	 * page block, so a huge seg_max in prealloc mode would fail the probe:
	 * cap the inline array so that struct request + PDU fit one block.
	 */
	max_fit = vsgl_inline_fit();
	if (n > max_fit) {
		dev_info(&vblk->vdev->dev,
			 "inline_sg_cnt %u clamped to %u: a request must fit a %lu KiB block\n",
			 n, max_fit, (PAGE_SIZE << VSGL_RQS_MAX_ORDER) >> 10);
		n = max_fit;
	}
	return n;
}

static unsigned int vsgl_queue_depth(struct vsgl_dev *vblk)
{
	unsigned int depth = queue_depth;

	if (!depth) {
		depth = vsgl_min_ring(vblk);
		/* Without indirect descriptors each request needs >= 3. */
		if (!virtio_has_feature(vblk->vdev, VIRTIO_RING_F_INDIRECT_DESC))
			depth /= 2;
	}
	return clamp(depth, 1U, (unsigned int)BLK_MQ_MAX_DEPTH);
}

/*
 * Fill @lim from the device config; vsgl_alloc_disk() hands it to the block
 * layer (at allocation where the kernel takes it so, vsgl_compat.h).
 */
/*
 * Secure erase (virtio 1.2, 5.2.6): the block layer shares the discard
 * limits (segments, granularity) between both commands, so the stricter of
 * the two applies to both.  A zero maximum is out of spec: the in-tree
 * driver refuses the device, this one serves it without secure erase.
 * Returns the secure erase segment limit (0: no secure erase).
 */
static u32 vsgl_secure_erase_limits(struct virtio_device *vdev,
				    struct queue_limits *lim, u32 *align)
{
	u32 sectors = 0, segs = 0;

	*align = 0;
	if (vsgl_cread_feature(vdev, VIRTIO_BLK_F_SECURE_ERASE,
			       max_secure_erase_sectors, &sectors))
		return 0;
	vsgl_cread(vdev, max_secure_erase_seg, &segs);
	if (!sectors || !segs) {
		dev_warn(&vdev->dev,
			 "secure erase off: max_secure_erase_sectors %u, max_secure_erase_seg %u (must not be 0)\n",
			 sectors, segs);
		return 0;
	}
	vsgl_cread(vdev, secure_erase_sector_alignment, align);
	lim->max_secure_erase_sectors = sectors;
	return segs;
}

/* DISCARD and SECURE_ERASE limits, from the features the device offers. */
static void vsgl_discard_limits(struct vsgl_dev *vblk,
				struct queue_limits *lim, unsigned int lbs)
{
	struct virtio_device *vdev = vblk->vdev;
	u32 erase_segs, erase_align, segs = 0, align = 0, v;

	erase_segs = vsgl_secure_erase_limits(vdev, lim, &erase_align);
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_DISCARD)) {
		virtio_cread(vdev, struct virtio_blk_config,
			     max_discard_sectors, &v);
		lim->max_hw_discard_sectors = v ?: UINT_MAX;
		virtio_cread(vdev, struct virtio_blk_config,
			     discard_sector_alignment, &align);
		vsgl_cread(vdev, max_discard_seg, &segs);
	} else if (!erase_segs) {
		return;
	}
	segs = min_not_zero(segs, erase_segs);
	align = min_not_zero(align, erase_align);

	if (align && align <= (UINT_MAX >> SECTOR_SHIFT) &&
	    (align << SECTOR_SHIFT) >= lbs)
		lim->discard_granularity = align << SECTOR_SHIFT;
	else
		lim->discard_granularity = lbs;
	/* 0 is out of spec; the in-tree driver takes it as sg_elems. */
	lim->max_discard_segments = min(segs ?: vblk->max_segments,
					VSGL_MAX_DISCARD_SEGS);
}

static int vsgl_fill_limits(struct vsgl_dev *vblk, struct queue_limits *lim)
{
	struct virtio_device *vdev = vblk->vdev;
	unsigned int lbs = SECTOR_SIZE, v = 0;
	size_t max_size;
	u8 exp, align;
	u16 min_io;
	u32 opt_io;

	lim->max_segments = vblk->max_segments;
	lim->max_hw_sectors = UINT_MAX;

	max_size = min_t(size_t, virtio_max_dma_size(vdev), UINT_MAX);
	if (!vsgl_cread_feature(vdev, VIRTIO_BLK_F_SIZE_MAX, size_max, &v)) {
		if (!v)
			dev_info(&vdev->dev, "ignoring size_max 0\n");
		else
			max_size = min_t(size_t, max_size, v);
	}
	/* The block layer cannot split below a page. */
	if (max_size < PAGE_SIZE) {
		dev_info(&vdev->dev, "segment size limit %zu raised to %lu\n",
			 max_size, PAGE_SIZE);
		max_size = PAGE_SIZE;
	}
	lim->max_segment_size = max_size;

	if (!vsgl_cread_feature(vdev, VIRTIO_BLK_F_BLK_SIZE, blk_size, &v)) {
		if (!is_power_of_2(v) || v < SECTOR_SIZE || v > PAGE_SIZE) {
			dev_err(&vdev->dev,
				"unsupported block size %u (needs a power of two in 512..%lu)\n",
				v, PAGE_SIZE);
			return -EINVAL;
		}
		lbs = v;
	}
	lim->logical_block_size = lbs;

	if (virtio_has_feature(vdev, VIRTIO_BLK_F_TOPOLOGY)) {
		unsigned int bytes;

		virtio_cread(vdev, struct virtio_blk_config,
			     physical_block_exp, &exp);
		if (exp < 16)	/* beyond 64 K-blocks: nonsense, ignore */
			lim->physical_block_size = lbs << exp;
		else
			dev_info(&vdev->dev, "ignoring physical_block_exp %u\n",
				 exp);
		virtio_cread(vdev, struct virtio_blk_config, alignment_offset,
			     &align);
		if (align)
			lim->alignment_offset = lbs * align;
		virtio_cread(vdev, struct virtio_blk_config, min_io_size,
			     &min_io);
		if (min_io)
			lim->io_min = lbs * min_io;
		virtio_cread(vdev, struct virtio_blk_config, opt_io_size,
			     &opt_io);
		if (opt_io && !check_mul_overflow(lbs, opt_io, &bytes))
			lim->io_opt = bytes;
	}

	vsgl_discard_limits(vblk, lim, lbs);

	if (virtio_has_feature(vdev, VIRTIO_BLK_F_WRITE_ZEROES)) {
		virtio_cread(vdev, struct virtio_blk_config,
			     max_write_zeroes_sectors, &v);
		lim->max_write_zeroes_sectors = v ?: UINT_MAX;
	}
	return 0;
}

static void vsgl_read_geometry(struct vsgl_dev *vblk)
{
	struct virtio_device *vdev = vblk->vdev;

	/* Legacy defaults, as with most block drivers. */
	vblk->geo.heads = 1 << 6;
	vblk->geo.sectors = 1 << 5;
	vblk->geo.cylinders = 0;	/* derived from the capacity */

	if (virtio_has_feature(vdev, VIRTIO_BLK_F_GEOMETRY)) {
		u16 cyl;
		u8 heads, sectors;

		virtio_cread(vdev, struct virtio_blk_config, geometry.cylinders,
			     &cyl);
		virtio_cread(vdev, struct virtio_blk_config, geometry.heads,
			     &heads);
		virtio_cread(vdev, struct virtio_blk_config, geometry.sectors,
			     &sectors);
		if (heads && sectors) {
			vblk->geo.heads = heads;
			vblk->geo.sectors = sectors;
			vblk->geo.cylinders = cyl;
		} else {
			dev_info(&vdev->dev, "ignoring geometry %u/%u/%u\n",
				 cyl, heads, sectors);
		}
	}
}

/* "vsgla".."vsglz", "vsglaa".., like sd's naming. */
static void vsgl_disk_name(char *buf, size_t len, int index)
{
	char tmp[8];
	int i = 0;

	do {
		tmp[i++] = 'a' + index % 26;
		index = index / 26 - 1;
	} while (index >= 0 && i < (int)sizeof(tmp));

	len = scnprintf(buf, len, "vsgl");
	while (i > 0)
		buf[len++] = tmp[--i];
	buf[len] = '\0';
}

static int vsgl_probe(struct virtio_device *vdev)
{
	struct queue_limits lim = { 0 };
	struct vsgl_dev *vblk;
	unsigned int i;
	int cpu, err;

	if (!vdev->config->get) {
		dev_err(&vdev->dev, "config access is required\n");
		return -EINVAL;
	}

	vblk = kzalloc(sizeof(*vblk), GFP_KERNEL);
	if (!vblk)
		return -ENOMEM;
	vdev->priv = vblk;
	vblk->vdev = vdev;
	INIT_WORK(&vblk->config_work, vsgl_config_work);
	INIT_WORK(&vblk->kill_work, vsgl_kill_work);
	INIT_WORK(&vblk->reset_work, vsgl_reset_work);
	atomic_set(&vblk->resets, 0);
	spin_lock_init(&vblk->config_lock);
	mutex_init(&vblk->kill_lock);
	mutex_init(&vblk->vdev_mutex);

	err = ida_alloc_range(&vsgl_index_ida, 0, VSGL_MAX_DISKS - 1,
			      GFP_KERNEL);
	if (err < 0)
		goto out_free;
	vblk->index = err;

	err = -ENOMEM;
	vblk->stats = alloc_percpu(struct vsgl_pcpu_stats);
	if (!vblk->stats)
		goto out_ida;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(vblk->stats, cpu)->syncp);

	vblk->num_vqs = vsgl_num_queues(vdev);
	vblk->io_queues[HCTX_TYPE_POLL] = min(poll_queues, vblk->num_vqs - 1);
	vblk->io_queues[HCTX_TYPE_DEFAULT] =
		vblk->num_vqs - vblk->io_queues[HCTX_TYPE_POLL];
	vblk->vqs = kcalloc(vblk->num_vqs, sizeof(*vblk->vqs), GFP_KERNEL);
	if (!vblk->vqs)
		goto out_stats;
	for (i = 0; i < vblk->num_vqs; i++)
		spin_lock_init(&vblk->vqs[i].lock);

	err = vsgl_init_vqs(vblk);
	if (err)
		goto out_vqs;

	vblk->max_segments = vsgl_max_segments(vblk);
	vblk->inline_sg = vsgl_inline_count(vblk);

	vblk->tag_set.ops = &vsgl_mq_ops;
	vblk->tag_set.nr_hw_queues = vblk->num_vqs;
	vblk->tag_set.queue_depth = vsgl_queue_depth(vblk);
	vblk->tag_set.numa_node = NUMA_NO_NODE;
	vblk->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
	vblk->tag_set.cmd_size = struct_size((struct vsgl_req *)NULL, sg,
					     vblk->inline_sg);
	vblk->tag_set.driver_data = vblk;
	vblk->tag_set.nr_maps = vblk->io_queues[HCTX_TYPE_POLL] ?
				HCTX_MAX_TYPES : 1;
	vblk->tag_set.timeout = reset_timeout * HZ;	/* 0: the default 30 s */

	err = vsgl_fill_limits(vblk, &lim);
	if (err)
		goto out_del_vqs;

	err = blk_mq_alloc_tag_set(&vblk->tag_set);
	if (err)
		goto out_del_vqs;

	vblk->disk = vsgl_alloc_disk(&vblk->tag_set, &lim, vblk);
	if (IS_ERR(vblk->disk)) {
		err = PTR_ERR(vblk->disk);
		goto out_tags;
	}

	vsgl_disk_name(vblk->disk->disk_name, DISK_NAME_LEN, vblk->index);
	vblk->disk->major = vsgl_major;
	vblk->disk->first_minor = vblk->index << VSGL_PART_BITS;
	vblk->disk->minors = 1 << VSGL_PART_BITS;
	vblk->disk->private_data = vblk;
	vblk->disk->fops = &vsgl_fops;
	vblk->devt = disk_devt(vblk->disk);

	if (virtio_has_feature(vdev, VIRTIO_BLK_F_RO))
		set_disk_ro(vblk->disk, true);
	err = vsgl_update_cache_mode(vblk);
	if (err)
		goto out_disk;
	vsgl_read_geometry(vblk);
	vsgl_update_capacity(vblk, false);

	virtio_device_ready(vdev);

	err = device_add_disk(&vdev->dev, vblk->disk, vsgl_attr_groups);
	if (err)
		goto out_reset;

	dev_info(&vdev->dev,
		 "%s: %u queues x %u tags, max %u segments, inline %u SG entries\n",
		 vblk->disk->disk_name, vblk->tag_set.nr_hw_queues,
		 vblk->tag_set.queue_depth, vblk->max_segments,
		 vblk->inline_sg);
	return 0;

out_reset:
	virtio_reset_device(vdev);
	flush_work(&vblk->config_work);
out_disk:
	put_disk(vblk->disk);
out_tags:
	blk_mq_free_tag_set(&vblk->tag_set);
out_del_vqs:
	/*
	 * The core does not reset a device whose probe failed: without this,
	 * its queues stay enabled and the next probe (another driver, or this
	 * one reloaded) fails in find_vqs with -ENOENT.
	 */
	virtio_reset_device(vdev);
	vsgl_del_vqs(vblk);
out_vqs:
	kfree(vblk->vqs);
out_stats:
	free_percpu(vblk->stats);
out_ida:
	ida_free(&vsgl_index_ida, vblk->index);
out_free:
	kfree(vblk);
	vdev->priv = NULL;
	return err;
}

static void vsgl_remove(struct virtio_device *vdev)
{
	struct vsgl_dev *vblk = vdev->priv;
	unsigned long flags;

	spin_lock_irqsave(&vblk->config_lock, flags);
	WRITE_ONCE(vblk->removing, true);
	spin_unlock_irqrestore(&vblk->config_lock, flags);
	flush_work(&vblk->config_work);

	/*
	 * A device that is physically gone completes nothing: fail its I/O
	 * now, or del_gendisk() would wait for it forever.  A device that is
	 * still there (ACPI hot-unplug asks first) finishes what it has.
	 */
	if (vsgl_device_gone(vblk))
		vsgl_kill(vblk, true);

	del_gendisk(vblk->disk);
	cancel_work_sync(&vblk->reset_work);
	cancel_work_sync(&vblk->kill_work);
	vsgl_kill(vblk, false);	/* no I/O is left */
	/*
	 * A device whose re-initialisation failed was marked dead by the
	 * reset work, and its reset may not have reached it (a function that
	 * stopped decoding its BAR drops the write, then answers again): the
	 * virtio core checks after remove that the status reads 0.
	 */
	if (!vsgl_device_gone(vblk))
		virtio_reset_device(vdev);
	blk_mq_free_tag_set(&vblk->tag_set);
	vsgl_del_vqs(vblk);
	WARN_ON_ONCE(vsgl_chained_now(vblk));
	kfree(vblk->vqs);
	vblk->vqs = NULL;
	vdev->priv = NULL;
	mutex_lock(&vblk->vdev_mutex);
	vblk->vdev = NULL;
	mutex_unlock(&vblk->vdev_mutex);
	/* vsgl_free_disk() frees @vblk once the last opener is gone. */
	put_disk(vblk->disk);
}

#ifdef CONFIG_PM_SLEEP
static int vsgl_freeze(struct virtio_device *vdev)
{
	struct vsgl_dev *vblk = vdev->priv;
	struct request_queue *q = vblk->disk->queue;

	/*
	 * Drain what is in flight (nothing would complete it after the
	 * reset), then hold new requests back by quiescing only: a queue
	 * kept frozen across the whole sleep deadlocks whatever enters it in
	 * the suspend context (the pattern behind CVE-2024-57946).
	 */
	blk_mq_freeze_queue(q);
	blk_mq_quiesce_queue_nowait(q);
	blk_mq_unfreeze_queue(q);
	/* Nothing in flight: no timeout can queue kill or reset work now. */
	flush_work(&vblk->reset_work);
	flush_work(&vblk->kill_work);
	virtio_reset_device(vdev);
	/* Not freezable (vsgl_config_changed()), so this cannot deadlock. */
	flush_work(&vblk->config_work);
	vsgl_del_vqs(vblk);
	return 0;
}

static int vsgl_restore(struct virtio_device *vdev)
{
	struct vsgl_dev *vblk = vdev->priv;
	struct request_queue *q = vblk->disk->queue;
	unsigned int i;
	int err;

	/* Same queue count as at probe: the tag set is sized for it. */
	err = vsgl_reset_fault() ?: vsgl_init_vqs(vblk);
	if (err) {
		dev_err(&vdev->dev, "restore failed (%d), disk is dead\n", err);
		WRITE_ONCE(vblk->killed, true);
		blk_mark_disk_dead(vblk->disk);
	}
	/* A device stopped before the sleep stays stopped. */
	if (READ_ONCE(vblk->killed))
		for (i = 0; i < vblk->num_vqs; i++)
			vblk->vqs[i].dead = true;
	if (!err) {
		virtio_device_ready(vdev);
		/*
		 * A capacity change while the device was reset raised no
		 * config interrupt (a device only notifies with DRIVER_OK).
		 */
		if (vsgl_read_capacity(vblk) != get_capacity(vblk->disk))
			queue_work(system_wq, &vblk->config_work);
	}
	blk_mq_unquiesce_queue(q);
	return err;
}
#endif

static const struct virtio_device_id vsgl_id_table[] = {
	{ VIRTIO_ID_BLOCK, VIRTIO_DEV_ANY_ID },
	{ 0 },
};
MODULE_DEVICE_TABLE(virtio, vsgl_id_table);

/* Zoned devices are left out (docs/DRIVER.md), so that bit is not offered. */
static const unsigned int vsgl_features[] = {
	VIRTIO_BLK_F_SEG_MAX, VIRTIO_BLK_F_SIZE_MAX, VIRTIO_BLK_F_GEOMETRY,
	VIRTIO_BLK_F_RO, VIRTIO_BLK_F_BLK_SIZE, VIRTIO_BLK_F_FLUSH,
	VIRTIO_BLK_F_TOPOLOGY, VIRTIO_BLK_F_CONFIG_WCE, VIRTIO_BLK_F_MQ,
	VIRTIO_BLK_F_DISCARD, VIRTIO_BLK_F_WRITE_ZEROES,
	VIRTIO_BLK_F_SECURE_ERASE,
};

static struct virtio_driver vsgl_driver = {
	.feature_table			= vsgl_features,
	.feature_table_size		= ARRAY_SIZE(vsgl_features),
	.feature_table_legacy		= vsgl_features,
	.feature_table_size_legacy	= ARRAY_SIZE(vsgl_features),
	.driver.name			= KBUILD_MODNAME,
	.driver.owner			= THIS_MODULE,
	.id_table			= vsgl_id_table,
	.probe				= vsgl_probe,
	.remove				= vsgl_remove,
	.config_changed			= vsgl_config_changed,
#ifdef CONFIG_PM_SLEEP
	.freeze				= vsgl_freeze,
	.restore			= vsgl_restore,
#endif
};

static int __init vsgl_init(void)
{
	int err;

	vsgl_testing_announce();
	vsgl_major = register_blkdev(0, KBUILD_MODNAME);
	if (vsgl_major < 0)
		return vsgl_major;

	err = register_virtio_driver(&vsgl_driver);
	if (err) {
		unregister_blkdev(vsgl_major, KBUILD_MODNAME);
		return err;
	}
	return 0;
}

static void __exit vsgl_exit(void)
{
	unregister_virtio_driver(&vsgl_driver);
	unregister_blkdev(vsgl_major, KBUILD_MODNAME);
	ida_destroy(&vsgl_index_ida);
}

module_init(vsgl_init);
module_exit(vsgl_exit);

MODULE_DESCRIPTION("virtio block driver with chained SG lists and SG accounting");
MODULE_LICENSE("GPL");
