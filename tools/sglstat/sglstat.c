// SPDX-License-Identifier: GPL-2.0
/*
 * sglstat: trace virtio-blk scatter-gather list use (segments, chained SG
 * tables, sg_pool allocation failures, latency) per disk and operation.
 *
 * Driver mode uses the virtio_blk_sgl tracepoints (docs/ABI.md); stock mode
 * the block layer tracepoints on in-tree virtio_blk disks, inferring chaining
 * from nr_phys_segments.  See docs/SGLSTAT.md.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "btf_need.h"
#include <bpf/libbpf.h>
#include "sglstat.skel.h"
#include "args.h"
#include "disks.h"
#include "hist.h"
#include "memory.h"
#include "report.h"
#include "report_prom.h"
#include "snapshot.h"
#include "tune_cmd.h"

#define PART_SHIFT	4	/* virtio_blk and virtio_blk_sgl: 16 minors per disk */

static volatile bool exiting;
/*
 * stdout's buffer: big enough that a report (about 6.5 kB per disk with
 * --cumulative) leaves in one write(2), so that whoever tails the output
 * file sees whole lines, not one torn at a 4 kB stdio buffer boundary.
 */
static char report_buf[512 << 10];
static struct sgl_env env;

static void sig_handler(int sig)
{
	(void)sig;
	exiting = true;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* root, or CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN (pre-5.8 style) */
static bool have_privs(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	unsigned long long eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = ((unsigned long long)data[1].effective << 32) | data[0].effective;
#define CAPB(c) (1ULL << (c))
	if (eff & CAPB(21 /* CAP_SYS_ADMIN */))
		return true;
	return (eff & CAPB(39 /* CAP_BPF */)) && (eff & CAPB(38 /* CAP_PERFMON */));
#undef CAPB
}

/* Can a tp_btf program attach to block_rq_issue on this kernel? */
static bool probe_tp_btf(void)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	struct btf *vmlinux;
	int id, fd;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return false;
	id = btf__find_by_name_kind(vmlinux, "btf_trace_block_rq_issue", BTF_KIND_TYPEDEF);
	btf__free(vmlinux);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool btf_has_enum(void *ctx, const char *name)
{
	return btf__find_by_name_kind(ctx, name, BTF_KIND_ENUM) > 0 ||
	       btf__find_by_name_kind(ctx, name, BTF_KIND_ENUM64) > 0;
}

static bool btf_has_member(void *ctx, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(ctx, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(ctx, id) : NULL;
	const struct btf_member *m;
	int i;

	if (!t)
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(ctx, m->name_off);

		if (n && !strcmp(n, member))
			return true;
	}
	return false;
}

/*
 * The kernel (or --btf file) must have the types the programs relocate
 * against: one line naming what is missing, not libbpf's dump (btf_need.c).
 */
static int check_kernel_btf(const char *path)
{
	struct btf *btf = btf__parse(path, NULL);
	struct sgl_btf_lookup lk = { btf_has_enum, btf_has_member, btf };
	char why[256];
	int err;

	if (!btf) {
		fprintf(stderr, "sglstat: cannot parse the kernel BTF %s: %s: pass --btf PATH to a BTF file of this kernel\n",
			path, strerror(errno));
		return -EINVAL;
	}
	err = sgl_btf_need(&lk, why, sizeof(why));
	btf__free(btf);
	if (err)
		fprintf(stderr, "sglstat: %s\n", why);
	return err;
}

struct tracer {
	struct sglstat_bpf *skel;
	int disks_fd, stats_fd, inflight_fd;
	struct sgl_snapshot *snap;
	struct sgl_stats *percpu;	/* ncpus values for one lookup */
	int ncpus;
	bool warned_full;
	bool collision_warned[SGL_MAX_DISKS];
};

static bool disk_wanted(const struct sgl_disk_info *d)
{
	if (env.mode == SGL_MODE_DRIVER)
		return d->kind == SGL_DISK_VSGL;
	return d->kind == SGL_DISK_VSGL || d->kind == SGL_DISK_VIRTIO_BLK;
}

static unsigned int disk_inline(const char *root, const struct sgl_disk_info *d, bool *assumed)
{
	char p[PATH_MAX];
	__u64 v;

	if (d->kind == SGL_DISK_VSGL) {
		if (snprintf(p, sizeof(p), "%s/block/%s/sgl/inline_sg_cnt", root, d->name) < (int)sizeof(p) &&
		    !sgl_read_u64(p, &v)) {
			*assumed = false;
			return (unsigned int)v;
		}
	}
	*assumed = true;
	return env.stock_inline;
}

static void map_set(struct tracer *t, unsigned int slot, bool on)
{
	struct sgl_disk_snap *d = &t->snap->disk[slot];
	__u32 key = sgl_disk_key(d->major, d->first_minor, PART_SHIFT);
	struct sgl_disk_val val = {}, cur = {};
	unsigned int i;

	if (on) {
		/* another tracked, present disk on the same key? */
		for (i = 0; i < t->snap->nr_disks; i++) {
			struct sgl_disk_snap *o = &t->snap->disk[i];

			if (i == slot || !o->present)
				continue;
			if (sgl_disk_key(o->major, o->first_minor, PART_SHIFT) == key) {
				if (!t->collision_warned[slot])
					fprintf(stderr, "sglstat: warning: %s shares disk map entry %u with %s; %s is not traced\n",
						d->name, key, o->name, d->name);
				t->collision_warned[slot] = true;
				return;
			}
		}
		val.major = d->major;
		val.first_minor = d->first_minor;
		val.slot = slot;
		val.inline_cnt = d->inline_cnt;
		val.flags = d->kind == SGL_DISK_VSGL ? SGL_DISK_F_VSGL : 0;
	} else {
		/* only clear the entry if it is still ours */
		if (bpf_map_lookup_elem(t->disks_fd, &key, &cur) || cur.slot != slot ||
		    cur.major != d->major || cur.first_minor != d->first_minor)
			return;
	}
	bpf_map_update_elem(t->disks_fd, &key, &val, BPF_ANY);
}

/*
 * -d DISK failed: tell a disk that is not there from one whose sysfs files
 * cannot be read, which needs a different fix.
 */
static void explain_disk_error(const char *root, const char *name, int err)
{
	if (sgl_disk_kind(root, name) < 0)
		fprintf(stderr, "sglstat: unknown disk '%s': not in %s/block (list disks with lsblk)\n",
			name, root);
	else
		fprintf(stderr, "sglstat: disk '%s': cannot read %s/block/%s/dev: %s (is sysfs mounted and readable?)\n",
			name, root, name, strerror(-err));
}

/*
 * (Re)scan /sys/block: add new disks to free slots, mark vanished ones not
 * present (their slot and counters stay, so the numbers remain cumulative).
 */
static int rescan(struct tracer *t, bool initial)
{
	const char *root = sgl_sysfs_root();
	struct sgl_disk_info found[SGL_SCAN_MAX];
	struct sgl_snapshot *snap = t->snap;
	int n, i, err;
	unsigned int j;

	if (env.disk) {
		err = sgl_disk_get(root, env.disk, &found[0]);
		n = err ? 0 : 1;
		if (initial && err) {
			explain_disk_error(root, env.disk, err);
			return err;
		}
		if (initial && !disk_wanted(&found[0])) {
			if (found[0].kind == SGL_DISK_VIRTIO_BLK)
				fprintf(stderr, "sglstat: disk '%s' is driven by the in-tree virtio_blk: use --mode stock\n",
					env.disk);
			else
				fprintf(stderr, "sglstat: disk '%s' is not a virtio-blk disk (virtio_blk or virtio_blk_sgl)\n",
					env.disk);
			return -ENODEV;
		}
	} else {
		n = sgl_scan_disks(root, found, SGL_SCAN_MAX);
		if (n < 0) {
			fprintf(stderr, "sglstat: cannot read %s/block: %s\n", root, strerror(-n));
			return n;
		}
	}

	for (j = 0; j < snap->nr_disks; j++) {
		struct sgl_disk_snap *d = &snap->disk[j];
		bool still = false;

		for (i = 0; i < n; i++)
			if (!strcmp(found[i].name, d->name) && found[i].major == d->major &&
			    found[i].first_minor == d->first_minor)
				still = true;
		if (d->present && !still) {
			map_set(t, j, false);
			d->present = false;
		}
	}
	for (i = 0; i < n; i++) {
		struct sgl_disk_snap *d = NULL;

		if (!disk_wanted(&found[i]))
			continue;
		for (j = 0; j < snap->nr_disks; j++)
			if (!strcmp(snap->disk[j].name, found[i].name))
				d = &snap->disk[j];
		if (d && d->present)
			continue;
		if (!d) {
			if (snap->nr_disks >= SGL_MAX_DISKS) {
				if (!t->warned_full)
					fprintf(stderr, "sglstat: warning: more than %d virtio disks, %s and later not traced\n",
						SGL_MAX_DISKS, found[i].name);
				t->warned_full = true;
				continue;
			}
			d = &snap->disk[snap->nr_disks++];
			sgl_strcpy(d->name, sizeof(d->name), found[i].name);
		}
		d->major = found[i].major;
		d->first_minor = found[i].first_minor;
		d->kind = found[i].kind;
		d->inline_cnt = disk_inline(root, &found[i], &d->inline_assumed);
		d->present = true;
		map_set(t, (unsigned int)(d - snap->disk), true);
	}
	if (initial && !snap->nr_disks) {
		if (env.mode == SGL_MODE_DRIVER)
			fprintf(stderr, "sglstat: no virtio_blk_sgl disk found in %s/block: load the driver or use --mode stock\n",
				root);
		else
			fprintf(stderr, "sglstat: no virtio-blk disk found in %s/block: nothing to trace\n", root);
		return -ENODEV;
	}
	return 0;
}

static int collect(struct tracer *t, double interval_s, double elapsed_s)
{
	struct sgl_snapshot *snap = t->snap;
	static struct sgl_stats now[SGL_NR_OPS];
	const char *root = sgl_sysfs_root();
	unsigned int i, op;
	int c, err;

	for (i = 0; i < snap->nr_disks; i++) {
		struct sgl_disk_snap *d = &snap->disk[i];
		struct sgl_inflight fl = {};

		for (op = 0; op < SGL_NR_OPS; op++) {
			__u32 key = i * SGL_NR_OPS + op;

			err = bpf_map_lookup_elem(t->stats_fd, &key, t->percpu);
			if (err) {
				err = -errno;
				fprintf(stderr, "sglstat: reading stats map: %s\n", strerror(-err));
				return err;
			}
			memset(&now[op], 0, sizeof(now[op]));
			for (c = 0; c < t->ncpus; c++)
				sgl_stats_add(&now[op], &t->percpu[c]);
		}
		sgl_disk_update(d, now);
		if (!bpf_map_lookup_elem(t->inflight_fd, &i, &fl)) {
			d->chained_now = fl.now;
			d->chained_peak = fl.peak;
		}
		if (d->kind == SGL_DISK_VSGL && d->present)
			sgl_read_drv_sysfs(root, d->name, &d->sysfs);
		else
			d->sysfs.valid = false;
		/* geometry for tune captures; a vanished disk keeps its last one */
		if (d->present)
			sgl_disk_geo(root, d, env.stock_inline);
	}
	snap->seq++;
	snap->ts_realtime = real_now();
	snap->interval_s = interval_s;
	snap->elapsed_s = elapsed_s;
	return 0;
}

static void report(struct tracer *t)
{
	struct sgl_report_opts o = {
		.per_disk = env.per_disk,
		.timestamp = env.timestamp,
		.cumulative = env.cumulative,
	};

	if (env.json)
		sgl_report_json(stdout, t->snap, &o);
	else
		sgl_report_text(stdout, t->snap, &o);
}

static int run_memory(void)
{
	const char *root = sgl_sysfs_root();
	struct sgl_disk_info found[SGL_SCAN_MAX];
	static struct sgl_mem_info mem[SGL_SCAN_MAX];
	int n, i, k = 0, err;

	if (env.disk) {
		err = sgl_disk_get(root, env.disk, &found[0]);
		if (err) {
			explain_disk_error(root, env.disk, err);
			return err;
		}
		if (found[0].kind == SGL_DISK_OTHER) {
			fprintf(stderr, "sglstat: disk '%s' is not a virtio-blk disk (virtio_blk or virtio_blk_sgl)\n",
				env.disk);
			return -ENODEV;
		}
		n = 1;
	} else {
		n = sgl_scan_disks(root, found, SGL_SCAN_MAX);
		if (n < 0) {
			fprintf(stderr, "sglstat: cannot read %s/block: %s\n", root, strerror(-n));
			return n;
		}
		if (!n) {
			fprintf(stderr, "sglstat: no virtio-blk disk found in %s/block\n", root);
			return -ENODEV;
		}
	}
	for (i = 0; i < n; i++) {
		err = sgl_mem_read(root, &found[i], env.stock_inline, &mem[k]);
		if (err) {
			fprintf(stderr, "sglstat: %s: cannot read its queue/sgl sysfs attributes: %s\n",
				found[i].name, strerror(-err));
			return err;
		}
		k++;
	}
	if (env.json)
		sgl_mem_print_json(stdout, mem, k);
	else
		sgl_mem_print_text(stdout, mem, k);
	return 0;
}

/* Report a tune set, then --apply.  Returns the exit status. */
static int tune_finish(struct sgl_tune_set *set, const char *source, bool fleet)
{
	struct sgl_tune_opts o = {
		.target = env.tune_target,
		.stock_inline = env.stock_inline,
		.source = source,
		.fleet = fleet,
	};
	char path[4096], msg[4608];
	unsigned int v = 0;
	int err;

	if (env.disk) {
		int i, k = 0;

		for (i = 0; i < set->n; i++) {
			const char *n = set->d[i].name, *c = fleet ? strrchr(n, ':') : NULL;

			if (!strcmp(c ? c + 1 : n, env.disk))
				set->d[k++] = set->d[i];
		}
		set->n = k;
		if (!k) {
			fprintf(stderr, "sglstat: tune: no data for disk '%s' in the input\n", env.disk);
			return 1;
		}
	}
	if (!set->n) {
		fprintf(stderr, "sglstat: tune: no disks in the input\n");
		return 1;
	}
	err = env.json ? sgl_tune_print_json(stdout, set, &o, &v) : sgl_tune_print_text(stdout, set, &o, &v);
	fflush(stdout);
	if (err) {
		fprintf(stderr, "sglstat: tune: no disk with known max_segments and nr_requests_total: nothing to recommend\n");
		return 1;
	}
	if (!env.tune_apply)
		return 0;
	err = sgl_tune_apply(env.tune_root ? env.tune_root : "/", v, path, sizeof(path), msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "sglstat: tune --apply: %s\n", msg);
		return 1;
	}
	fprintf(stderr, "sglstat: wrote %s: options virtio_blk_sgl inline_sg_cnt=%u (reload virtio_blk_sgl to use it)\n",
		path, v);
	return 0;
}

/* tune from files: --from, --from-prom, --from-prom-query */
static int run_tune_files(void)
{
	struct sgl_tune_set set = { 0 };
	char msg[512], src[4200];
	char *buf;
	size_t len;
	int err, i, rc;

	if (env.tune_from) {
		err = sgl_read_file(env.tune_from, 1u << 30, &buf, &len);
		if (err) {
			fprintf(stderr, "sglstat: tune --from %s: %s\n", env.tune_from, strerror(-err));
			return 1;
		}
		err = sgl_tune_read_capture(buf, len, sgl_sysfs_root(), env.stock_inline, &set, msg, sizeof(msg));
		free(buf);
		if (err) {
			fprintf(stderr, "sglstat: tune --from %s: %s\n", env.tune_from, msg);
			sgl_tune_set_free(&set);
			return 1;
		}
		snprintf(src, sizeof(src), "capture %s", env.tune_from);
		rc = tune_finish(&set, src, false);
		sgl_tune_set_free(&set);
		return rc;
	}
	for (i = 0; i < env.nr_prom_in; i++) {
		err = sgl_read_file(env.prom_in[i], 64u << 20, &buf, &len);
		if (err) {
			fprintf(stderr, "sglstat: tune --from-prom %s: %s\n", env.prom_in[i], strerror(-err));
			sgl_tune_set_free(&set);
			return 1;
		}
		err = sgl_tune_read_prom(buf, len, env.prom_in[i], &set, msg, sizeof(msg));
		free(buf);
		if (err) {
			fprintf(stderr, "sglstat: tune --from-prom %s: %s\n", env.prom_in[i], msg);
			sgl_tune_set_free(&set);
			return 1;
		}
	}
	if (env.prom_query) {
		err = sgl_read_file(env.prom_query, 256u << 20, &buf, &len);
		if (!err) {
			err = sgl_tune_read_prom_query(buf, len, &set, msg, sizeof(msg));
			free(buf);
		} else {
			snprintf(msg, sizeof(msg), "%s", strerror(-err));
		}
		if (err) {
			fprintf(stderr, "sglstat: tune --from-prom-query %s: %s\n", env.prom_query, msg);
			sgl_tune_set_free(&set);
			return 1;
		}
	}
	rc = tune_finish(&set, "prometheus", true);
	sgl_tune_set_free(&set);
	return rc;
}

/*
 * Driver mode: the three driver tracepoints, plus block_rq_requeue (to undo
 * setups of requests that are requeued after issue, e.g. virtqueue full).
 * Stock mode: issue/requeue/complete.  Each block tracepoint as tp_btf when
 * the kernel supports it, else as the raw_tp twin.
 */
static void set_autoload_sets(struct sglstat_bpf *skel, bool drv, bool btf)
{
	bool stock = !drv;

	bpf_program__set_autoload(skel->progs.drv_setup, drv);
	bpf_program__set_autoload(skel->progs.drv_complete, drv);
	bpf_program__set_autoload(skel->progs.drv_alloc_fail, drv);
	bpf_program__set_autoload(skel->progs.stock_issue_btf, stock && btf);
	bpf_program__set_autoload(skel->progs.stock_complete_btf, stock && btf);
	bpf_program__set_autoload(skel->progs.stock_requeue_btf, btf);
	bpf_program__set_autoload(skel->progs.stock_issue_raw, stock && !btf);
	bpf_program__set_autoload(skel->progs.stock_complete_raw, stock && !btf);
	bpf_program__set_autoload(skel->progs.stock_requeue_raw, !btf);
}

/* Sleep until @deadline (monotonic) or a signal; rescan disks every second. */
static void wait_until(struct tracer *t, double deadline)
{
	double now;

	while (!exiting && (now = mono_now()) < deadline) {
		double d = deadline - now;
		struct timespec ts;

		if (d > 1.0)
			d = 1.0;
		ts.tv_sec = (time_t)d;
		ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		if (!exiting)
			rescan(t, false);	/* hot-plugged / removed disks */
	}
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	struct tracer t = {};
	struct btf *custom_btf;
	struct sgl_prom_meta prom_meta;
	const char *root = sgl_sysfs_root();
	char path[512];
	double start, last, deadline;
	long reports = 0;
	bool tp_btf = false;
	int err;

	err = sgl_parse_args(argc, argv, &env, 0);
	if (err)
		return 2;
	if (env.memory)
		return run_memory() ? 1 : 0;
	if (env.tune && (env.tune_from || env.nr_prom_in || env.prom_query))
		return run_tune_files();

	if (!have_privs()) {
		fprintf(stderr, "sglstat: need root, or CAP_BPF and CAP_PERFMON, to load BPF programs: run it with sudo\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/kernel/btf/vmlinux", root);
	if (env.btf_path) {
		if (access(env.btf_path, R_OK)) {
			fprintf(stderr, "sglstat: cannot read --btf %s: %s\n", env.btf_path, strerror(errno));
			return 1;
		}
		/* parse it here: libbpf would print pages and end in its own errno */
		libbpf_set_print(NULL);
		custom_btf = btf__parse(env.btf_path, NULL);
		if (!custom_btf) {
			fprintf(stderr, "sglstat: --btf %s is not a BTF file: pass this kernel's BTF (e.g. a copy of /sys/kernel/btf/vmlinux)\n",
				env.btf_path);
			return 1;
		}
		btf__free(custom_btf);
		open_opts.btf_custom_path = env.btf_path;
	} else if (access(path, R_OK)) {
		fprintf(stderr, "sglstat: kernel has no BTF (%s missing): pass --btf PATH to a BTF file of this kernel\n",
			path);
		return 1;
	}
	libbpf_set_print(NULL);
	if (check_kernel_btf(env.btf_path ? env.btf_path : path))
		return 1;
	if (env.mode == SGL_MODE_AUTO) {
		snprintf(path, sizeof(path), "%s/module/virtio_blk_sgl", root);
		env.mode = access(path, F_OK) ? SGL_MODE_STOCK : SGL_MODE_DRIVER;
	}

	if (env.prom_file) {
		if (sgl_prom_check_target(env.prom_file))
			return 1;
		sgl_prom_meta_init(&prom_meta, SGLSTAT_VERSION, root);
	}

	libbpf_set_print(libbpf_print_fn);
	t.snap = calloc(1, sizeof(*t.snap));
	t.ncpus = libbpf_num_possible_cpus();
	if (!t.snap || t.ncpus <= 0) {
		fprintf(stderr, "sglstat: out of memory or cannot count CPUs\n");
		err = -ENOMEM;
		goto cleanup;
	}
	t.percpu = calloc(t.ncpus, sizeof(struct sgl_stats));
	if (!t.percpu) {
		err = -ENOMEM;
		goto cleanup;
	}
	t.snap->mode = env.mode;
	t.snap->failures_known = env.mode == SGL_MODE_DRIVER;

	t.skel = sglstat_bpf__open_opts(&open_opts);
	if (!t.skel) {
		err = -errno;
		fprintf(stderr, "sglstat: cannot open the BPF object: %s\n", strerror(-err));
		goto cleanup;
	}
	t.skel->rodata->targ_part_shift = PART_SHIFT;
	t.skel->rodata->targ_driver_mode = env.mode == SGL_MODE_DRIVER;
	tp_btf = !env.btf_path && !env.force_raw_tp && probe_tp_btf();
	set_autoload_sets(t.skel, env.mode == SGL_MODE_DRIVER, tp_btf);
	t.snap->tp_btf = tp_btf;

	err = sglstat_bpf__load(t.skel);
	if (err) {
		char why[128];

		libbpf_strerror(err, why, sizeof(why));
		fprintf(stderr, "sglstat: cannot load the BPF programs: %s%s\n", why,
			env.btf_path ? "" : " (if the kernel BTF does not match, try --btf PATH)");
		goto cleanup;
	}
	t.disks_fd = bpf_map__fd(t.skel->maps.disks);
	t.stats_fd = bpf_map__fd(t.skel->maps.stats);
	t.inflight_fd = bpf_map__fd(t.skel->maps.inflight);

	err = rescan(&t, true);
	if (err)
		goto cleanup;

	err = sglstat_bpf__attach(t.skel);
	if (err) {
		if (env.mode == SGL_MODE_DRIVER)
			fprintf(stderr, "sglstat: cannot attach to the virtio_blk_sgl tracepoints: %s (is the virtio_blk_sgl module loaded?)\n",
				strerror(-err));
		else
			fprintf(stderr, "sglstat: cannot attach to the block tracepoints: %s\n", strerror(-err));
		goto cleanup;
	}

	/* SIGHUP too: a hangup must not kill it between a temp file and its rename */
	if (signal(SIGINT, sig_handler) == SIG_ERR || signal(SIGTERM, sig_handler) == SIG_ERR ||
	    signal(SIGHUP, sig_handler) == SIG_ERR) {
		err = -errno;
		fprintf(stderr, "sglstat: cannot set signal handlers: %s\n", strerror(-err));
		goto cleanup;
	}

	fprintf(stderr, "sglstat: mode %s (%s)\n", sgl_mode_name(env.mode),
		env.mode == SGL_MODE_DRIVER ?
			(tp_btf ? "virtio_blk_sgl tracepoints, raw_tp; block_rq_requeue, tp_btf" :
				  "virtio_blk_sgl tracepoints and block_rq_requeue, raw_tp") :
		tp_btf ? "block_rq_issue/requeue/complete, tp_btf; allocation failures not visible" :
			 "block_rq_issue/requeue/complete, raw_tp; allocation failures not visible");
	if (env.tune)
		fprintf(stderr, "Tracing virtio-blk SG use on %u disk(s) for %.1f s to tune inline_sg_cnt... Hit Ctrl-C to end early.\n",
			t.snap->nr_disks, env.tune_duration);
	else
		fprintf(stderr, "Tracing virtio-blk SG use on %u disk(s)... Hit Ctrl-C to end.\n",
			t.snap->nr_disks);

	setvbuf(stdout, report_buf, _IOFBF, sizeof(report_buf));
	start = last = mono_now();
	for (;;) {
		double now;

		deadline = env.tune ? start + env.tune_duration :
			   env.interval ? last + env.interval : 1e300;
		wait_until(&t, deadline);
		now = mono_now();
		err = collect(&t, now - last, now - start);
		if (err)
			goto cleanup;
		last = now;
		if (env.tune) {
			struct sgl_tune_set set = { 0 };

			if (sgl_tune_from_snapshot(t.snap, root, env.stock_inline, &set)) {
				fprintf(stderr, "sglstat: out of memory\n");
				err = -ENOMEM;
			} else {
				err = tune_finish(&set, "live", false) ? -EINVAL : 0;
			}
			sgl_tune_set_free(&set);
			goto cleanup;
		}
		report(&t);
		if (env.prom_file) {
			int e = sgl_prom_write(env.prom_file, t.snap, &prom_meta);

			if (e)
				fprintf(stderr, "sglstat: cannot write %s: %s (the previous file is left as it was)\n",
					env.prom_file, strerror(-e));
		}
		reports++;
		if (exiting || (env.count && reports >= env.count) || !env.interval)
			break;
	}
	err = 0;

cleanup:
	sglstat_bpf__destroy(t.skel);
	if (env.prom_file)
		sgl_prom_meta_free(&prom_meta);
	free(t.percpu);
	free(t.snap);
	return err ? 1 : 0;
}
