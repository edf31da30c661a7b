/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by bpf/sglstat.bpf.c and tools/sglstat (and the tests).
 * Plain fixed-width types only: this header is included both after
 * vmlinux.h (BPF) and after <linux/types.h> (userspace).
 */
#ifndef SGLSTAT_H
#define SGLSTAT_H

/*
 * Disks traced at once (slots): the most the stats map can be sized for.
 * sglstat sizes the maps at load for the disks the host has (plus room for
 * hot-plugged ones, --max-disks) and recycles the slots of departed disks.
 */
#define SGL_MAX_DISKS		64

/*
 * Disk map key: ((major & 0xf) << 6) | ((first_minor >> part_shift) & 0x3f).
 * The value records the full major, so a key collision can only make a disk
 * invisible (userspace detects and reports it when filling the map), never
 * mix two disks' counts.
 */
#define SGL_DISK_KEY_MAJOR_BITS	4
#define SGL_DISK_KEY_INDEX_BITS	6
#define SGL_DISK_KEYS		(1u << (SGL_DISK_KEY_MAJOR_BITS + SGL_DISK_KEY_INDEX_BITS))

static inline unsigned int sgl_disk_key(unsigned int major, unsigned int first_minor,
					unsigned int part_shift)
{
	return ((major & ((1u << SGL_DISK_KEY_MAJOR_BITS) - 1)) << SGL_DISK_KEY_INDEX_BITS) |
	       ((first_minor >> part_shift) & ((1u << SGL_DISK_KEY_INDEX_BITS) - 1));
}

/* Operation classes. */
enum sgl_op {
	SGL_OP_READ = 0,
	SGL_OP_WRITE,
	SGL_OP_FLUSH,
	SGL_OP_DISCARD,
	SGL_OP_WRITE_ZEROES,
	SGL_OP_OTHER,
	SGL_NR_OPS,
};

/*
 * Segment histogram: slots 0..SGL_SEG_LINEAR_MAX hold exact counts; slot
 * SGL_SEG_LINEAR_MAX + 1 + j holds (128 * 2^j, 128 * 2^(j+1)], the last slot
 * also everything above.
 */
#define SGL_SEG_LINEAR_MAX	128
#define SGL_SEG_LOG_SLOTS	10
#define SGL_SEG_SLOTS		(SGL_SEG_LINEAR_MAX + 1 + SGL_SEG_LOG_SLOTS)

/*
 * Latency histograms, in ns, upper-inclusive log2: slot 0 holds [0, 1],
 * slot k (k >= 1) holds (2^(k-1), 2^k]; the last slot also everything above.
 */
#define SGL_LAT_SLOTS		48

enum sgl_lat_kind {
	SGL_LAT_INLINE = 0,
	SGL_LAT_CHAINED,
	SGL_NR_LAT,
};

struct sgl_counters {
	__u64 requests;		/* driver: completed requests (with setup events:
				 * successful setups); stock: block_rq_issue */
	__u64 chained;		/* of those, chained (sg_pool allocation) */
	__u64 chained_bytes;	/* sum of sg_pool bytes (sgl_chained_bytes()) */
	__u64 bytes;		/* sum of data bytes of those requests */
	__u64 segments;		/* sum of segment counts of those requests */
	__u64 alloc_failures;	/* driver: alloc_fail tracepoint; stock: unknown */
	__u64 alloc_injected;	/* of those, injected */
	__u64 map_errors;	/* driver: setup events with err != 0 (without
				 * setup events: alloc_fail events) */
	__u64 retries;		/* driver: successful setups after a failed one;
				 * stock: requeued before issue (see docs/SGLSTAT.md) */
	__u64 completions;	/* completion events */
	__u64 io_errors;	/* completions with a non-OK status */
	__u64 model_mismatch;	/* driver: chained_bytes arg != sgl_chained_bytes() */
	__u64 lat_untimed;	/* completions without a start timestamp */
	__u64 requeues;		/* requeued after issue (e.g. virtqueue full); undone */
	__u64 lat_sum_ns[SGL_NR_LAT];	/* sum of the latencies in lat[] (for _sum, means) */
	__u64 setup_sum_ns;	/* driver mode: sum of setup_ns */
	__u64 lat_src_io_start;	/* latency samples timed from io_start_time_ns */
	__u64 lat_src_start;	/* latency samples timed from start_time_ns */
};

#define SGL_NR_COUNTERS	(sizeof(struct sgl_counters) / sizeof(__u64))

struct sgl_stats {
	struct sgl_counters c;
	__u64 seg[SGL_SEG_SLOTS];
	__u64 lat[SGL_NR_LAT][SGL_LAT_SLOTS];
	__u64 setup[SGL_LAT_SLOTS];	/* driver mode: setup_ns */
	/*
	 * Fragmentation bound per request, same slots as seg[]: for reads and
	 * writes max(segments, ceil(bytes / 4096) + 1) (a buffer of B bytes
	 * spans at most that many pages wherever its pages landed), else the
	 * segment count.  sglstat tune caps it at max_segments.
	 */
	__u64 segbound[SGL_SEG_SLOTS];
};

/* Value of the disk map. */
struct sgl_disk_val {
	__u32 major;		/* expected major; 0 = unused entry */
	__u32 first_minor;	/* expected first minor */
	__u32 slot;		/* index into the per-disk stats, < SGL_MAX_DISKS */
	__u32 inline_cnt;	/* inline SG count used to infer chaining */
	__u32 flags;		/* SGL_DISK_F_* */
};

#define SGL_DISK_F_VSGL		1	/* our driver: discard/write-zeroes map no SG entries */
#define SGL_DISK_F_DRIVER	2	/* traced by the driver tracepoints: block
					 * tracepoints only undo requeues */
#define SGL_PAGE_SIZE		4096	/* x86_64 (the BPF target) */

/* The fragmentation bound of a request (segbound[] above). */
static inline __u32 sgl_seg_bound(__u32 nsegs, __u32 bytes, int rw)
{
	__u32 b;

	if (!rw)
		return nsegs;
	b = (bytes + SGL_PAGE_SIZE - 1) / SGL_PAGE_SIZE + 1;
	return b > nsegs ? b : nsegs;
}

/* Per-disk sg_pool bytes held by in-flight requests, as seen by the tracer. */
struct sgl_inflight {
	__s64 now;
	__s64 peak;
};

/* floor(log2(v)) for v >= 1 (0 for v == 0); no builtins, so BPF can use it. */
static inline unsigned int sgl_ilog2(__u64 v)
{
	unsigned int r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
}

/* Upper-inclusive log2 slot of a latency: 0 for [0, 1], k for (2^(k-1), 2^k]. */
static inline unsigned int sgl_lat_slot(__u64 v)
{
	unsigned int k;

	if (v <= 1)
		return 0;
	k = sgl_ilog2(v - 1) + 1;
	return k < SGL_LAT_SLOTS ? k : SGL_LAT_SLOTS - 1;
}

/* Segment histogram slot of @n segments. */
static inline unsigned int sgl_seg_slot(__u32 n)
{
	unsigned int j;

	if (n <= SGL_SEG_LINEAR_MAX)
		return n;
	j = sgl_ilog2((n - 1) >> 7);
	if (j >= SGL_SEG_LOG_SLOTS)
		j = SGL_SEG_LOG_SLOTS - 1;
	return SGL_SEG_LINEAR_MAX + 1 + j;
}

#endif /* SGLSTAT_H */
