// SPDX-License-Identifier: GPL-2.0
/*
 * vsgl_sysfs.c - virtio_blk_sgl's sysfs attributes: the disk's serial and
 * cache_type (as the in-tree virtio_blk has them) and the sgl/ group, the SG
 * accounting and the request memory model of docs/ABI.md and
 * docs/DRIVER.md ("pdu_alloc_bytes").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/virtio.h>
#include <linux/virtio_blk.h>
#include <linux/virtio_config.h>

#include "vsgl.h"
#include "vsgl_compat.h"

static struct vsgl_dev *dev_to_vsgl(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct gendisk *disk = dev_to_disk(dev);
	struct vsgl_dev *vblk = disk->private_data;
	struct request *rq;
	blk_status_t sts;
	char *id;
	int err;

	/*
	 * A dead disk's queue stays frozen (blk_mark_disk_dead()): allocating
	 * a request would wait for it forever.
	 */
	if (READ_ONCE(vblk->killed))
		return -ENODEV;

	/* DMA-able and one byte longer, so that the ID is a C string. */
	id = kzalloc(VIRTIO_BLK_ID_BYTES + 1, GFP_KERNEL);
	if (!id)
		return -ENOMEM;

	rq = blk_mq_alloc_request(disk->queue, REQ_OP_DRV_IN, 0);
	if (IS_ERR(rq)) {
		err = PTR_ERR(rq);
		goto out;
	}
	err = blk_rq_map_kern(disk->queue, rq, id, VIRTIO_BLK_ID_BYTES,
			      GFP_KERNEL);
	if (err)
		goto out_put;
	sts = blk_execute_rq(rq, false);
	err = blk_status_to_errno(sts);
out_put:
	blk_mq_free_request(rq);
	/*
	 * As the in-tree driver: the ID as the device gave it, without a
	 * newline (tools compare it byte for byte), and empty when the device
	 * failed the request (GET_ID unsupported).
	 */
	if (!err)
		err = sysfs_emit(buf, "%s", id);
	else if (err == -EIO)
		err = 0;
out:
	kfree(id);
	return err;
}
static DEVICE_ATTR_RO(serial);

static const char *const vsgl_cache_types[] = {
	"write through", "write back"
};

static bool vsgl_get_wce(struct virtio_device *vdev)
{
	u8 wce;

	if (virtio_cread_feature(vdev, VIRTIO_BLK_F_CONFIG_WCE,
				 struct virtio_blk_config, wce, &wce))
		/* FLUSH without CONFIG_WCE: the cache is write back. */
		wce = virtio_has_feature(vdev, VIRTIO_BLK_F_FLUSH);
	return wce;
}

int vsgl_update_cache_mode(struct vsgl_dev *vblk)
{
	bool wce = virtio_has_feature(vblk->vdev, VIRTIO_BLK_F_FLUSH) &&
		   vsgl_get_wce(vblk->vdev);

	return vsgl_set_write_cache(vblk->disk->queue, wce);
}

static ssize_t cache_type_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct vsgl_dev *vblk = dev_to_vsgl(dev);
	int i, err;
	u8 v;

	if (READ_ONCE(vblk->killed))
		return -ENODEV;
	i = sysfs_match_string(vsgl_cache_types, buf);
	if (i < 0)
		return i;
	v = i;
	virtio_cwrite8(vblk->vdev, offsetof(struct virtio_blk_config, wce), v);
	err = vsgl_update_cache_mode(vblk);
	return err ? err : count;
}

static ssize_t cache_type_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct vsgl_dev *vblk = dev_to_vsgl(dev);

	return sysfs_emit(buf, "%s\n",
			  vsgl_cache_types[vsgl_get_wce(vblk->vdev)]);
}
static DEVICE_ATTR_RW(cache_type);

static struct attribute *vsgl_disk_attrs[] = {
	&dev_attr_serial.attr,
	&dev_attr_cache_type.attr,
	NULL,
};

static umode_t vsgl_disk_attrs_visible(struct kobject *kobj,
				       struct attribute *a, int n)
{
	struct vsgl_dev *vblk = dev_to_vsgl(kobj_to_dev(kobj));

	/* cache_type is writable only when the device lets us change it. */
	if (a == &dev_attr_cache_type.attr &&
	    !virtio_has_feature(vblk->vdev, VIRTIO_BLK_F_CONFIG_WCE))
		return 0444;
	return a->mode;
}

static const struct attribute_group vsgl_disk_group = {
	.attrs = vsgl_disk_attrs,
	.is_visible = vsgl_disk_attrs_visible,
};

/* sgl/: the SG accounting of docs/ABI.md. */

/*
 * Every request the block layer allocated a PDU for: driver tags, the
 * scheduler tags of an elevator (per hctx, sized when it was attached;
 * nr_tags keeps the allocated count when nr_requests shrinks later) and
 * the per-hctx flush request.  sysfs_lock keeps elevator switches and
 * nr_requests updates away while we look.
 */
static u64 vsgl_nr_requests_total(struct vsgl_dev *vblk)
{
	struct request_queue *q = vblk->disk->queue;
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;
	u64 n = 0;

	mutex_lock(&q->sysfs_lock);
	queue_for_each_hw_ctx(q, hctx, i) {
		n += hctx->tags ? hctx->tags->nr_tags : 0;
		if (q->elevator && hctx->sched_tags)
			n += hctx->sched_tags->nr_tags;
		n += 1;		/* hctx->fq->flush_rq */
	}
	mutex_unlock(&q->sysfs_lock);
	return n;
}

/*
 * What the block layer really allocates for this disk's requests, modelled
 * on 6.1's block/blk-mq.c (docs/DRIVER.md, "pdu_alloc_bytes").
 *
 * blk_mq_alloc_rqs() packs @depth requests of
 * rq_size = round_up(sizeof(struct request) + cmd_size, cache_line_size())
 * into page blocks: each block is of order 4 (64 KiB) unless the bytes
 * still to place are less than the next order down, in which case the
 * order drops until they are not; a request never straddles two blocks.
 * Allocation failures (which make blk-mq retry at lower orders) are not
 * modelled.  Returns 0 when not even one request fits an order-4 block
 * (blk-mq then fails the allocation).
 */
static size_t vsgl_rq_size(unsigned int cmd_size)
{
	return round_up(sizeof(struct request) + cmd_size, cache_line_size());
}

static u64 vsgl_rqs_bytes(size_t rq_size, unsigned int depth)
{
	u64 left = (u64)rq_size * depth, bytes = 0;
	unsigned int done = 0;

	while (done < depth) {
		unsigned int order = VSGL_RQS_MAX_ORDER;
		size_t block;
		unsigned int n;

		while (order && left < ((u64)PAGE_SIZE << (order - 1)))
			order--;
		block = PAGE_SIZE << order;
		if (block < rq_size)
			return 0;
		n = min_t(size_t, block / rq_size, depth - done);
		bytes += block;
		left -= (u64)n * rq_size;
		done += n;
	}
	return bytes;
}

/*
 * blk_alloc_flush_queue() kzalloc()s the flush request with the same
 * cache-line-rounded size; kmalloc rounds it to its size class (a
 * power-of-two number of pages above KMALLOC_MAX_CACHE_SIZE).
 */
static u64 vsgl_flush_rq_bytes(size_t rq_size)
{
	return kmalloc_size_roundup(rq_size);
}

/*
 * Bytes of request memory blk-mq holds for this disk if its PDU were
 * @cmd_size bytes: driver tags of every hctx, the scheduler tags of an
 * attached elevator (nr_tags = the depth they were allocated with) and the
 * per-hctx flush request.  Same locking as vsgl_nr_requests_total().
 */
static u64 vsgl_pdu_alloc_bytes(struct vsgl_dev *vblk, unsigned int cmd_size)
{
	struct request_queue *q = vblk->disk->queue;
	size_t rq_size = vsgl_rq_size(cmd_size);
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;
	u64 n = 0;

	if (rq_size > PAGE_SIZE << VSGL_RQS_MAX_ORDER)
		return 0;
	mutex_lock(&q->sysfs_lock);
	queue_for_each_hw_ctx(q, hctx, i) {
		if (hctx->tags)
			n += vsgl_rqs_bytes(rq_size, hctx->tags->nr_tags);
		if (q->elevator && hctx->sched_tags)
			n += vsgl_rqs_bytes(rq_size, hctx->sched_tags->nr_tags);
		n += vsgl_flush_rq_bytes(rq_size);
	}
	mutex_unlock(&q->sysfs_lock);
	return n;
}

/*
 * The PDU of the prealloc layout: max_segments inline entries, as many as
 * fit a request in one page block (what prealloc mode clamps to).
 */
static unsigned int vsgl_prealloc_cmd_size(struct vsgl_dev *vblk)
{
	return struct_size((struct vsgl_req *)NULL, sg,
			   min(vblk->max_segments, vsgl_inline_fit()));
}

/* A per-CPU counter at @off in struct vsgl_pcpu_stats, summed. */
static u64 vsgl_sum(struct vsgl_dev *vblk, size_t off)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct vsgl_pcpu_stats *s = per_cpu_ptr(vblk->stats, cpu);
		const u64 *v = (const void *)s + off;
		unsigned int start;
		u64 n;

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			n = READ_ONCE(*v);
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum += n;
	}
	return sum;
}

#define vsgl_stat(vblk, field) \
	vsgl_sum(vblk, offsetof(struct vsgl_pcpu_stats, field))

/*
 * Sent minus refused by the ring; the refused count is read first, so that
 * a request refused meanwhile is not taken off before it was counted.
 */
static u64 vsgl_sent(struct vsgl_dev *vblk, size_t sent, size_t unsent)
{
	u64 refused = vsgl_sum(vblk, unsent);

	smp_rmb();
	return vsgl_sum(vblk, sent) - refused;
}

#define VSGL_VAL_ATTR(name, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct vsgl_dev *vblk = dev_to_vsgl(dev);			\
									\
	return sysfs_emit(buf, "%llu\n", (unsigned long long)(expr));	\
}									\
static DEVICE_ATTR_RO(name)

#define VSGL_STAT_ATTR(name, field) \
	VSGL_VAL_ATTR(name, vsgl_stat(vblk, field))

VSGL_VAL_ATTR(requests_mapped,
	      vsgl_sent(vblk, offsetof(struct vsgl_pcpu_stats, mapped),
			offsetof(struct vsgl_pcpu_stats, unsent)));
VSGL_VAL_ATTR(requests_chained,
	      vsgl_sent(vblk, offsetof(struct vsgl_pcpu_stats, chained),
			offsetof(struct vsgl_pcpu_stats, unsent_chained)));
VSGL_STAT_ATTR(chain_alloc_failures, alloc_failures);
VSGL_STAT_ATTR(chain_alloc_injected, alloc_injected);
VSGL_STAT_ATTR(retries, retries);
VSGL_STAT_ATTR(requests_completed, completed);
VSGL_STAT_ATTR(io_errors, io_errors);
VSGL_STAT_ATTR(used_len_mismatch, used_len_mismatch);
VSGL_STAT_ATTR(requests_reissued, reissued);

u64 vsgl_chained_now(struct vsgl_dev *vblk)
{
	s64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += atomic64_read(&per_cpu_ptr(vblk->stats, cpu)->chained_now);
	return max_t(s64, sum, 0);
}

/*
 * The sum of the per-CPU peaks: the true peak when one CPU sets up the
 * chained requests, otherwise never below it and at most nr_cpus times it
 * (docs/ABI.md).
 */
static u64 vsgl_chained_peak(struct vsgl_dev *vblk)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += atomic64_read(&per_cpu_ptr(vblk->stats, cpu)->chained_peak);
	return sum;
}


VSGL_VAL_ATTR(inline_sg_cnt, vblk->inline_sg);
VSGL_VAL_ATTR(resets, atomic_read(&vblk->resets));
VSGL_VAL_ATTR(max_segments, vblk->max_segments);
VSGL_VAL_ATTR(nr_hw_queues, vblk->tag_set.nr_hw_queues);
VSGL_VAL_ATTR(queue_depth, vblk->tag_set.queue_depth);
VSGL_VAL_ATTR(nr_requests_total, vsgl_nr_requests_total(vblk));
VSGL_VAL_ATTR(sg_prealloc_bytes, vsgl_nr_requests_total(vblk) *
	      vblk->inline_sg * sizeof(struct scatterlist));
VSGL_VAL_ATTR(sg_full_prealloc_bytes, vsgl_nr_requests_total(vblk) *
	      vblk->max_segments * sizeof(struct scatterlist));
VSGL_VAL_ATTR(chained_bytes_now, vsgl_chained_now(vblk));
/* sglstat's memory model needs it: 40 with CONFIG_DEBUG_SG */
static ssize_t sg_entry_bytes_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%zu\n", sizeof(struct scatterlist));
}
static DEVICE_ATTR_RO(sg_entry_bytes);
VSGL_VAL_ATTR(pdu_alloc_bytes,
	      vsgl_pdu_alloc_bytes(vblk, vblk->tag_set.cmd_size));
VSGL_VAL_ATTR(pdu_alloc_bytes_prealloc,
	      vsgl_pdu_alloc_bytes(vblk, vsgl_prealloc_cmd_size(vblk)));

static ssize_t chained_bytes_peak_show(struct device *dev,
				       struct device_attribute *attr,
				       char *buf)
{
	struct vsgl_dev *vblk = dev_to_vsgl(dev);

	return sysfs_emit(buf, "%llu\n", vsgl_chained_peak(vblk));
}

static ssize_t chained_bytes_peak_store(struct device *dev,
					struct device_attribute *attr,
					const char *buf, size_t count)
{
	struct vsgl_dev *vblk = dev_to_vsgl(dev);
	int cpu, ret;
	u64 v;

	ret = kstrtou64(buf, 0, &v);
	if (ret)
		return ret;
	if (v)
		return -EINVAL;
	/* The new peaks start from what each CPU holds right now. */
	for_each_possible_cpu(cpu) {
		struct vsgl_pcpu_stats *s = per_cpu_ptr(vblk->stats, cpu);

		atomic64_set(&s->chained_peak, atomic64_read(&s->chained_now));
	}
	return count;
}
static DEVICE_ATTR_RW(chained_bytes_peak);

static struct attribute *vsgl_sgl_attrs[] = {
	&dev_attr_inline_sg_cnt.attr,
	&dev_attr_max_segments.attr,
	&dev_attr_nr_hw_queues.attr,
	&dev_attr_queue_depth.attr,
	&dev_attr_nr_requests_total.attr,
	&dev_attr_sg_prealloc_bytes.attr,
	&dev_attr_sg_full_prealloc_bytes.attr,
	&dev_attr_sg_entry_bytes.attr,
	&dev_attr_requests_mapped.attr,
	&dev_attr_requests_chained.attr,
	&dev_attr_chain_alloc_failures.attr,
	&dev_attr_chain_alloc_injected.attr,
	&dev_attr_retries.attr,
	&dev_attr_chained_bytes_now.attr,
	&dev_attr_chained_bytes_peak.attr,
	&dev_attr_requests_completed.attr,
	&dev_attr_io_errors.attr,
	&dev_attr_used_len_mismatch.attr,
	&dev_attr_resets.attr,
	&dev_attr_requests_reissued.attr,
	&dev_attr_pdu_alloc_bytes.attr,
	&dev_attr_pdu_alloc_bytes_prealloc.attr,
	NULL,
};

static const struct attribute_group vsgl_sgl_group = {
	.name = "sgl",
	.attrs = vsgl_sgl_attrs,
};

const struct attribute_group *vsgl_attr_groups[] = {
	&vsgl_disk_group,
	&vsgl_sgl_group,
	NULL,
};
