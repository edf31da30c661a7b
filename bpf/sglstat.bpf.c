// SPDX-License-Identifier: GPL-2.0
/*
 * sglstat: per-disk, per-op scatter-gather statistics of virtio-blk.
 *
 * Two sets of programs, chosen by userspace before load (the unused set has
 * autoload disabled):
 *  - driver mode: raw_tp on the virtio_blk_sgl tracepoints (docs/ABI.md):
 *    drv_done alone on the complete event (one program per I/O), or with
 *    setup events (--setup-time) drv_setup and drv_complete;
 *  - stock mode: block_rq_issue / block_rq_requeue / block_rq_complete, as
 *    tp_btf programs with raw_tp twins for kernels without tp_btf support.
 *
 * Hot path cost: one ARRAY lookup for the disk (no hash map), one per-CPU
 * ARRAY lookup for the stats, a few CO-RE reads of struct request; latency
 * comes from the request's own timestamps.  Only data-less requests issued
 * outside the flush machinery (rare) go through a request-keyed map, to
 * tell their completion from the flush machinery's repeats (stock_event).
 *
 * Testing note (tests/bpf/): BPF_PROG_TEST_RUN runs the raw_tp programs
 * with a synthetic u64 ctx[].  Everything the driver passes as a scalar
 * argument (dev, nsegs, chained, err, ...) is taken from ctx[], never from
 * the request, so those paths are testable with any rq value.  What only the
 * request holds (op from cmd_flags, data length, timestamps, and in stock
 * mode the disk and nr_phys_segments) is read with BPF_CORE_READ, i.e.
 * bpf_probe_read_kernel(): on a bogus or user pointer it fails and yields 0
 * (so op = read, len = 0, no timestamp) instead of faulting.  The tests pass
 * the kernel address of a fake struct request that lives in a test-only BPF
 * object's .bss (tests/bpf/fake_rq.bpf.c), filled through its mmap, so the
 * CO-RE reads here see real kernel memory with chosen contents.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "sglstat.h"
/* the traced kernel's, 40 with CONFIG_DEBUG_SG (a CO-RE relocation) */
#define SGL_ENTRY_BYTES bpf_core_type_size(struct scatterlist)
#include "sgl_model.h"

#define REQ_OP_MASK_	0xff	/* (1 << REQ_OP_BITS) - 1, REQ_OP_BITS = 8 */
#define RQF_SPECIAL_PAYLOAD_BIT_6_1	18	/* 6.1: RQF_SPECIAL_PAYLOAD = 1 << 18 */
#define RQF_FLUSH_SEQ_BIT_6_1		4	/* 6.1: RQF_FLUSH_SEQ = 1 << 4 */
#define MINORBITS_	20

const volatile __u32 targ_part_shift = 4;	/* virtio_blk and vsgl: 16 minors */
const volatile bool targ_driver_mode = false;	/* every disk as SGL_DISK_F_DRIVER */
const volatile bool targ_queued = false;	/* -Q: latency from start_time_ns always */
/*
 * Driver mode counts each request at its setup event (drv_setup, with the
 * setup time and the in-flight gauge: --setup-time), or else whole at its
 * completion (drv_done): one event per I/O instead of two.
 */
const volatile bool targ_setup_events = false;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SGL_DISK_KEYS);
	__type(key, __u32);
	__type(value, struct sgl_disk_val);
} disks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SGL_MAX_DISKS * SGL_NR_OPS);
	__type(key, __u32);
	__type(value, struct sgl_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SGL_MAX_DISKS);
	__type(key, __u32);
	__type(value, struct sgl_inflight);
} inflight SEC(".maps");

/* data-less requests issued outside a flush sequence, until they complete */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} empty_issued SEC(".maps");

static __always_inline struct sgl_disk_val *disk_lookup(__u32 major, __u32 first_minor)
{
	__u32 key = sgl_disk_key(major, first_minor, targ_part_shift);
	struct sgl_disk_val *d;

	d = bpf_map_lookup_elem(&disks, &key);
	/* unused entries are all zero: major 0 never matches (NULL disk reads as 0:0) */
	if (!d || !major || d->major != major || d->first_minor != first_minor ||
	    d->slot >= SGL_MAX_DISKS)
		return NULL;
	return d;
}

static __always_inline struct sgl_disk_val *disk_lookup_dev(__u32 dev)
{
	return disk_lookup(dev >> MINORBITS_, dev & ((1u << MINORBITS_) - 1));
}

static __always_inline __u32 op_class(__u32 cmd_flags)
{
	__u32 op = cmd_flags & REQ_OP_MASK_;

	if (op == bpf_core_enum_value(enum req_op, REQ_OP_READ))
		return SGL_OP_READ;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE))
		return SGL_OP_WRITE;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_FLUSH))
		return SGL_OP_FLUSH;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_DISCARD))
		return SGL_OP_DISCARD;
	if (op == bpf_core_enum_value(enum req_op, REQ_OP_WRITE_ZEROES))
		return SGL_OP_WRITE_ZEROES;
	return SGL_OP_OTHER;
}

static __always_inline struct sgl_stats *stats_lookup(__u32 slot, __u32 op)
{
	__u32 key = slot * SGL_NR_OPS + op;

	return bpf_map_lookup_elem(&stats, &key);
}

static __always_inline void inflight_add(__u32 slot, __s64 bytes)
{
	struct sgl_inflight *f = bpf_map_lookup_elem(&inflight, &slot);
	__s64 now;

	if (!f)
		return;
	now = __sync_fetch_and_add(&f->now, bytes) + bytes;
	/* racy max: may miss a concurrent peak by one request, never overshoots */
	if (now > f->peak)
		f->peak = now;
}

/* The fragmentation bound slot of a request (sglstat.h), bounds-checked for the verifier. */
static __always_inline void segbound_add(struct sgl_stats *s, __u32 op, __u32 nsegs, __u32 len,
					 int inc)
{
	__u32 slot = sgl_seg_slot(sgl_seg_bound(nsegs, len,
						op == SGL_OP_READ || op == SGL_OP_WRITE));

	barrier_var(slot);
	if (slot < SGL_SEG_SLOTS)
		s->segbound[slot] += inc;
}

static __always_inline void count_setup(struct sgl_stats *s, __u32 op, __u32 nsegs, __u32 len,
					bool chained, __u64 cbytes)
{
	s->c.requests++;
	s->c.segments += nsegs;
	s->c.bytes += len;
	s->seg[sgl_seg_slot(nsegs)]++;
	segbound_add(s, op, nsegs, len, 1);
	if (chained) {
		s->c.chained++;
		s->c.chained_bytes += cbytes;
	}
}

/*
 * Latency of a completing request: now - io_start_time_ns when the block layer
 * set it (queue stats enabled: device time only), else now - start_time_ns
 * (set at allocation when iostats/scheduler need it: includes queueing); with
 * -Q (targ_queued) always from start_time_ns, as biolatency -Q.  Each sample
 * counts its source.
 */
static __always_inline void count_latency(struct sgl_stats *s, bool chained,
					  __u64 start, __u64 io_start)
{
	__u64 t0 = io_start && !targ_queued ? io_start : start;
	__u64 now;

	if (!t0) {
		s->c.lat_untimed++;
		return;
	}
	if (t0 == start)
		s->c.lat_src_start++;
	else
		s->c.lat_src_io_start++;
	now = bpf_ktime_get_ns();
	now = now > t0 ? now - t0 : 0;
	s->lat[chained ? SGL_LAT_CHAINED : SGL_LAT_INLINE][sgl_lat_slot(now)]++;
	s->c.lat_sum_ns[chained ? SGL_LAT_CHAINED : SGL_LAT_INLINE] += now;
}

/* A completion: its count, its error, its latency sample. */
static __always_inline void count_completion(struct sgl_stats *s, bool chained, __u64 error,
					     __u64 start, __u64 io_start)
{
	s->c.completions++;
	if (error)
		s->c.io_errors++;
	count_latency(s, chained, start, io_start);
}

/* ---------------------------------------------------------------- driver */

/*
 * Fields of the request read together: each BPF_CORE_READ is a
 * bpf_probe_read_kernel() call, the largest cost of the driver-mode
 * programs.  cmd_flags and __data_len sit 20 bytes apart (6.1, 6.18), the
 * two timestamps next to each other: one read each where the relocated
 * offsets allow it, the field-by-field reads otherwise.
 */
static __always_inline void rq_flags_len(struct request *rq, __u32 *flags, __u32 *len)
{
	__u32 f = bpf_core_field_offset(struct request, cmd_flags);
	__u32 l = bpf_core_field_offset(struct request, __data_len);
	__u32 span[8] = {};

	if (l > f && l - f <= sizeof(span) - sizeof(__u32) && !((l - f) & 3)) {
		bpf_probe_read_kernel(span, sizeof(span), (char *)rq + f);
		*flags = span[0];
		*len = span[((l - f) / 4) & 7];
		return;
	}
	*flags = BPF_CORE_READ(rq, cmd_flags);
	*len = BPF_CORE_READ(rq, __data_len);
}

static __always_inline void rq_times(struct request *rq, __u64 *start, __u64 *io_start)
{
	__u32 s = bpf_core_field_offset(struct request, start_time_ns);
	__u32 i = bpf_core_field_offset(struct request, io_start_time_ns);
	__u64 t[2] = {};

	if (i == s + sizeof(__u64)) {
		bpf_probe_read_kernel(t, sizeof(t), (char *)rq + s);
		*start = t[0];
		*io_start = t[1];
		return;
	}
	*start = BPF_CORE_READ(rq, start_time_ns);
	*io_start = BPF_CORE_READ(rq, io_start_time_ns);
}


static __always_inline int on_setup(__u32 dev, __u32 nsegs, __u32 inline_cnt, bool chained,
				    __u32 chained_bytes, int err, bool retry, __u64 setup_ns,
				    __u32 flags, __u32 len)
{
	struct sgl_disk_val *d = disk_lookup_dev(dev);
	struct sgl_stats *s;

	if (!d)
		return 0;
	s = stats_lookup(d->slot, op_class(flags));
	if (!s)
		return 0;
	if (err) {
		s->c.map_errors++;
		return 0;
	}
	count_setup(s, op_class(flags), nsegs, len, chained, chained_bytes);
	if (retry)
		s->c.retries++;
	s->setup[sgl_lat_slot(setup_ns)]++;
	s->c.setup_sum_ns += setup_ns;
	if (chained) {
		if (chained_bytes != sgl_chained_bytes(nsegs, inline_cnt))
			s->c.model_mismatch++;
		inflight_add(d->slot, chained_bytes);
	}
	return 0;
}

static __always_inline int on_complete(__u32 dev, bool chained, __u32 chained_bytes,
				       int blk_status, __u32 flags, __u64 start, __u64 io_start)
{
	struct sgl_disk_val *d = disk_lookup_dev(dev);
	struct sgl_stats *s;

	if (!d)
		return 0;
	s = stats_lookup(d->slot, op_class(flags));
	if (!s)
		return 0;
	count_completion(s, chained, blk_status, start, io_start);
	if (chained)
		inflight_add(d->slot, -(__s64)chained_bytes);
	return 0;
}

/*
 * The module hands cmd_flags, the data length and the timestamps over as
 * appended tracepoint arguments (docs/ABI.md): no probe read of the
 * request.  sglstat attaches these and falls back to the *_rq programs
 * below on a module whose tracepoints end before them.
 */
SEC("raw_tp/virtio_blk_sgl_setup")
int BPF_PROG(drv_setup, struct request *rq, u32 dev, u32 hwq, u32 nsegs,
	     u32 inline_cnt, bool chained, u32 chained_bytes, int err, bool retry,
	     u64 setup_ns, u32 cmd_flags, u32 bytes)
{
	return on_setup(dev, nsegs, inline_cnt, chained, chained_bytes, err, retry, setup_ns,
			cmd_flags, bytes);
}

SEC("raw_tp/virtio_blk_sgl_complete")
int BPF_PROG(drv_complete, struct request *rq, u32 dev, u32 hwq, u32 nsegs,
	     bool chained, u32 chained_bytes, u8 vstatus, int blk_status, u32 cmd_flags,
	     u64 start_ns, u64 io_start_ns)
{
	return on_complete(dev, chained, chained_bytes, blk_status, cmd_flags, start_ns,
			   io_start_ns);
}

/*
 * The whole request on its completion, for a tracer without setup events:
 * what drv_setup counts plus the latency, from one tracepoint.  It counts
 * completed requests, so nothing needs undoing on a requeue.
 */
SEC("raw_tp/virtio_blk_sgl_complete")
int BPF_PROG(drv_done, struct request *rq, u32 dev, u32 hwq, u32 nsegs,
	     bool chained, u32 chained_bytes, u8 vstatus, int blk_status, u32 cmd_flags,
	     u64 start_ns, u64 io_start_ns, u64 setup_info)
{
	struct sgl_disk_val *d = disk_lookup_dev(dev);
	__u32 op = op_class(cmd_flags);
	struct sgl_stats *s;

	if (!d)
		return 0;
	s = stats_lookup(d->slot, op);
	if (!s)
		return 0;
	count_setup(s, op, nsegs, (__u32)setup_info, chained, chained_bytes);
	if (setup_info >> SGL_TP_RETRIED_SHIFT)
		s->c.retries++;
	if (chained && chained_bytes != sgl_chained_bytes(nsegs, d->inline_cnt))
		s->c.model_mismatch++;
	count_completion(s, chained, blk_status, start_ns, io_start_ns);
	return 0;
}

/* The same for a module without the appended arguments: read the request. */
SEC("raw_tp/virtio_blk_sgl_setup")
int BPF_PROG(drv_setup_rq, struct request *rq, u32 dev, u32 hwq, u32 nsegs,
	     u32 inline_cnt, bool chained, u32 chained_bytes, int err, bool retry,
	     u64 setup_ns)
{
	__u32 flags, len;

	if (!disk_lookup_dev(dev))
		return 0;
	rq_flags_len(rq, &flags, &len);
	return on_setup(dev, nsegs, inline_cnt, chained, chained_bytes, err, retry, setup_ns,
			flags, len);
}

SEC("raw_tp/virtio_blk_sgl_complete")
int BPF_PROG(drv_complete_rq, struct request *rq, u32 dev, u32 hwq, u32 nsegs,
	     bool chained, u32 chained_bytes, u8 vstatus, int blk_status)
{
	__u64 start, io_start;

	if (!disk_lookup_dev(dev))
		return 0;
	rq_times(rq, &start, &io_start);
	return on_complete(dev, chained, chained_bytes, blk_status, BPF_CORE_READ(rq, cmd_flags),
			   start, io_start);
}

SEC("raw_tp/virtio_blk_sgl_alloc_fail")
int BPF_PROG(drv_alloc_fail, struct request *rq, u32 dev, u32 hwq, u32 nsegs,
	     u32 inline_cnt, int err, bool injected)
{
	struct sgl_disk_val *d = disk_lookup_dev(dev);
	struct sgl_stats *s;

	if (!d)
		return 0;
	s = stats_lookup(d->slot, op_class(BPF_CORE_READ(rq, cmd_flags)));
	if (!s)
		return 0;
	s->c.alloc_failures++;
	if (injected)
		s->c.alloc_injected++;
	/* drv_setup counts failed setups itself; without it, they are these */
	if (!targ_setup_events)
		s->c.map_errors++;
	return 0;
}

/* ----------------------------------------------------------------- stock */

struct rq_info {
	__u32 state;
	__u32 major;
	__u32 first_minor;
	__u32 cmd_flags;
	__u32 rq_flags;
	__u32 nr_phys_segments;
	__u32 data_len;
	__u64 start;
	__u64 io_start;
};

/*
 * Segments virtio_blk maps: blk_rq_nr_phys_segments() is 1 for a special
 * payload (discard / write-zeroes range array), else nr_phys_segments.
 */
static __always_inline __u32 rq_nsegs(const struct rq_info *ri, const struct sgl_disk_val *d,
				      __u32 op)
{
	__u32 bit = RQF_SPECIAL_PAYLOAD_BIT_6_1;

	/* virtio_blk_sgl sends discard / write-zeroes ranges outside the SG table */
	if ((d->flags & SGL_DISK_F_VSGL) && (op == SGL_OP_DISCARD || op == SGL_OP_WRITE_ZEROES))
		return 0;
	if (bpf_core_enum_value_exists(enum rqf_flags, __RQF_SPECIAL_PAYLOAD))
		bit = bpf_core_enum_value(enum rqf_flags, __RQF_SPECIAL_PAYLOAD);
	if (ri->rq_flags & (1u << (bit & 31)))
		return 1;
	return ri->nr_phys_segments;
}

/* tp_btf: rq is a BTF pointer, plain (CO-RE relocated) loads are allowed. */
static __always_inline void rq_info_btf(struct request *rq, struct rq_info *ri, bool times)
{
	struct gendisk *disk = rq->q->disk;

	ri->state = rq->state;
	ri->major = disk->major;
	ri->first_minor = disk->first_minor;
	ri->cmd_flags = rq->cmd_flags;
	ri->rq_flags = rq->rq_flags;
	ri->nr_phys_segments = rq->nr_phys_segments;
	ri->data_len = rq->__data_len;
	if (times) {
		ri->start = rq->start_time_ns;
		ri->io_start = rq->io_start_time_ns;
	}
}

/* raw_tp: read through bpf_probe_read_kernel(). */
static __always_inline void rq_info_core(struct request *rq, struct rq_info *ri, bool times)
{
	struct gendisk *disk = BPF_CORE_READ(rq, q, disk);

	ri->state = BPF_CORE_READ(rq, state);
	ri->major = BPF_CORE_READ(disk, major);
	ri->first_minor = BPF_CORE_READ(disk, first_minor);
	ri->cmd_flags = BPF_CORE_READ(rq, cmd_flags);
	ri->rq_flags = BPF_CORE_READ(rq, rq_flags);
	ri->nr_phys_segments = BPF_CORE_READ(rq, nr_phys_segments);
	ri->data_len = BPF_CORE_READ(rq, __data_len);
	if (times) {
		ri->start = BPF_CORE_READ(rq, start_time_ns);
		ri->io_start = BPF_CORE_READ(rq, io_start_time_ns);
	}
}

enum stock_ev { EV_ISSUE, EV_REQUEUE, EV_COMPLETE };

static __always_inline bool rq_in_flush_seq(const struct rq_info *ri)
{
	__u32 bit = RQF_FLUSH_SEQ_BIT_6_1;

	if (bpf_core_enum_value_exists(enum rqf_flags, __RQF_FLUSH_SEQ))
		bit = bpf_core_enum_value(enum rqf_flags, __RQF_FLUSH_SEQ);
	return ri->rq_flags & (1u << (bit & 31));
}

/*
 * block_rq_complete fires for completions that are no issued request's: the
 * flush machinery ends a write with PREFLUSH/FUA once more after its data
 * part completed (and the post-flush ran), ends a data-less flush whose work
 * its own flush request did, and ends a flush at once on a queue without a
 * write cache.  Those carry no bytes and no RQF_FLUSH_SEQ (restored by then),
 * while an issued request completes with its bytes or inside its sequence
 * (the data part, the flush request).  A data-less request issued outside a
 * sequence is remembered by address at issue, so its own completion counts.
 */
static __always_inline bool stock_completion_counts(struct request *rq, const struct rq_info *ri,
						    __u32 nr_bytes)
{
	__u64 key = (__u64)rq;

	if (nr_bytes || rq_in_flush_seq(ri))
		return true;
	return bpf_map_delete_elem(&empty_issued, &key) == 0;
}

static __always_inline void stock_issue_note(struct request *rq, const struct rq_info *ri)
{
	__u64 key = (__u64)rq;
	__u8 one = 1;

	if (!ri->data_len && !rq_in_flush_seq(ri))
		bpf_map_update_elem(&empty_issued, &key, &one, BPF_ANY);
}

static __always_inline int stock_event(const struct rq_info *ri, enum stock_ev ev, __u64 error)
{
	struct sgl_disk_val *d = disk_lookup(ri->major, ri->first_minor);
	struct sgl_stats *s;
	__u32 nsegs, op;
	__u64 cbytes;
	bool chained, drv;

	if (!d)
		return 0;
	/*
	 * A disk traced by the driver tracepoints (mode auto on a mixed host,
	 * or --mode driver) counts its setups and completions there: here only
	 * requeues after issue are undone, when setups count (with setup
	 * events), so nothing counts twice.
	 */
	drv = targ_driver_mode || (d->flags & SGL_DISK_F_DRIVER);
	if (drv && (ev != EV_REQUEUE || !targ_setup_events))
		return 0;
	op = op_class(ri->cmd_flags);
	s = stats_lookup(d->slot, op);
	if (!s)
		return 0;
	nsegs = rq_nsegs(ri, d, op);
	chained = sgl_is_chained(nsegs, d->inline_cnt);
	cbytes = chained ? sgl_chained_bytes(nsegs, d->inline_cnt) : 0;
	switch (ev) {
	case EV_ISSUE:
		count_setup(s, op, nsegs, ri->data_len, chained, cbytes);
		if (chained)
			inflight_add(d->slot, cbytes);
		break;
	case EV_REQUEUE:
		/*
		 * __blk_mq_requeue_request() fires block_rq_requeue before it
		 * resets the state.  Not started: queue_rq returned a resource
		 * error before blk_mq_start_request(), which for in-tree
		 * virtio_blk read/write means sg_alloc_table_chained() failed;
		 * the request will be retried.  In driver mode the alloc_fail
		 * tracepoint counts those.
		 */
		if (ri->state != bpf_core_enum_value(enum mq_rq_state, MQ_RQ_IN_FLIGHT)) {
			if (!drv)
				s->c.retries++;
			break;
		}
		/*
		 * Started, then requeued (e.g. virtqueue full): it will be set up
		 * and issued again, so undo this attempt; requests then count
		 * each request once, at its last attempt.  Per-CPU values may
		 * wrap below zero on one CPU; the sum over CPUs is exact.
		 */
		s->c.requests--;
		s->c.segments -= nsegs;
		s->c.bytes -= ri->data_len;
		s->seg[sgl_seg_slot(nsegs)]--;
		segbound_add(s, op, nsegs, ri->data_len, -1);
		if (chained) {
			s->c.chained--;
			s->c.chained_bytes -= cbytes;
			inflight_add(d->slot, -(__s64)cbytes);
		}
		s->c.requeues++;
		break;
	case EV_COMPLETE:
		count_completion(s, chained, error, ri->start, ri->io_start);
		if (chained)
			inflight_add(d->slot, -(__s64)cbytes);
		break;
	}
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(stock_issue_btf, struct request *rq)
{
	struct rq_info ri = {};

	rq_info_btf(rq, &ri, false);
	stock_issue_note(rq, &ri);
	return stock_event(&ri, EV_ISSUE, 0);
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(stock_requeue_btf, struct request *rq)
{
	struct rq_info ri = {};

	rq_info_btf(rq, &ri, false);
	return stock_event(&ri, EV_REQUEUE, 0);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(stock_complete_btf, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct rq_info ri = {};

	rq_info_btf(rq, &ri, true);
	if (!stock_completion_counts(rq, &ri, nr_bytes))
		return 0;
	return stock_event(&ri, EV_COMPLETE, error);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(stock_issue_raw, struct request *rq)
{
	struct rq_info ri = {};

	rq_info_core(rq, &ri, false);
	stock_issue_note(rq, &ri);
	return stock_event(&ri, EV_ISSUE, 0);
}

SEC("raw_tp/block_rq_requeue")
int BPF_PROG(stock_requeue_raw, struct request *rq)
{
	struct rq_info ri = {};

	rq_info_core(rq, &ri, false);
	return stock_event(&ri, EV_REQUEUE, 0);
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(stock_complete_raw, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	struct rq_info ri = {};

	rq_info_core(rq, &ri, true);
	if (!stock_completion_counts(rq, &ri, nr_bytes))
		return 0;
	return stock_event(&ri, EV_COMPLETE, error);
}

char LICENSE[] SEC("license") = "GPL";
