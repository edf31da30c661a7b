/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of virtio_blk_sgl.  The TP_PROTO argument lists are ABI
 * (docs/ABI.md): BPF raw_tp programs see them as u64 ctx[] in this order,
 * so never reorder, retype or remove an argument; append only.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM virtio_blk_sgl

#if !defined(_VIRTIO_BLK_SGL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _VIRTIO_BLK_SGL_TRACE_H

#include <linux/blk-mq.h>
#include <linux/tracepoint.h>

TRACE_EVENT(virtio_blk_sgl_setup,

	/*
	 * cmd_flags and bytes (appended) are rq->cmd_flags and
	 * blk_rq_bytes(rq), handed over so that a BPF program need not read
	 * them out of the request (a probe read each time).
	 */
	TP_PROTO(struct request *rq, u32 dev, u32 hwq, u32 nsegs,
		 u32 inline_cnt, bool chained, u32 chained_bytes, int err,
		 bool retry, u64 setup_ns, u32 cmd_flags, u32 bytes),

	TP_ARGS(rq, dev, hwq, nsegs, inline_cnt, chained, chained_bytes, err,
		retry, setup_ns, cmd_flags, bytes),

	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, hwq)
		__field(int, tag)
		__field(u32, op)
		__field(u64, sector)
		__field(u32, nr_sectors)
		__field(u32, nsegs)
		__field(u32, inline_cnt)
		__field(bool, chained)
		__field(u32, chained_bytes)
		__field(int, err)
		__field(bool, retry)
		__field(u64, setup_ns)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->hwq = hwq;
		__entry->tag = rq->tag;
		__entry->op = (__force u32)req_op(rq);
		__entry->sector = blk_rq_pos(rq);
		__entry->nr_sectors = blk_rq_sectors(rq);
		__entry->nsegs = nsegs;
		__entry->inline_cnt = inline_cnt;
		__entry->chained = chained;
		__entry->chained_bytes = chained_bytes;
		__entry->err = err;
		__entry->retry = retry;
		__entry->setup_ns = setup_ns;
	),

	TP_printk("dev=%u,%u hwq=%u tag=%d op=%u sector=%llu nr_sectors=%u nsegs=%u inline=%u chained=%d chained_bytes=%u err=%d retry=%d setup_ns=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->hwq,
		  __entry->tag, __entry->op,
		  (unsigned long long)__entry->sector, __entry->nr_sectors,
		  __entry->nsegs, __entry->inline_cnt, __entry->chained,
		  __entry->chained_bytes, __entry->err, __entry->retry,
		  (unsigned long long)__entry->setup_ns)
);

TRACE_EVENT(virtio_blk_sgl_complete,

	/*
	 * Appended for BPF programs, as in virtio_blk_sgl_setup: cmd_flags,
	 * and the request's start_time_ns and io_start_time_ns (0 when the
	 * block layer did not stamp it) for its latency.  Then what a tracer
	 * needs to count the whole request here, on this one event: the
	 * data length in bits 0-31 of setup_info, and in bit 32 whether its
	 * setup was a retry.  One packed argument, because a raw tracepoint
	 * hands BPF at most 12 (MAX_BPF_FUNC_ARGS).
	 */
	TP_PROTO(struct request *rq, u32 dev, u32 hwq, u32 nsegs,
		 bool chained, u32 chained_bytes, u8 vstatus, int blk_status,
		 u32 cmd_flags, u64 start_ns, u64 io_start_ns, u64 setup_info),

	TP_ARGS(rq, dev, hwq, nsegs, chained, chained_bytes, vstatus,
		blk_status, cmd_flags, start_ns, io_start_ns, setup_info),

	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, hwq)
		__field(int, tag)
		__field(u32, op)
		__field(u64, sector)
		__field(u32, nr_sectors)
		__field(u32, nsegs)
		__field(bool, chained)
		__field(u32, chained_bytes)
		__field(u8, vstatus)
		__field(int, blk_status)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->hwq = hwq;
		__entry->tag = rq->tag;
		__entry->op = (__force u32)req_op(rq);
		__entry->sector = blk_rq_pos(rq);
		__entry->nr_sectors = blk_rq_sectors(rq);
		__entry->nsegs = nsegs;
		__entry->chained = chained;
		__entry->chained_bytes = chained_bytes;
		__entry->vstatus = vstatus;
		__entry->blk_status = blk_status;
	),

	TP_printk("dev=%u,%u hwq=%u tag=%d op=%u sector=%llu nr_sectors=%u nsegs=%u chained=%d chained_bytes=%u vstatus=%u blk_status=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->hwq,
		  __entry->tag, __entry->op,
		  (unsigned long long)__entry->sector, __entry->nr_sectors,
		  __entry->nsegs, __entry->chained, __entry->chained_bytes,
		  __entry->vstatus, __entry->blk_status)
);

TRACE_EVENT(virtio_blk_sgl_alloc_fail,

	TP_PROTO(struct request *rq, u32 dev, u32 hwq, u32 nsegs,
		 u32 inline_cnt, int err, bool injected),

	TP_ARGS(rq, dev, hwq, nsegs, inline_cnt, err, injected),

	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, hwq)
		__field(int, tag)
		__field(u32, nsegs)
		__field(u32, inline_cnt)
		__field(int, err)
		__field(bool, injected)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->hwq = hwq;
		__entry->tag = rq->tag;
		__entry->nsegs = nsegs;
		__entry->inline_cnt = inline_cnt;
		__entry->err = err;
		__entry->injected = injected;
	),

	TP_printk("dev=%u,%u hwq=%u tag=%d nsegs=%u inline=%u err=%d injected=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->hwq,
		  __entry->tag, __entry->nsegs, __entry->inline_cnt,
		  __entry->err, __entry->injected)
);

/* A device reset after a request timed out (vsgl_reset_work()). */
TRACE_EVENT(virtio_blk_sgl_reset,

	TP_PROTO(u32 dev, u32 resets, u32 reissued, u32 failed, int err),

	TP_ARGS(dev, resets, reissued, failed, err),

	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, resets)
		__field(u32, reissued)
		__field(u32, failed)
		__field(int, err)
	),

	TP_fast_assign(
		__entry->dev = dev;
		__entry->resets = resets;
		__entry->reissued = reissued;
		__entry->failed = failed;
		__entry->err = err;
	),

	TP_printk("dev=%u,%u resets=%u reissued=%u failed=%u err=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->resets,
		  __entry->reissued, __entry->failed, __entry->err)
);

#endif /* _VIRTIO_BLK_SGL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE virtio_blk_sgl_trace
#include <trace/define_trace.h>
