// SPDX-License-Identifier: GPL-2.0
/*
 * BPF_PROG_TEST_RUN tests of sglstat's raw_tp programs with synthetic
 * arguments (needs root).  Prints one PASS/FAIL/SKIP line per case.
 *
 * The driver tracepoints carry what we count as scalars (ctx[1..]), so those
 * are given directly.  What comes from the request (op, data length,
 * timestamps, and in stock mode disk and nr_phys_segments) is read by the
 * programs with bpf_probe_read_kernel(); ctx[0] is therefore the kernel
 * address of a fake struct request kept in fake_rq.bpf.c's .bss (see there).
 * Expected values come from the definitions (literal slot numbers, kernel
 * enum values looked up in vmlinux BTF here, sgl_model.h for bytes), not
 * from the code under test.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "sglstat.h"
#include "sgl_model.h"

struct fake_spec {
	__u32 cmd_flags;
	__u32 rq_flags;
	__u32 nr_phys_segments;
	__u32 data_len;
	__u64 start_time_ns;
	__u64 io_start_time_ns;
	__s32 major;
	__s32 first_minor;
	__u32 state;
};

#include "sglstat.skel.h"
#include "fake_rq.skel.h"

static int failures;
/* test_driver() runs twice: "" for the programs that take cmd_flags, length
 * and times as tracepoint arguments, "rq_" for their twins that read them
 * out of the request (a module without the appended arguments) */
static const char *name_prefix = "";
static bool rq_progs;

static void result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS: %s%s\n", name_prefix, name);
		return;
	}
	failures++;
	printf("FAIL: %s%s: ", name_prefix, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static struct sglstat_bpf *skel;
static struct fake_rq_bpf *fake;
static int ncpus;

/* kernel enum values, from vmlinux BTF */
static __u32 op_read, op_write, op_flush, op_discard, op_wzeroes, op_drv_in;
static __u32 rqf_special, rqf_flush_seq;
static __u32 st_idle, st_in_flight;	/* enum mq_rq_state */
static __u32 next_state;		/* state of the next fake_rq() */

static int btf_enum_val(const struct btf *btf, const char *ename, const char *vname, __u32 *out)
{
	int id = btf__find_by_name_kind(btf, ename, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++, e++) {
		if (!strcmp(btf__name_by_offset(btf, e->name_off), vname)) {
			*out = (__u32)e->val;
			return 0;
		}
	}
	return -ENOENT;
}

#define D0_MAJOR	250
#define D0_MINOR	16	/* index 1 */
#define D0_SLOT		3
#define D0_INLINE	2
#define D1_MAJOR	251
#define D1_MINOR	0
#define D1_SLOT		5
#define D1_INLINE	4

static __u32 mkdev(__u32 major, __u32 minor)
{
	return major << 20 | minor;
}

static int add_disk(__u32 major, __u32 minor, __u32 slot, __u32 inl)
{
	struct sgl_disk_val v = { .major = major, .first_minor = minor, .slot = slot, .inline_cnt = inl };
	__u32 key = sgl_disk_key(major, minor, 4);

	return bpf_map_update_elem(bpf_map__fd(skel->maps.disks), &key, &v, BPF_ANY);
}

/* Sum of the per-CPU stats of (slot, op). */
static void get_stats(__u32 slot, __u32 op, struct sgl_stats *out)
{
	struct sgl_stats *v = calloc(ncpus, sizeof(*v));
	__u32 key = slot * SGL_NR_OPS + op;
	int c;
	size_t w;

	memset(out, 0, sizeof(*out));
	if (!v || bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &key, v)) {
		free(v);
		return;
	}
	for (c = 0; c < ncpus; c++)
		for (w = 0; w < sizeof(*out) / 8; w++)
			((__u64 *)out)[w] += ((__u64 *)&v[c])[w];
	free(v);
}

static void get_all(__u32 slot, struct sgl_stats s[SGL_NR_OPS])
{
	for (__u32 op = 0; op < SGL_NR_OPS; op++)
		get_stats(slot, op, &s[op]);
}

/* Number of 64-bit words that differ between two stats arrays of all ops. */
static int words_changed(const struct sgl_stats *a, const struct sgl_stats *b, int nops)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	size_t w, n = nops * sizeof(struct sgl_stats) / 8;
	int c = 0;

	for (w = 0; w < n; w++)
		c += x[w] != y[w];
	return c;
}

static __u64 sgl_hist_sum_test(const __u64 *h)
{
	__u64 s = 0;

	for (int i = 0; i < SGL_LAT_SLOTS; i++)
		s += h[i];
	return s;
}

static int run(struct bpf_program *prog, const __u64 *args, int nargs)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = args, .ctx_size_in = nargs * sizeof(__u64));
	int err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);

	if (err)
		return -errno;
	return (int)o.retval;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Build the fake request; returns its kernel address (0 on failure). */
static __u64 fake_rq(__u32 cmd_flags, __u32 rq_flags, __u32 nsegs, __u32 len,
		     __u64 start, __u64 io_start, __u32 major, __u32 minor)
{
	struct fake_spec *s = &fake->bss->spec;

	s->cmd_flags = cmd_flags;
	s->rq_flags = rq_flags;
	s->nr_phys_segments = nsegs;
	s->data_len = len;
	s->start_time_ns = start;
	s->io_start_time_ns = io_start;
	s->major = major;
	s->first_minor = minor;
	s->state = next_state;
	fake->bss->rq_addr = 0;
	if (run(fake->progs.fill, NULL, 0))
		return 0;
	return fake->bss->rq_addr;
}

/* the fake request's bytes, what block_rq_complete passes as nr_bytes */
static __u32 fake_len(void)
{
	return fake->bss->spec.data_len;
}

/*
 * The driver programs: what the module passes as the appended arguments
 * (cmd_flags, blk_rq_bytes, the two timestamps) is what the fake request
 * holds, the one fake_rq() built last (all share one buffer).
 */
static int drv_setup(__u64 rq, __u32 dev, __u32 nsegs, __u32 inl, bool chained,
		     __u32 cbytes, int err, bool retry, __u64 setup_ns)
{
	const struct fake_spec *f = &fake->bss->spec;
	__u64 a[12] = { rq, dev, 0, nsegs, inl, chained, cbytes, (__u32)err, retry, setup_ns,
			f->cmd_flags, f->data_len };

	if (rq_progs)
		return run(skel->progs.drv_setup_rq, a, 10);
	return run(skel->progs.drv_setup, a, 12);
}

static int drv_complete(__u64 rq, __u32 dev, __u32 nsegs, bool chained, __u32 cbytes,
			__u8 vstatus, int blk_status)
{
	const struct fake_spec *f = &fake->bss->spec;
	__u64 a[11] = { rq, dev, 0, nsegs, chained, cbytes, vstatus, (__u32)blk_status,
			f->cmd_flags, f->start_time_ns, f->io_start_time_ns };

	if (rq_progs)
		return run(skel->progs.drv_complete_rq, a, 8);
	return run(skel->progs.drv_complete, a, 11);
}

static int drv_alloc_fail(__u64 rq, __u32 dev, __u32 nsegs, bool injected)
{
	__u64 a[7] = { rq, dev, 0, nsegs, D0_INLINE, (__u32)-ENOMEM, injected };

	return run(skel->progs.drv_alloc_fail, a, 7);
}

/* instance flavours: the rodata a test instance loads with */
enum { INST_DRIVER_MODE = 1, INST_SETUP_EVENTS = 2, INST_QUEUED = 4 };

/*
 * Open and load an instance of the programs with the given rodata; tp_btf
 * programs cannot be test-run (tracing type), and the raw_tp twins share
 * their code.  NULL after a FAIL line named @name_load.
 */
static struct sglstat_bpf *load_instance(const char *name_load, unsigned int flags)
{
	struct sglstat_bpf *o = sglstat_bpf__open();
	int err;

	if (!o) {
		result(false, name_load, "open: %s", strerror(errno));
		return NULL;
	}
	o->rodata->targ_driver_mode = flags & INST_DRIVER_MODE;
	o->rodata->targ_setup_events = flags & INST_SETUP_EVENTS;
	o->rodata->targ_queued = flags & INST_QUEUED;
	bpf_program__set_autoload(o->progs.stock_issue_btf, false);
	bpf_program__set_autoload(o->progs.stock_requeue_btf, false);
	bpf_program__set_autoload(o->progs.stock_complete_btf, false);
	err = sglstat_bpf__load(o);
	result(!err, name_load, "load: %s", strerror(-err));
	if (err) {
		sglstat_bpf__destroy(o);
		return NULL;
	}
	return o;
}

static void test_segment_slots(__u64 rq_read)
{
	/* nsegs -> expected slot, from the definition in sglstat.h */
	static const struct { __u32 n, slot; } c[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 128, 128 },
		{ 129, 129 }, { 256, 129 }, { 257, 130 }, { 512, 130 }, { 513, 131 },
	};
	__u32 dev = mkdev(D0_MAJOR, D0_MINOR);
	char name[64];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct sgl_stats b, a;
		bool ch = sgl_is_chained(c[i].n, D0_INLINE);
		__u32 cb = (__u32)sgl_chained_bytes(c[i].n, D0_INLINE);
		int rc;

		get_stats(D0_SLOT, SGL_OP_READ, &b);
		rc = drv_setup(rq_read, dev, c[i].n, D0_INLINE, ch, cb, 0, false, 100);
		get_stats(D0_SLOT, SGL_OP_READ, &a);
		snprintf(name, sizeof(name), "drv_setup_seg_slot_%u", c[i].n);
		result(rc == 0 && a.seg[c[i].slot] == b.seg[c[i].slot] + 1 &&
		       a.c.requests == b.c.requests + 1 &&
		       a.c.segments == b.c.segments + c[i].n &&
		       a.c.chained == b.c.chained + ch &&
		       a.c.chained_bytes == b.c.chained_bytes + cb &&
		       a.c.model_mismatch == b.c.model_mismatch &&
		       a.c.setup_sum_ns == b.c.setup_sum_ns + 100,
		       name, "rc %d slot %u: %llu -> %llu, requests %llu -> %llu, chained %llu -> %llu, mismatch %llu",
		       rc, c[i].slot, (unsigned long long)b.seg[c[i].slot], (unsigned long long)a.seg[c[i].slot],
		       (unsigned long long)b.c.requests, (unsigned long long)a.c.requests,
		       (unsigned long long)b.c.chained, (unsigned long long)a.c.chained,
		       (unsigned long long)a.c.model_mismatch);
		/* exactly: one seg slot, requests, segments (unless 0), chained+bytes (if chained), setup slot */
		{
			/* seg slot, fragmentation bound slot, requests, bytes, setup
			 * slot, setup sum, segments if n, chained+bytes if chained */
			int expect = 6 + (c[i].n ? 1 : 0) + (ch ? 2 : 0);
			int got = words_changed(&a, &b, 1);

			snprintf(name, sizeof(name), "drv_setup_seg_only_%u", c[i].n);
			result(got == expect, name, "%d words changed, expected %d", got, expect);
		}
	}
}

static void test_driver(void)
{
	__u32 dev = mkdev(D0_MAJOR, D0_MINOR);
	struct sgl_stats b[SGL_NR_OPS], a[SGL_NR_OPS];
	__u64 rq;
	int rc;

	rq = fake_rq(op_read, 0, 0, 4096, 0, 0, 0, 0);
	result(rq != 0, "fake_rq_address", "fill program did not publish an address");
	if (!rq)
		return;

	/* raw_tp test_run itself */
	rc = drv_setup(rq, dev, 1, D0_INLINE, false, 0, 0, false, 50);
	result(rc == 0, "raw_tp_test_run_supported", "bpf_prog_test_run_opts: %s", strerror(-rc));
	if (rc)
		return;

	test_segment_slots(rq);

	/* data bytes come from rq->__data_len through CO-RE */
	get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
	rq = fake_rq(op_read, 0, 0, 65536, 0, 0, 0, 0);
	drv_setup(rq, dev, 16, D0_INLINE, true, (__u32)sgl_chained_bytes(16, D0_INLINE), 0, false, 1);
	get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
	result(a[0].c.bytes == b[0].c.bytes + 65536, "drv_setup_bytes_from_rq",
	       "bytes +%llu, expected +65536", (unsigned long long)(a[0].c.bytes - b[0].c.bytes));

	/* wrong chained_bytes from the driver is flagged */
	get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
	drv_setup(rq, dev, 16, D0_INLINE, true, 12345, 0, false, 1);
	get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
	result(a[0].c.model_mismatch == b[0].c.model_mismatch + 1 &&
	       a[0].c.chained_bytes == b[0].c.chained_bytes + 12345,
	       "drv_setup_model_mismatch", "mismatch +%llu",
	       (unsigned long long)(a[0].c.model_mismatch - b[0].c.model_mismatch));

	/* mapping error: counted as map error only */
	get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
	drv_setup(rq, dev, 16, D0_INLINE, false, 0, -ENOMEM, false, 1);
	get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
	result(a[0].c.map_errors == b[0].c.map_errors + 1 && a[0].c.requests == b[0].c.requests &&
	       words_changed(&a[0], &b[0], 1) == 1,
	       "drv_setup_error_not_a_request", "map_errors +%llu requests +%llu",
	       (unsigned long long)(a[0].c.map_errors - b[0].c.map_errors),
	       (unsigned long long)(a[0].c.requests - b[0].c.requests));

	/* retry flag */
	get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
	drv_setup(rq, dev, 16, D0_INLINE, true, (__u32)sgl_chained_bytes(16, D0_INLINE), 0, true, 1);
	get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
	result(a[0].c.retries == b[0].c.retries + 1 && a[0].c.requests == b[0].c.requests + 1,
	       "drv_setup_retry", "retries +%llu", (unsigned long long)(a[0].c.retries - b[0].c.retries));

	/* alloc failures, injected or not */
	get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
	drv_alloc_fail(rq, dev, 16, true);
	drv_alloc_fail(rq, dev, 16, false);
	drv_alloc_fail(rq, dev, 16, true);
	get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
	result(a[0].c.alloc_failures == b[0].c.alloc_failures + 3 &&
	       a[0].c.alloc_injected == b[0].c.alloc_injected + 2 && words_changed(&a[0], &b[0], 1) == 2,
	       "drv_alloc_fail_counts", "failures +%llu injected +%llu",
	       (unsigned long long)(a[0].c.alloc_failures - b[0].c.alloc_failures),
	       (unsigned long long)(a[0].c.alloc_injected - b[0].c.alloc_injected));

	/* setup_ns slots: upper-inclusive */
	{
		static const struct { __u64 v; __u32 slot; } c[] = {
			{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 5, 3 },
			{ 1024, 10 }, { 1025, 11 }, { 1ULL << 40, 40 }, { ~0ULL, SGL_LAT_SLOTS - 1 },
		};
		char name[64];

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
			drv_setup(rq, dev, 1, D0_INLINE, false, 0, 0, false, c[i].v);
			get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
			snprintf(name, sizeof(name), "drv_setup_ns_slot_%llu", (unsigned long long)c[i].v);
			result(a[0].setup[c[i].slot] == b[0].setup[c[i].slot] + 1, name,
			       "slot %u not incremented", c[i].slot);
		}
	}

	/* per-op split through rq->cmd_flags (with flag bits above the op) */
	{
		static const char *names[] = { "read", "write", "flush", "discard", "write_zeroes", "other" };
		__u32 ops[SGL_NR_OPS] = { op_read, op_write, op_flush, op_discard, op_wzeroes, op_drv_in };
		char name[64];

		for (__u32 op = 0; op < SGL_NR_OPS; op++) {
			int changed_other = 0;

			get_all(D0_SLOT, b);
			rq = fake_rq(ops[op] | (1u << 11) /* REQ_SYNC-ish flag bit */, 0, 0, 512, 0, 0, 0, 0);
			drv_setup(rq, dev, 1, D0_INLINE, false, 0, 0, false, 1);
			drv_complete(rq, dev, 1, false, 0, 0, 0);
			get_all(D0_SLOT, a);
			for (__u32 o = 0; o < SGL_NR_OPS; o++)
				if (o != op)
					changed_other += words_changed(&a[o], &b[o], 1);
			snprintf(name, sizeof(name), "drv_op_split_%s", names[op]);
			result(a[op].c.requests == b[op].c.requests + 1 &&
			       a[op].c.completions == b[op].c.completions + 1 && !changed_other,
			       name, "requests +%llu completions +%llu, other ops changed %d words",
			       (unsigned long long)(a[op].c.requests - b[op].c.requests),
			       (unsigned long long)(a[op].c.completions - b[op].c.completions), changed_other);
		}
	}

	/* completion: io errors and latency split inline/chained */
	{
		__u64 now = mono_ns();
		/* io_start preferred: start 100 ms ago, io_start 3 ms ago -> (2^21, 2^22] */
		rq = fake_rq(op_write, 0, 0, 4096, now - 100000000ULL, now - 3000000ULL, 0, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &b[0]);
		drv_complete(rq, dev, 40, true, 0, 1, 10 /* BLK_STS_IOERR */);
		drv_complete(rq, dev, 1, false, 0, 0, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &a[0]);
		result(a[0].c.completions == b[0].c.completions + 2 &&
		       a[0].c.io_errors == b[0].c.io_errors + 1, "drv_complete_io_errors",
		       "completions +%llu io_errors +%llu",
		       (unsigned long long)(a[0].c.completions - b[0].c.completions),
		       (unsigned long long)(a[0].c.io_errors - b[0].c.io_errors));
		result(a[0].lat[SGL_LAT_CHAINED][22] == b[0].lat[SGL_LAT_CHAINED][22] + 1 &&
		       a[0].lat[SGL_LAT_INLINE][22] == b[0].lat[SGL_LAT_INLINE][22] + 1,
		       "drv_complete_latency_io_start_split", "slot 22 chained +%llu inline +%llu",
		       (unsigned long long)(a[0].lat[SGL_LAT_CHAINED][22] - b[0].lat[SGL_LAT_CHAINED][22]),
		       (unsigned long long)(a[0].lat[SGL_LAT_INLINE][22] - b[0].lat[SGL_LAT_INLINE][22]));

		/* no io_start: start_time_ns used (3 ms ago) */
		now = mono_ns();
		rq = fake_rq(op_write, 0, 0, 4096, now - 3000000ULL, 0, 0, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &b[0]);
		drv_complete(rq, dev, 1, false, 0, 0, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &a[0]);
		result(a[0].lat[SGL_LAT_INLINE][22] == b[0].lat[SGL_LAT_INLINE][22] + 1,
		       "drv_complete_latency_start_fallback", "slot 22 not incremented");
		{
			/* the sum grows by the latency: at least 3 ms, at most the
			 * time since the fake start */
			__u64 d = a[0].c.lat_sum_ns[SGL_LAT_INLINE] - b[0].c.lat_sum_ns[SGL_LAT_INLINE];
			__u64 hi = mono_ns() - (now - 3000000ULL);

			result(d >= 3000000ULL && d <= hi &&
			       a[0].c.lat_sum_ns[SGL_LAT_CHAINED] == b[0].c.lat_sum_ns[SGL_LAT_CHAINED],
			       "drv_complete_latency_sum", "sum +%llu ns, expected 3000000..%llu in inline only",
			       (unsigned long long)d, (unsigned long long)hi);
		}

		/* neither timestamp: untimed */
		rq = fake_rq(op_write, 0, 0, 4096, 0, 0, 0, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &b[0]);
		drv_complete(rq, dev, 1, false, 0, 0, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &a[0]);
		result(a[0].c.lat_untimed == b[0].c.lat_untimed + 1 &&
		       sgl_hist_sum_test(a[0].lat[0]) == sgl_hist_sum_test(b[0].lat[0]),
		       "drv_complete_untimed", "untimed +%llu",
		       (unsigned long long)(a[0].c.lat_untimed - b[0].c.lat_untimed));
	}

	/* unknown disks are ignored: other minor, and same map key with another major */
	{
		struct sgl_stats all_b[SGL_MAX_DISKS][SGL_NR_OPS], all_a[SGL_MAX_DISKS][SGL_NR_OPS];
		int changed = 0;

		for (int s = 0; s < SGL_MAX_DISKS; s++)
			get_all(s, all_b[s]);
		rq = fake_rq(op_read, 0, 0, 512, 0, 0, 0, 0);
		drv_setup(rq, mkdev(D0_MAJOR, D0_MINOR + 16), 1, 2, false, 0, 0, false, 1);
		drv_setup(rq, mkdev(D0_MAJOR + 16, D0_MINOR), 1, 2, false, 0, 0, false, 1);
		drv_setup(rq, mkdev(D0_MAJOR, D0_MINOR + 1), 1, 2, false, 0, 0, false, 1); /* partition */
		drv_complete(rq, mkdev(D0_MAJOR + 16, D0_MINOR), 1, false, 0, 0, 0);
		drv_alloc_fail(rq, mkdev(D0_MAJOR + 16, D0_MINOR), 4, true);
		for (int s = 0; s < SGL_MAX_DISKS; s++) {
			get_all(s, all_a[s]);
			changed += words_changed(all_a[s], all_b[s], SGL_NR_OPS);
		}
		result(changed == 0, "drv_unknown_disk_ignored", "%d words changed", changed);
	}

	/*
	 * A bogus request pointer: read from, it does not fault (op falls back
	 * to read, no bytes); the programs that take the arguments never read
	 * it (the last fake request is a read: its bytes count)
	 */
	rq = fake_rq(op_read, 0, 1, 4096, 0, 0, D0_MAJOR, D0_MINOR);
	get_stats(D0_SLOT, SGL_OP_READ, &b[0]);
	rc = drv_setup(0x1000, dev, 1, D0_INLINE, false, 0, 0, false, 1);
	get_stats(D0_SLOT, SGL_OP_READ, &a[0]);
	result(rc == 0 && a[0].c.requests == b[0].c.requests + 1 &&
	       a[0].c.bytes == b[0].c.bytes + (rq_progs ? 0 : 4096),
	       rq_progs ? "drv_bogus_rq_pointer" : "drv_rq_pointer_not_read", "rc %d requests +%llu bytes +%llu", rc,
	       (unsigned long long)(a[0].c.requests - b[0].c.requests),
	       (unsigned long long)(a[0].c.bytes - b[0].c.bytes));

	/* in-flight chained bytes follow setup/complete */
	{
		struct sgl_inflight f0 = {}, f1 = {}, f2 = {};
		__u32 slot = D0_SLOT;
		int fd = bpf_map__fd(skel->maps.inflight);
		__u32 cb = (__u32)sgl_chained_bytes(300, D0_INLINE);

		bpf_map_lookup_elem(fd, &slot, &f0);
		drv_setup(rq, dev, 300, D0_INLINE, true, cb, 0, false, 1);
		bpf_map_lookup_elem(fd, &slot, &f1);
		drv_complete(rq, dev, 300, true, cb, 0, 0);
		bpf_map_lookup_elem(fd, &slot, &f2);
		result(f1.now == f0.now + cb && f2.now == f0.now && f1.peak >= f1.now,
		       "drv_inflight_chained_bytes", "now %lld -> %lld -> %lld (cb %u) peak %lld",
		       (long long)f0.now, (long long)f1.now, (long long)f2.now, cb, (long long)f1.peak);
	}
}

static int stock_bytes(struct bpf_program *p, __u64 rq, __u64 error, __u32 nr_bytes)
{
	__u64 a[3] = { rq, error, nr_bytes };

	return run(p, a, p == skel->progs.stock_complete_raw ? 3 : 1);
}

/* as the block layer fires them: a completion carries the request's bytes */
static int stock(struct bpf_program *p, __u64 rq, __u64 error)
{
	return stock_bytes(p, rq, error, fake_len());
}

/*
 * Flush sequences (write-back cache, no FUA): the block layer fires
 * block_rq_complete for the data part, for its own flush request, and again
 * for the original request when the sequence ends (no bytes, RQF_FLUSH_SEQ
 * cleared); a flush on a queue without write cache ends unissued.  Each
 * issued request must complete exactly once.
 */
static void test_stock_flush(void)
{
	int efd = bpf_map__fd(skel->maps.empty_issued);
	int ifd = bpf_map__fd(skel->maps.inflight);
	struct sgl_inflight f0 = {}, f1 = {};
	struct sgl_stats b, a;
	__u32 slot = D0_SLOT;
	__u64 rq;

	next_state = st_in_flight;
	/* the fake request has one address: forget what earlier tests left */
	rq = fake_rq(op_write, 0, 0, 0, 0, 0, D0_MAJOR, D0_MINOR);
	bpf_map_delete_elem(efd, &rq);

	/* a chained write with PREFLUSH: data part, then the end of the sequence */
	get_stats(D0_SLOT, SGL_OP_WRITE, &b);
	bpf_map_lookup_elem(ifd, &slot, &f0);
	rq = fake_rq(op_write, rqf_flush_seq, 3, 3 * 4096, 1, 0, D0_MAJOR, D0_MINOR);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	rq = fake_rq(op_write, 0, 3, 0, 1, 0, D0_MAJOR, D0_MINOR);
	stock_bytes(skel->progs.stock_complete_raw, rq, 0, 0);
	get_stats(D0_SLOT, SGL_OP_WRITE, &a);
	bpf_map_lookup_elem(ifd, &slot, &f1);
	result(a.c.requests == b.c.requests + 1 && a.c.completions == b.c.completions + 1 &&
	       f1.now == f0.now,
	       "stock_flush_seq_write_completes_once", "requests +%llu completions +%llu inflight %lld -> %lld",
	       (unsigned long long)(a.c.requests - b.c.requests),
	       (unsigned long long)(a.c.completions - b.c.completions), (long long)f0.now, (long long)f1.now);

	/* an empty flush: its flush request runs, then the original ends unissued */
	get_stats(D0_SLOT, SGL_OP_FLUSH, &b);
	rq = fake_rq(op_flush, rqf_flush_seq, 0, 0, 1, 0, D0_MAJOR, D0_MINOR);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	rq = fake_rq(op_flush, 0, 0, 0, 1, 0, D0_MAJOR, D0_MINOR);
	stock(skel->progs.stock_complete_raw, rq, 0);
	/* and one ended at once on a queue without write cache */
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(D0_SLOT, SGL_OP_FLUSH, &a);
	result(a.c.requests == b.c.requests + 1 && a.c.completions == b.c.completions + 1,
	       "stock_flush_unissued_ends_ignored", "requests +%llu completions +%llu",
	       (unsigned long long)(a.c.requests - b.c.requests),
	       (unsigned long long)(a.c.completions - b.c.completions));

	/* a data-less request issued outside a sequence completes once */
	get_stats(D0_SLOT, SGL_OP_OTHER, &b);
	rq = fake_rq(op_drv_in, 0, 0, 0, 1, 0, D0_MAJOR, D0_MINOR);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(D0_SLOT, SGL_OP_OTHER, &a);
	result(a.c.requests == b.c.requests + 1 && a.c.completions == b.c.completions + 1,
	       "stock_dataless_issued_completes_once", "requests +%llu completions +%llu",
	       (unsigned long long)(a.c.requests - b.c.requests),
	       (unsigned long long)(a.c.completions - b.c.completions));
	next_state = st_idle;
}

static void test_stock(void)
{
	struct sgl_stats b, a;
	char name[64];
	__u64 rq;

	/* chain inference against the per-disk inline count (2 and 4) */
	static const struct { __u32 n, slot; } c[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 5, 5 }, { 128, 128 },
		{ 129, 129 }, { 256, 129 }, { 257, 130 },
	};
	static const struct { __u32 major, minor, slot, inl; } disks[] = {
		{ D0_MAJOR, D0_MINOR, D0_SLOT, D0_INLINE }, { D1_MAJOR, D1_MINOR, D1_SLOT, D1_INLINE },
	};

	for (size_t d = 0; d < 2; d++) {
		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			/* literal expectation: chained iff n > inline (inline >= 2 here), n != 0 */
			bool ch = c[i].n > disks[d].inl;
			__u64 cb = sgl_chained_bytes(c[i].n, disks[d].inl);

			rq = fake_rq(op_read, 0, c[i].n, c[i].n * 4096, 0, 0, disks[d].major, disks[d].minor);
			get_stats(disks[d].slot, SGL_OP_READ, &b);
			stock(skel->progs.stock_issue_raw, rq, 0);
			get_stats(disks[d].slot, SGL_OP_READ, &a);
			snprintf(name, sizeof(name), "stock_issue_inline%u_nsegs_%u", disks[d].inl, c[i].n);
			result(a.seg[c[i].slot] == b.seg[c[i].slot] + 1 && a.c.requests == b.c.requests + 1 &&
			       a.c.chained == b.c.chained + ch && a.c.chained_bytes == b.c.chained_bytes + cb &&
			       a.c.bytes == b.c.bytes + c[i].n * 4096ULL,
			       name, "slot %u +%llu, chained +%llu (want %d), chained_bytes +%llu (want %llu)",
			       c[i].slot, (unsigned long long)(a.seg[c[i].slot] - b.seg[c[i].slot]),
			       (unsigned long long)(a.c.chained - b.c.chained), ch,
			       (unsigned long long)(a.c.chained_bytes - b.c.chained_bytes),
			       (unsigned long long)cb);
		}
	}

	/* a virtio_blk_sgl disk in stock mode: discard maps no SG entries */
	{
		struct sgl_disk_val v = { .major = 249, .first_minor = 32, .slot = 7, .inline_cnt = 2,
					  .flags = SGL_DISK_F_VSGL };
		__u32 key = sgl_disk_key(249, 32, 4);

		bpf_map_update_elem(bpf_map__fd(skel->maps.disks), &key, &v, BPF_ANY);
		rq = fake_rq(op_discard, rqf_special, 7, 1 << 20, 0, 0, 249, 32);
		get_stats(7, SGL_OP_DISCARD, &b);
		stock(skel->progs.stock_issue_raw, rq, 0);
		get_stats(7, SGL_OP_DISCARD, &a);
		result(a.seg[0] == b.seg[0] + 1 && a.c.requests == b.c.requests + 1,
		       "stock_vsgl_discard_zero_segments", "seg0 +%llu",
		       (unsigned long long)(a.seg[0] - b.seg[0]));
		rq = fake_rq(op_read, 0, 7, 7 * 4096, 0, 0, 249, 32);
		get_stats(7, SGL_OP_READ, &b);
		stock(skel->progs.stock_issue_raw, rq, 0);
		get_stats(7, SGL_OP_READ, &a);
		result(a.seg[7] == b.seg[7] + 1 && a.c.chained == b.c.chained + 1,
		       "stock_vsgl_read_segments", "seg7 +%llu", (unsigned long long)(a.seg[7] - b.seg[7]));
	}

	/* special payload (discard range array) maps as one segment */
	rq = fake_rq(op_discard, rqf_special, 7, 1 << 20, 0, 0, D0_MAJOR, D0_MINOR);
	get_stats(D0_SLOT, SGL_OP_DISCARD, &b);
	stock(skel->progs.stock_issue_raw, rq, 0);
	get_stats(D0_SLOT, SGL_OP_DISCARD, &a);
	result(a.seg[1] == b.seg[1] + 1 && a.c.chained == b.c.chained, "stock_special_payload_one_segment",
	       "slot1 +%llu chained +%llu", (unsigned long long)(a.seg[1] - b.seg[1]),
	       (unsigned long long)(a.c.chained - b.c.chained));

	/* requeue counts as retry, complete with error, latency split by inference */
	{
		__u64 now = mono_ns();

		struct sgl_inflight f0 = {}, f1 = {};
		__u32 slot = D0_SLOT;
		int ifd = bpf_map__fd(skel->maps.inflight);

		/* requeued before issue (state idle): an SG allocation failure -> retry */
		next_state = st_idle;
		rq = fake_rq(op_write, 0, 3, 3 * 4096, now - 3000000ULL, 0, D0_MAJOR, D0_MINOR);
		get_stats(D0_SLOT, SGL_OP_WRITE, &b);
		bpf_map_lookup_elem(ifd, &slot, &f0);
		stock(skel->progs.stock_requeue_raw, rq, 0);
		get_stats(D0_SLOT, SGL_OP_WRITE, &a);
		result(a.c.retries == b.c.retries + 1 && words_changed(&a, &b, 1) == 1,
		       "stock_requeue_unissued_is_retry", "retries +%llu, %d words changed",
		       (unsigned long long)(a.c.retries - b.c.retries), words_changed(&a, &b, 1));
		/* issue, requeue after issue (state in flight: undone), issue again, complete */
		get_stats(D0_SLOT, SGL_OP_WRITE, &b);
		stock(skel->progs.stock_issue_raw, rq, 0);
		next_state = st_in_flight;
		rq = fake_rq(op_write, 0, 3, 3 * 4096, now - 3000000ULL, 0, D0_MAJOR, D0_MINOR);
		stock(skel->progs.stock_requeue_raw, rq, 0);
		next_state = st_idle;
		rq = fake_rq(op_write, 0, 3, 3 * 4096, now - 3000000ULL, 0, D0_MAJOR, D0_MINOR);
		stock(skel->progs.stock_issue_raw, rq, 0);
		stock(skel->progs.stock_complete_raw, rq, 10);
		bpf_map_lookup_elem(ifd, &slot, &f1);
		get_stats(D0_SLOT, SGL_OP_WRITE, &a);
		result(a.c.requeues == b.c.requeues + 1 && a.c.retries == b.c.retries, "stock_requeue_after_issue",
		       "requeues +%llu retries +%llu", (unsigned long long)(a.c.requeues - b.c.requeues),
		       (unsigned long long)(a.c.retries - b.c.retries));
		result(a.c.requests == b.c.requests + 1 && a.seg[3] == b.seg[3] + 1 &&
		       a.c.bytes == b.c.bytes + 3 * 4096 && a.c.segments == b.c.segments + 3 &&
		       a.c.chained == b.c.chained + 1 &&
		       a.c.chained_bytes == b.c.chained_bytes + sgl_chained_bytes(3, D0_INLINE) &&
		       f1.now == f0.now,
		       "stock_requeue_counted_once", "requests +%llu seg[3] +%llu bytes +%llu chained +%llu inflight %lld -> %lld",
		       (unsigned long long)(a.c.requests - b.c.requests),
		       (unsigned long long)(a.seg[3] - b.seg[3]),
		       (unsigned long long)(a.c.bytes - b.c.bytes),
		       (unsigned long long)(a.c.chained - b.c.chained), (long long)f0.now, (long long)f1.now);
		result(a.c.completions == b.c.completions + 1 && a.c.io_errors == b.c.io_errors + 1,
		       "stock_complete_error", "completions +%llu io_errors +%llu",
		       (unsigned long long)(a.c.completions - b.c.completions),
		       (unsigned long long)(a.c.io_errors - b.c.io_errors));
		result(a.lat[SGL_LAT_CHAINED][22] == b.lat[SGL_LAT_CHAINED][22] + 1,
		       "stock_complete_latency_chained", "chained slot 22 not incremented");
	}

	/* per-op split in stock mode */
	{
		__u32 ops[SGL_NR_OPS] = { op_read, op_write, op_flush, op_discard, op_wzeroes, op_drv_in };
		static const char *names[] = { "read", "write", "flush", "discard", "write_zeroes", "other" };
		struct sgl_stats ba[SGL_NR_OPS], aa[SGL_NR_OPS];

		for (__u32 op = 0; op < SGL_NR_OPS; op++) {
			int other = 0;

			get_all(D1_SLOT, ba);
			rq = fake_rq(ops[op], 0, 1, 4096, 0, 0, D1_MAJOR, D1_MINOR);
			stock(skel->progs.stock_issue_raw, rq, 0);
			get_all(D1_SLOT, aa);
			for (__u32 o = 0; o < SGL_NR_OPS; o++)
				if (o != op)
					other += words_changed(&aa[o], &ba[o], 1);
			snprintf(name, sizeof(name), "stock_op_split_%s", names[op]);
			result(aa[op].c.requests == ba[op].c.requests + 1 && !other, name,
			       "requests +%llu, other ops changed %d words",
			       (unsigned long long)(aa[op].c.requests - ba[op].c.requests), other);
		}
	}

	/* disks not in the map (e.g. a loop device) are ignored */
	{
		struct sgl_stats all_b[SGL_MAX_DISKS][SGL_NR_OPS], all_a[SGL_MAX_DISKS][SGL_NR_OPS];
		int changed = 0;

		for (int s = 0; s < SGL_MAX_DISKS; s++)
			get_all(s, all_b[s]);
		rq = fake_rq(op_read, 0, 1, 4096, 0, 0, 7, 0);
		stock(skel->progs.stock_issue_raw, rq, 0);
		stock(skel->progs.stock_complete_raw, rq, 0);
		rq = fake_rq(op_read, 0, 1, 4096, 0, 0, D0_MAJOR + 16, D0_MINOR);
		stock(skel->progs.stock_issue_raw, rq, 0);
		stock(skel->progs.stock_issue_raw, 0x1000, 0);	/* bogus: disk reads as 0:0 */
		for (int s = 0; s < SGL_MAX_DISKS; s++) {
			get_all(s, all_a[s]);
			changed += words_changed(all_a[s], all_b[s], SGL_NR_OPS);
		}
		result(changed == 0, "stock_other_disks_ignored", "%d words changed", changed);
	}
}

/* A second instance with targ_driver_mode: block_rq_requeue next to the driver tracepoints. */
static void test_driver_mode_requeue(void)
{
	struct sglstat_bpf *stock_skel = skel, *drv;
	struct sgl_stats b, a;
	__u32 dev = mkdev(D1_MAJOR, D1_MINOR);
	__u32 cb = (__u32)sgl_chained_bytes(8, D1_INLINE);
	__u64 rq;

	drv = load_instance("drvmode_load", INST_DRIVER_MODE | INST_SETUP_EVENTS);
	if (!drv)
		return;
	skel = drv;
	{
		struct sgl_disk_val v = { .major = D1_MAJOR, .first_minor = D1_MINOR, .slot = D1_SLOT,
					  .inline_cnt = D1_INLINE, .flags = SGL_DISK_F_VSGL };
		__u32 key = sgl_disk_key(D1_MAJOR, D1_MINOR, 4);

		bpf_map_update_elem(bpf_map__fd(skel->maps.disks), &key, &v, BPF_ANY);
	}
	/* setup, virtqueue full -> requeue (in flight), setup again: one request */
	next_state = st_in_flight;
	rq = fake_rq(op_read, 0, 8, 8 * 4096, 0, 0, D1_MAJOR, D1_MINOR);
	get_stats(D1_SLOT, SGL_OP_READ, &b);
	drv_setup(rq, dev, 8, D1_INLINE, true, cb, 0, false, 100);
	stock(skel->progs.stock_requeue_raw, rq, 0);
	drv_setup(rq, dev, 8, D1_INLINE, true, cb, 0, false, 100);
	get_stats(D1_SLOT, SGL_OP_READ, &a);
	result(a.c.requests == b.c.requests + 1 && a.c.chained == b.c.chained + 1 &&
	       a.c.chained_bytes == b.c.chained_bytes + cb && a.seg[8] == b.seg[8] + 1 &&
	       a.c.requeues == b.c.requeues + 1,
	       "drvmode_requeue_after_setup_undone", "requests +%llu chained +%llu requeues +%llu",
	       (unsigned long long)(a.c.requests - b.c.requests),
	       (unsigned long long)(a.c.chained - b.c.chained),
	       (unsigned long long)(a.c.requeues - b.c.requeues));
	/* alloc failure -> requeue before issue: counted by alloc_fail, not as retry here */
	next_state = st_idle;
	rq = fake_rq(op_read, 0, 8, 8 * 4096, 0, 0, D1_MAJOR, D1_MINOR);
	get_stats(D1_SLOT, SGL_OP_READ, &b);
	drv_alloc_fail(rq, dev, 8, true);
	stock(skel->progs.stock_requeue_raw, rq, 0);
	drv_setup(rq, dev, 8, D1_INLINE, true, cb, 0, true, 100);
	get_stats(D1_SLOT, SGL_OP_READ, &a);
	result(a.c.retries == b.c.retries + 1 && a.c.alloc_failures == b.c.alloc_failures + 1 &&
	       a.c.requests == b.c.requests + 1 && a.c.requeues == b.c.requeues,
	       "drvmode_requeue_unissued_ignored", "retries +%llu failures +%llu requests +%llu",
	       (unsigned long long)(a.c.retries - b.c.retries),
	       (unsigned long long)(a.c.alloc_failures - b.c.alloc_failures),
	       (unsigned long long)(a.c.requests - b.c.requests));
	/* vsgl discard: no SG entries, so a requeue undoes slot 0 */
	next_state = st_in_flight;
	rq = fake_rq(op_discard, rqf_special, 3, 1 << 20, 0, 0, D1_MAJOR, D1_MINOR);
	get_stats(D1_SLOT, SGL_OP_DISCARD, &b);
	drv_setup(rq, dev, 0, D1_INLINE, false, 0, 0, false, 100);
	stock(skel->progs.stock_requeue_raw, rq, 0);
	get_stats(D1_SLOT, SGL_OP_DISCARD, &a);
	result(a.c.requests == b.c.requests && a.seg[0] == b.seg[0] && a.c.bytes == b.c.bytes,
	       "drvmode_requeue_vsgl_discard", "requests +%lld seg0 +%lld",
	       (long long)(a.c.requests - b.c.requests), (long long)(a.seg[0] - b.seg[0]));
	skel = stock_skel;
	next_state = st_idle;
	sglstat_bpf__destroy(drv);
}


/*
 * Mode auto on a mixed host: a disk flagged SGL_DISK_F_DRIVER is counted by
 * the driver tracepoints, so the block programs leave its issues and
 * completions alone (else each request counts twice) and only undo requeues
 * after issue.  Latency source counts, -Q and the fragmentation bound.
 */
#define DM_MAJOR	251
#define DM_MINOR	48
#define DM_SLOT		9
static void test_mixed(void)
{
	struct sgl_disk_val v = { .major = DM_MAJOR, .first_minor = DM_MINOR, .slot = DM_SLOT,
				  .inline_cnt = 2, .flags = SGL_DISK_F_VSGL | SGL_DISK_F_DRIVER };
	__u32 key = sgl_disk_key(DM_MAJOR, DM_MINOR, 4), dev = mkdev(DM_MAJOR, DM_MINOR);
	__u32 cb = (__u32)sgl_chained_bytes(5, 2);
	struct sgl_stats b, a, bs, as;
	__u64 rq, now = mono_ns();
	int changed;

	bpf_map_update_elem(bpf_map__fd(skel->maps.disks), &key, &v, BPF_ANY);
	/* driver setup + block issue + driver complete + block complete: once */
	next_state = st_idle;
	rq = fake_rq(op_read, 0, 5, 5 * 4096, now - 1000000, now - 500000, DM_MAJOR, DM_MINOR);
	get_stats(DM_SLOT, SGL_OP_READ, &b);
	drv_setup(rq, dev, 5, 2, true, cb, 0, false, 100);
	stock(skel->progs.stock_issue_raw, rq, 0);
	drv_complete(rq, dev, 5, true, cb, 0, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(DM_SLOT, SGL_OP_READ, &a);
	result(a.c.requests == b.c.requests + 1 && a.c.completions == b.c.completions + 1 &&
	       a.c.chained == b.c.chained + 1 && a.seg[5] == b.seg[5] + 1 &&
	       sgl_hist_sum_test(a.lat[SGL_LAT_CHAINED]) == sgl_hist_sum_test(b.lat[SGL_LAT_CHAINED]) + 1,
	       "mixed_driver_disk_counted_once", "requests +%llu completions +%llu chained +%llu",
	       (unsigned long long)(a.c.requests - b.c.requests),
	       (unsigned long long)(a.c.completions - b.c.completions),
	       (unsigned long long)(a.c.chained - b.c.chained));
	/* the block programs alone change nothing on it */
	get_stats(DM_SLOT, SGL_OP_READ, &b);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(DM_SLOT, SGL_OP_READ, &a);
	changed = words_changed(&a, &b, 1);
	result(changed == 0, "mixed_block_programs_skip_driver_disk", "%d words changed", changed);
	/* requeue before issue: the driver's alloc_fail counts it, no retry here */
	get_stats(DM_SLOT, SGL_OP_READ, &b);
	stock(skel->progs.stock_requeue_raw, rq, 0);
	get_stats(DM_SLOT, SGL_OP_READ, &a);
	result(a.c.retries == b.c.retries && words_changed(&a, &b, 1) == 0,
	       "mixed_unissued_requeue_no_retry", "retries +%llu",
	       (unsigned long long)(a.c.retries - b.c.retries));
	/* requeue after setup: undone */
	next_state = st_in_flight;
	rq = fake_rq(op_read, 0, 5, 5 * 4096, 0, 0, DM_MAJOR, DM_MINOR);
	get_stats(DM_SLOT, SGL_OP_READ, &b);
	drv_setup(rq, dev, 5, 2, true, cb, 0, false, 100);
	stock(skel->progs.stock_requeue_raw, rq, 0);
	get_stats(DM_SLOT, SGL_OP_READ, &a);
	next_state = st_idle;
	result(a.c.requests == b.c.requests && a.c.chained == b.c.chained && a.seg[5] == b.seg[5] &&
	       a.c.requeues == b.c.requeues + 1,
	       "mixed_requeue_after_setup_undone", "requests +%lld requeues +%llu",
	       (long long)(a.c.requests - b.c.requests), (unsigned long long)(a.c.requeues - b.c.requeues));
	/* a stock disk next to it is still counted by the block programs */
	rq = fake_rq(op_read, 0, 1, 4096, 0, 0, D0_MAJOR, D0_MINOR);
	get_stats(D0_SLOT, SGL_OP_READ, &bs);
	stock(skel->progs.stock_issue_raw, rq, 0);
	get_stats(D0_SLOT, SGL_OP_READ, &as);
	result(as.c.requests == bs.c.requests + 1, "mixed_stock_disk_counted", "requests +%llu",
	       (unsigned long long)(as.c.requests - bs.c.requests));

	/* latency source: io_start_time_ns when set, else start_time_ns */
	rq = fake_rq(op_write, 0, 1, 4096, now - 3000000, now - 1000000, D0_MAJOR, D0_MINOR);
	get_stats(D0_SLOT, SGL_OP_WRITE, &b);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	rq = fake_rq(op_write, 0, 1, 4096, now - 3000000, 0, D0_MAJOR, D0_MINOR);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	rq = fake_rq(op_write, 0, 1, 4096, 0, 0, D0_MAJOR, D0_MINOR);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(D0_SLOT, SGL_OP_WRITE, &a);
	result(a.c.lat_src_io_start == b.c.lat_src_io_start + 1 &&
	       a.c.lat_src_start == b.c.lat_src_start + 1 && a.c.lat_untimed == b.c.lat_untimed + 1,
	       "latency_source_counts", "io_start +%llu start +%llu untimed +%llu",
	       (unsigned long long)(a.c.lat_src_io_start - b.c.lat_src_io_start),
	       (unsigned long long)(a.c.lat_src_start - b.c.lat_src_start),
	       (unsigned long long)(a.c.lat_untimed - b.c.lat_untimed));

	/* fragmentation bound: max(segments, ceil(bytes / 4096) + 1) for reads and writes */
	{
		static const struct { __u32 op, n, len, bound; } c[] = {
			{ 0, 3, 65536, 17 }, { 0, 3, 4096, 3 }, { 0, 1, 4096, 2 }, { 0, 2, 5000, 3 },
			{ 0, 40, 131072, 40 }, { 1, 1, 512, 2 }, { 2, 1, 1 << 20, 1 },
		};
		__u32 ops[3] = { op_read, op_write, op_discard };
		__u32 cls[3] = { SGL_OP_READ, SGL_OP_WRITE, SGL_OP_DISCARD };
		char name[64];

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			rq = fake_rq(ops[c[i].op], c[i].op == 2 ? rqf_special : 0, c[i].n, c[i].len, 0, 0,
				     D0_MAJOR, D0_MINOR);
			get_stats(D0_SLOT, cls[c[i].op], &b);
			stock(skel->progs.stock_issue_raw, rq, 0);
			get_stats(D0_SLOT, cls[c[i].op], &a);
			snprintf(name, sizeof(name), "seg_bound_%u_bytes_%u_segs", c[i].len, c[i].n);
			result(a.segbound[c[i].bound] == b.segbound[c[i].bound] + 1, name,
			       "slot %u +%llu", c[i].bound,
			       (unsigned long long)(a.segbound[c[i].bound] - b.segbound[c[i].bound]));
		}
	}
}

/* -Q: a second instance with targ_queued times every sample from start_time_ns. */
static void test_queued(void)
{
	struct sglstat_bpf *main_skel = skel, *q;
	struct sgl_stats b, a;
	__u64 rq, now = mono_ns();

	q = load_instance("queued_load", INST_QUEUED);
	if (!q)
		return;
	skel = q;
	add_disk(D0_MAJOR, D0_MINOR, D0_SLOT, D0_INLINE);
	/* started 2^30 ns ago, issued just now: the sample lands in slot 30 or 31 */
	rq = fake_rq(op_read, 0, 1, 4096, now - (1ULL << 30) - 1000, now, D0_MAJOR, D0_MINOR);
	get_stats(D0_SLOT, SGL_OP_READ, &b);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(D0_SLOT, SGL_OP_READ, &a);
	result(a.c.lat_src_start == b.c.lat_src_start + 1 && a.c.lat_src_io_start == b.c.lat_src_io_start &&
	       a.lat[SGL_LAT_INLINE][31] + a.lat[SGL_LAT_INLINE][32] ==
	       b.lat[SGL_LAT_INLINE][31] + b.lat[SGL_LAT_INLINE][32] + 1,
	       "queued_latency_from_start", "start +%llu io_start +%llu",
	       (unsigned long long)(a.c.lat_src_start - b.c.lat_src_start),
	       (unsigned long long)(a.c.lat_src_io_start - b.c.lat_src_io_start));
	skel = main_skel;
	sglstat_bpf__destroy(q);
}

/*
 * The default driver mode (no setup events): drv_done counts the whole
 * request from the complete tracepoint alone, alloc_fail counts the failed
 * setups as map errors, and the block programs leave the disk alone, its
 * requeues included (nothing was counted before the completion).
 */
#define OE_MAJOR	252
#define OE_MINOR	32
#define OE_SLOT		11
#define OE_INLINE	2
static int drv_done(__u64 rq, __u32 dev, __u32 nsegs, bool chained, __u32 cbytes,
		    int blk_status, __u32 len, bool retried)
{
	const struct fake_spec *f = &fake->bss->spec;
	__u64 a[12] = { rq, dev, 0, nsegs, chained, cbytes, 0, (__u32)blk_status,
			f->cmd_flags, f->start_time_ns, f->io_start_time_ns,
			len | (__u64)retried << SGL_TP_RETRIED_SHIFT };

	return run(skel->progs.drv_done, a, 12);
}

static void test_one_event(void)
{
	struct sglstat_bpf *main_skel = skel, *oe;
	struct sgl_disk_val v = { .major = OE_MAJOR, .first_minor = OE_MINOR, .slot = OE_SLOT,
				  .inline_cnt = OE_INLINE, .flags = SGL_DISK_F_VSGL | SGL_DISK_F_DRIVER };
	__u32 key = sgl_disk_key(OE_MAJOR, OE_MINOR, 4), dev = mkdev(OE_MAJOR, OE_MINOR);
	__u32 cb = (__u32)sgl_chained_bytes(16, OE_INLINE);
	struct sgl_stats b, a;
	__u64 rq, now = mono_ns();
	int err;

	oe = load_instance("one_event_load", 0);
	if (!oe)
		return;
	skel = oe;
	bpf_map_update_elem(bpf_map__fd(skel->maps.disks), &key, &v, BPF_ANY);

	/* a chained 64 KiB read, timed from io_start 2 ms ago: everything from one event */
	rq = fake_rq(op_read, 0, 16, 65536, now - 3000000, now - 2000000, OE_MAJOR, OE_MINOR);
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	err = drv_done(rq, dev, 16, true, cb, 0, 65536, false);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	result(!err && a.c.requests == b.c.requests + 1 && a.c.completions == b.c.completions + 1 &&
	       a.c.segments == b.c.segments + 16 && a.c.bytes == b.c.bytes + 65536 &&
	       a.seg[16] == b.seg[16] + 1 && a.segbound[17] == b.segbound[17] + 1 &&
	       a.c.chained == b.c.chained + 1 && a.c.chained_bytes == b.c.chained_bytes + cb &&
	       a.c.model_mismatch == b.c.model_mismatch && a.c.retries == b.c.retries &&
	       a.c.lat_src_io_start == b.c.lat_src_io_start + 1 &&
	       sgl_hist_sum_test(a.lat[SGL_LAT_CHAINED]) == sgl_hist_sum_test(b.lat[SGL_LAT_CHAINED]) + 1 &&
	       sgl_hist_sum_test(a.setup) == sgl_hist_sum_test(b.setup),
	       "one_event_counts_whole_request",
	       "requests +%llu completions +%llu segments +%llu bytes +%llu chained +%llu cbytes +%llu",
	       (unsigned long long)(a.c.requests - b.c.requests),
	       (unsigned long long)(a.c.completions - b.c.completions),
	       (unsigned long long)(a.c.segments - b.c.segments),
	       (unsigned long long)(a.c.bytes - b.c.bytes),
	       (unsigned long long)(a.c.chained - b.c.chained),
	       (unsigned long long)(a.c.chained_bytes - b.c.chained_bytes));
	/* the length is setup_info's low half, not the request's __data_len */
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	drv_done(rq, dev, 16, true, cb, 0, 12345, false);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	result(a.c.bytes == b.c.bytes + 12345, "one_event_bytes_from_setup_info", "bytes +%llu",
	       (unsigned long long)(a.c.bytes - b.c.bytes));
	/* bit 32: a retried setup; a failed request: an I/O error */
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	drv_done(rq, dev, 16, true, cb, 10 /* BLK_STS_IOERR */, 65536, true);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	result(a.c.retries == b.c.retries + 1 && a.c.io_errors == b.c.io_errors + 1 &&
	       a.c.requests == b.c.requests + 1,
	       "one_event_retry_and_error", "retries +%llu io_errors +%llu",
	       (unsigned long long)(a.c.retries - b.c.retries),
	       (unsigned long long)(a.c.io_errors - b.c.io_errors));
	/* chained bytes off sgl_model.h for the disk's inline count: a mismatch */
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	drv_done(rq, dev, 16, true, cb + 32, 0, 65536, false);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	result(a.c.model_mismatch == b.c.model_mismatch + 1, "one_event_model_mismatch",
	       "mismatch +%llu", (unsigned long long)(a.c.model_mismatch - b.c.model_mismatch));
	/* an allocation failure is this mode's map error; nothing counts as a request */
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	drv_alloc_fail(rq, dev, 16, false);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	result(a.c.alloc_failures == b.c.alloc_failures + 1 && a.c.map_errors == b.c.map_errors + 1 &&
	       a.c.requests == b.c.requests,
	       "one_event_alloc_fail_is_map_error", "failures +%llu map_errors +%llu requests +%lld",
	       (unsigned long long)(a.c.alloc_failures - b.c.alloc_failures),
	       (unsigned long long)(a.c.map_errors - b.c.map_errors),
	       (long long)(a.c.requests - b.c.requests));
	/* block programs: issue, requeue after issue and complete change nothing on it */
	next_state = st_in_flight;
	rq = fake_rq(op_read, 0, 16, 65536, 0, 0, OE_MAJOR, OE_MINOR);
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	stock(skel->progs.stock_issue_raw, rq, 0);
	stock(skel->progs.stock_requeue_raw, rq, 0);
	stock(skel->progs.stock_complete_raw, rq, 0);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	next_state = st_idle;
	err = words_changed(&a, &b, 1);
	result(err == 0, "one_event_block_programs_skip_driver_disk", "%d words changed", err);
	/* a disk not in the map: nothing anywhere */
	get_stats(OE_SLOT, SGL_OP_READ, &b);
	drv_done(rq, mkdev(OE_MAJOR, OE_MINOR + 1), 16, true, cb, 0, 65536, false);
	get_stats(OE_SLOT, SGL_OP_READ, &a);
	err = words_changed(&a, &b, 1);
	result(err == 0, "one_event_partition_ignored", "%d words changed", err);
	skel = main_skel;
	sglstat_bpf__destroy(oe);
}

int main(void)
{
	struct btf *vmlinux;
	int err;

	if (geteuid() != 0) {
		printf("SKIP: sglstat_bpf: needs root (BPF_PROG_TEST_RUN)\n");
		return 0;
	}
	ncpus = libbpf_num_possible_cpus();
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		printf("SKIP: sglstat_bpf: no kernel BTF\n");
		return 0;
	}
	err = btf_enum_val(vmlinux, "req_op", "REQ_OP_READ", &op_read) ||
	      btf_enum_val(vmlinux, "req_op", "REQ_OP_WRITE", &op_write) ||
	      btf_enum_val(vmlinux, "req_op", "REQ_OP_FLUSH", &op_flush) ||
	      btf_enum_val(vmlinux, "req_op", "REQ_OP_DISCARD", &op_discard) ||
	      btf_enum_val(vmlinux, "req_op", "REQ_OP_WRITE_ZEROES", &op_wzeroes) ||
	      btf_enum_val(vmlinux, "req_op", "REQ_OP_DRV_IN", &op_drv_in);
	err = err || btf_enum_val(vmlinux, "mq_rq_state", "MQ_RQ_IDLE", &st_idle) ||
	      btf_enum_val(vmlinux, "mq_rq_state", "MQ_RQ_IN_FLIGHT", &st_in_flight);
	if (btf_enum_val(vmlinux, "rqf_flags", "__RQF_SPECIAL_PAYLOAD", &rqf_special))
		rqf_special = 18;	/* 6.1: #define RQF_SPECIAL_PAYLOAD (1 << 18) */
	rqf_special = 1u << rqf_special;
	if (btf_enum_val(vmlinux, "rqf_flags", "__RQF_FLUSH_SEQ", &rqf_flush_seq))
		rqf_flush_seq = 4;	/* 6.1: #define RQF_FLUSH_SEQ (1 << 4) */
	rqf_flush_seq = 1u << rqf_flush_seq;
	btf__free(vmlinux);
	result(!err, "vmlinux_enum_req_op", "enum req_op values not found in vmlinux BTF");

	/* the setup/complete pair (--setup-time); test_one_event() the default */
	skel = load_instance("sglstat_bpf_load", INST_SETUP_EVENTS);
	err = skel ? 0 : -1;
	fake = fake_rq_bpf__open_and_load();
	result(fake != NULL, "fake_rq_bpf_load", "load failed (needs CAP_PERFMON for the pointer)");
	if (err || !fake)
		goto out;
	if (add_disk(D0_MAJOR, D0_MINOR, D0_SLOT, D0_INLINE) || add_disk(D1_MAJOR, D1_MINOR, D1_SLOT, D1_INLINE)) {
		printf("FAIL: disk_map_update: %s\n", strerror(errno));
		failures++;
		goto out;
	}
	test_driver();
	rq_progs = true;
	name_prefix = "rq_";
	test_driver();
	rq_progs = false;
	name_prefix = "";
	test_stock();
	test_stock_flush();
	test_driver_mode_requeue();
	test_mixed();
	test_queued();
	test_one_event();
out:
	fake_rq_bpf__destroy(fake);
	sglstat_bpf__destroy(skel);
	return failures ? 1 : 0;
}
