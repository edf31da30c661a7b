// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer (see tracer.h).  Each disk is traced by the best means for it:
 * a virtio_blk_sgl disk by the driver tracepoints when they are loaded
 * (--mode driver, or auto with the module loaded), any other virtio disk by
 * the block tracepoints.  With both program sets attached (auto on a mixed
 * host) the block programs skip the disks flagged SGL_DISK_F_DRIVER, so no
 * request counts twice.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sglstat.skel.h"
#include "disks.h"
#include "memory.h"
#include "probe.h"
#include "tracer.h"

#define PART_SHIFT	4	/* virtio_blk and virtio_blk_sgl: 16 minors per disk */

static double real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool disk_wanted(const struct sgl_tracer *t, const struct sgl_disk_info *d)
{
	if (t->o->mode == SGL_MODE_DRIVER)
		return d->kind == SGL_DISK_VSGL;
	return d->kind == SGL_DISK_VSGL || d->kind == SGL_DISK_VIRTIO_BLK;
}

static enum sgl_mode disk_mode(const struct sgl_tracer *t, enum sgl_disk_kind kind)
{
	return kind == SGL_DISK_VSGL && t->drv ? SGL_MODE_DRIVER : SGL_MODE_STOCK;
}

static unsigned int disk_inline(const struct sgl_tracer *t, const char *root,
				const struct sgl_disk_info *d, bool *assumed)
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
	return t->o->stock_inline;
}

static __u32 disk_key(const struct sgl_disk_snap *d)
{
	return sgl_disk_key(d->major, d->first_minor, PART_SHIFT);
}

/* Read slot @d->slot of the stats and inflight maps into @d. */
static int read_slot(struct sgl_tracer *t, struct sgl_disk_snap *d)
{
	static struct sgl_stats now[SGL_NR_OPS];
	struct sgl_inflight fl = {};
	unsigned int op;
	int c;

	for (op = 0; op < SGL_NR_OPS; op++) {
		__u32 key = d->slot * SGL_NR_OPS + op;

		if (bpf_map_lookup_elem(t->stats_fd, &key, t->percpu)) {
			int err = -errno;

			fprintf(stderr, "sglstat: reading stats map: %s\n", strerror(-err));
			return err;
		}
		memset(&now[op], 0, sizeof(now[op]));
		for (c = 0; c < t->ncpus; c++)
			sgl_stats_add(&now[op], &t->percpu[c]);
	}
	sgl_disk_update(d, now);
	if (!bpf_map_lookup_elem(t->inflight_fd, &d->slot, &fl)) {
		d->chained_now = fl.now;
		d->chained_peak = fl.peak;
	}
	return 0;
}

static void zero_slot(struct sgl_tracer *t, unsigned int slot)
{
	struct sgl_inflight fl = {};
	unsigned int op;

	for (op = 0; op < SGL_NR_OPS; op++) {
		__u32 key = slot * SGL_NR_OPS + op;

		bpf_map_update_elem(t->stats_fd, &key, t->zero, BPF_ANY);
	}
	bpf_map_update_elem(t->inflight_fd, &slot, &fl, BPF_ANY);
}

/* Snapshot entry @i leaves the map: its last counts are read, its slot freed. */
static void untrace(struct sgl_tracer *t, unsigned int i)
{
	struct sgl_disk_snap *d = &t->snap->disk[i];
	struct sgl_disk_val cur = {}, none = {};
	__u32 key = disk_key(d);

	if (!d->traced)
		return;
	/* only clear the entry if it is still ours */
	if (!bpf_map_lookup_elem(t->disks_fd, &key, &cur) && cur.slot == d->slot &&
	    cur.major == d->major && cur.first_minor == d->first_minor)
		bpf_map_update_elem(t->disks_fd, &key, &none, BPF_ANY);
	/* flush: this disk's counts since the last report go into the next one */
	read_slot(t, d);
	d->flushed = true;
	zero_slot(t, d->slot);
	t->slot_owner[d->slot] = -1;
	d->traced = false;
}

/* Give present entry @i a slot and a disk map entry, if both are free. */
static void trace(struct sgl_tracer *t, unsigned int i)
{
	struct sgl_disk_snap *d = &t->snap->disk[i];
	struct sgl_disk_val val = {};
	__u32 key = disk_key(d);
	unsigned int j, slot;

	for (j = 0; j < t->snap->nr_disks; j++) {
		struct sgl_disk_snap *o = &t->snap->disk[j];

		if (j != i && o->traced && disk_key(o) == key) {
			if (!t->warned[i])
				fprintf(stderr, "sglstat: warning: %s shares disk map entry %u with %s; %s is traced once %s is gone\n",
					d->name, key, o->name, d->name, o->name);
			t->warned[i] = true;
			return;
		}
	}
	for (slot = 0; slot < t->nslots && t->slot_owner[slot] >= 0; slot++)
		;
	if (slot >= t->nslots) {
		if (!t->warned_slots)
			fprintf(stderr, "sglstat: warning: all %u disk slots in use (--max-disks): %s is traced once a disk goes away\n",
				t->nslots, d->name);
		t->warned_slots = true;
		return;
	}
	zero_slot(t, slot);
	t->slot_owner[slot] = (int)i;
	d->slot = slot;
	d->traced = true;
	t->warned[i] = false;
	sgl_disk_slot_reset(d);
	val.major = d->major;
	val.first_minor = d->first_minor;
	val.slot = slot;
	val.inline_cnt = d->inline_cnt;
	val.flags = (d->kind == SGL_DISK_VSGL ? SGL_DISK_F_VSGL : 0) |
		    (d->mode == SGL_MODE_DRIVER ? SGL_DISK_F_DRIVER : 0);
	bpf_map_update_elem(t->disks_fd, &key, &val, BPF_ANY);
}

/* The disks to follow now: -d DISK... or every virtio disk.  Count or -errno. */
static int find_disks(struct sgl_tracer *t, bool initial, struct sgl_disk_info *found, int max)
{
	const char *root = sgl_sysfs_root();
	int n = 0, i, err;

	if (!t->o->nr_disks) {
		n = sgl_scan_disks(root, found, max);
		if (n < 0)
			fprintf(stderr, "sglstat: cannot read %s/block: %s\n", root, strerror(-n));
		return n;
	}
	for (i = 0; i < t->o->nr_disks && n < max; i++) {
		const char *name = t->o->disks[i];

		err = sgl_disk_get(root, name, &found[n]);
		if (err) {
			if (initial) {
				sgl_disk_explain_error(root, name, err);
				return err;
			}
			continue;
		}
		if (initial && !disk_wanted(t, &found[n])) {
			if (found[n].kind == SGL_DISK_VIRTIO_BLK)
				fprintf(stderr, "sglstat: disk '%s' is driven by the in-tree virtio_blk: use --mode stock or auto\n",
					name);
			else
				fprintf(stderr, "sglstat: disk '%s' is not a virtio-blk disk (virtio_blk or virtio_blk_sgl)\n",
					name);
			return -ENODEV;
		}
		n++;
	}
	return n;
}

/* A snapshot entry for a new disk: a free one, else a departed disk already reported. */
static int new_entry(struct sgl_tracer *t)
{
	struct sgl_snapshot *snap = t->snap;
	unsigned int j;

	if (snap->nr_disks < SGL_MAX_DISKS)
		return (int)snap->nr_disks++;
	for (j = 0; j < snap->nr_disks; j++)
		if (!snap->disk[j].present && !snap->disk[j].traced && snap->disk[j].gone_reported)
			return (int)j;
	return -1;
}

int sgl_tracer_rescan(struct sgl_tracer *t, bool initial)
{
	const char *root = sgl_sysfs_root();
	static struct sgl_disk_info found[SGL_SCAN_MAX];
	struct sgl_snapshot *snap = t->snap;
	int n, i;
	unsigned int j;

	n = find_disks(t, initial, found, SGL_SCAN_MAX);
	if (n < 0)
		return n;
	for (j = 0; j < snap->nr_disks; j++) {
		struct sgl_disk_snap *d = &snap->disk[j];
		bool still = false;

		for (i = 0; i < n; i++)
			if (!strcmp(found[i].name, d->name) && found[i].major == d->major &&
			    found[i].first_minor == d->first_minor)
				still = true;
		if (d->present && !still) {
			untrace(t, j);
			d->present = false;
			d->gone_reported = false;
		}
	}
	for (i = 0; i < n; i++) {
		struct sgl_disk_snap *d = NULL;
		int k = -1;

		if (!disk_wanted(t, &found[i]))
			continue;
		for (j = 0; j < snap->nr_disks; j++)
			if (!strcmp(snap->disk[j].name, found[i].name))
				k = (int)j;
		if (k >= 0 && snap->disk[k].present) {
			if (!snap->disk[k].traced)
				trace(t, (unsigned int)k);	/* lost a collision or a slot before */
			continue;
		}
		if (k < 0) {
			k = new_entry(t);
			if (k < 0) {
				if (!t->warned_full)
					fprintf(stderr, "sglstat: warning: %d disks followed, none gone long enough to be dropped: %s not traced\n",
						SGL_MAX_DISKS, found[i].name);
				t->warned_full = true;
				continue;
			}
			memset(&snap->disk[k], 0, sizeof(snap->disk[k]));
			t->warned[k] = false;
			sgl_strcpy(snap->disk[k].name, sizeof(snap->disk[k].name), found[i].name);
		}
		d = &snap->disk[k];
		d->major = found[i].major;
		d->first_minor = found[i].first_minor;
		d->kind = found[i].kind;
		d->mode = disk_mode(t, d->kind);
		d->inline_cnt = disk_inline(t, root, &found[i], &d->inline_assumed);
		d->present = true;
		trace(t, (unsigned int)k);
	}
	if (initial && !snap->nr_disks) {
		if (t->o->mode == SGL_MODE_DRIVER)
			fprintf(stderr, "sglstat: no virtio_blk_sgl disk found in %s/block: load the driver or use --mode stock\n",
				root);
		else
			fprintf(stderr, "sglstat: no virtio-blk disk found in %s/block: nothing to trace\n", root);
		return -ENODEV;
	}
	return 0;
}

/* The snapshot's mode: DRIVER or STOCK if every disk is, else AUTO (mixed). */
static void snap_mode(struct sgl_tracer *t)
{
	struct sgl_snapshot *snap = t->snap;
	bool any_drv = false, any_stock = false;
	unsigned int i;

	for (i = 0; i < snap->nr_disks; i++) {
		if (snap->disk[i].mode == SGL_MODE_DRIVER)
			any_drv = true;
		else
			any_stock = true;
	}
	if (!any_drv && !any_stock)
		any_drv = t->drv && !t->stock, any_stock = !any_drv;
	snap->mode = any_drv && any_stock ? SGL_MODE_AUTO : any_drv ? SGL_MODE_DRIVER : SGL_MODE_STOCK;
	snap->failures_known = snap->mode == SGL_MODE_DRIVER;
	snap->setup_events = t->drv_setup;
}

int sgl_tracer_collect(struct sgl_tracer *t, double interval_s, double elapsed_s)
{
	struct sgl_snapshot *snap = t->snap;
	const char *root = sgl_sysfs_root();
	unsigned int i;
	int err;

	for (i = 0; i < snap->nr_disks; i++) {
		struct sgl_disk_snap *d = &snap->disk[i];

		if (d->traced) {
			err = read_slot(t, d);
			if (err)
				return err;
		} else if (d->flushed) {
			d->flushed = false;	/* its last counts are this report's delta */
		} else {
			sgl_disk_update(d, d->raw);	/* nothing new: zero deltas */
		}
		if (d->kind == SGL_DISK_VSGL && d->present)
			sgl_read_drv_sysfs(root, d->name, &d->sysfs);
		else
			d->sysfs.valid = false;
		/* without setup events the driver's own gauge stands in for ours */
		if (d->mode == SGL_MODE_DRIVER && !t->drv_setup && d->sysfs.valid) {
			d->chained_now = d->sysfs.chained_bytes_now;
			d->chained_peak = d->sysfs.chained_bytes_peak;
		}
		/* geometry for tune captures, memory gauges; a vanished disk keeps its last */
		if (d->present) {
			sgl_disk_geo(root, d, t->o->stock_inline);
			sgl_disk_mem_fill(root, d);
		}
	}
	snap_mode(t);
	snap->seq++;
	snap->ts_realtime = real_now();
	snap->interval_s = interval_s;
	snap->elapsed_s = elapsed_s;
	return 0;
}

void sgl_tracer_reported(struct sgl_tracer *t)
{
	unsigned int i;

	for (i = 0; i < t->snap->nr_disks; i++)
		if (!t->snap->disk[i].present)
			t->snap->disk[i].gone_reported = true;
}

/*
 * Driver tracepoints: complete (drv_done, one event per I/O) and alloc_fail;
 * with setup events, setup/complete instead of drv_done, plus
 * block_rq_requeue (to undo setups of requests requeued after issue, e.g.
 * virtqueue full).  Block tracepoints: issue/requeue/complete.  Each block
 * tracepoint as tp_btf when the kernel supports it, else as the raw_tp twin.
 * The driver programs are attached by attach_driver(), the rest by the
 * skeleton.
 */
static void set_autoload(const struct sgl_tracer *t)
{
	struct sglstat_bpf *skel = t->skel;
	struct bpf_program *drv_progs[] = {
		skel->progs.drv_done, skel->progs.drv_setup, skel->progs.drv_complete,
		skel->progs.drv_setup_rq, skel->progs.drv_complete_rq,
	};
	bool drv = t->drv, stock = t->stock, btf = t->tp_btf;
	/* stock mode undoes requeued issues; driver mode only while setups count */
	bool requeue = stock || t->drv_setup;
	unsigned int i;

	for (i = 0; i < sizeof(drv_progs) / sizeof(drv_progs[0]); i++) {
		bpf_program__set_autoload(drv_progs[i], drv);
		bpf_program__set_autoattach(drv_progs[i], false);
	}
	bpf_program__set_autoload(skel->progs.drv_alloc_fail, drv);
	bpf_program__set_autoload(skel->progs.stock_issue_btf, stock && btf);
	bpf_program__set_autoload(skel->progs.stock_complete_btf, stock && btf);
	bpf_program__set_autoload(skel->progs.stock_requeue_btf, requeue && btf);
	bpf_program__set_autoload(skel->progs.stock_requeue_raw, requeue && !btf);
	bpf_program__set_autoload(skel->progs.stock_issue_raw, stock && !btf);
	bpf_program__set_autoload(skel->progs.stock_complete_raw, stock && !btf);
}

/*
 * The driver's setup and complete programs: the pair that takes cmd_flags,
 * length and times as tracepoint arguments, or, on a module whose
 * tracepoints end before them (attach refuses a program reading past the
 * last argument with EINVAL), the pair that reads them from the request.
 * The links go into the skeleton, which destroys them.
 */
static int attach_driver_pair(struct sglstat_bpf *skel)
{
	int err;

	skel->links.drv_setup = bpf_program__attach(skel->progs.drv_setup);
	err = skel->links.drv_setup ? 0 : -errno;
	if (!err) {
		skel->links.drv_complete = bpf_program__attach(skel->progs.drv_complete);
		err = skel->links.drv_complete ? 0 : -errno;
		if (!err)
			return 0;
		bpf_link__destroy(skel->links.drv_setup);
		skel->links.drv_setup = NULL;
	}
	if (err != -EINVAL)
		return err;
	fprintf(stderr, "sglstat: this virtio_blk_sgl's tracepoints lack the appended arguments (an older module): reading the request instead, at a higher cost per I/O\n");
	skel->links.drv_setup_rq = bpf_program__attach(skel->progs.drv_setup_rq);
	if (!skel->links.drv_setup_rq)
		return -errno;
	skel->links.drv_complete_rq = bpf_program__attach(skel->progs.drv_complete_rq);
	return skel->links.drv_complete_rq ? 0 : -errno;
}

/*
 * drv_done alone (one event per I/O), unless setup events were asked for or
 * the module's complete tracepoint lacks setup_info (an older module): then
 * the setup/complete pair, which needs its setups counted (targ_setup_events,
 * read-only once loaded, so that case reopens: sgl_tracer_open()).
 */
static int attach_driver(struct sgl_tracer *t)
{
	struct sglstat_bpf *skel = t->skel;
	int err;

	if (t->drv_setup)
		return attach_driver_pair(skel);
	skel->links.drv_done = bpf_program__attach(skel->progs.drv_done);
	err = skel->links.drv_done ? 0 : -errno;
	if (err == -EINVAL) {
		fprintf(stderr, "sglstat: this virtio_blk_sgl's complete tracepoint lacks setup_info (an older module): tracing setups too\n");
		return -EAGAIN;
	}
	return err;
}

const char *sgl_tracer_describe(const struct sgl_tracer *t)
{
	static char line[192];
	const char *block = t->tp_btf ? "tp_btf" : "raw_tp";
	const char *drv = t->drv_setup ? "virtio_blk_sgl setup/complete/alloc_fail" :
					 "virtio_blk_sgl complete/alloc_fail";

	if (t->drv && t->stock)
		snprintf(line, sizeof(line),
			 "virtio_blk_sgl disks: %s, raw_tp; other disks: block_rq_issue/requeue/complete, %s",
			 drv, block);
	else if (t->drv && !t->drv_setup)
		snprintf(line, sizeof(line), "%s, raw_tp: one event per I/O", drv);
	else if (t->drv)
		snprintf(line, sizeof(line), t->tp_btf ? "%s, raw_tp; block_rq_requeue, tp_btf" :
				"%s and block_rq_requeue, raw_tp", drv);
	else
		snprintf(line, sizeof(line),
			 "block_rq_issue/requeue/complete, %s; allocation failures not visible", block);
	return line;
}

static int tracer_open(struct sgl_tracer *t, const struct sgl_tracer_opts *o, bool drv_setup)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	static struct sgl_disk_info found[SGL_SCAN_MAX];
	const char *root = sgl_sysfs_root();
	char path[PATH_MAX];
	unsigned int present = 0, i;
	int err, n;

	memset(t, 0, sizeof(*t));
	t->o = o;
	for (i = 0; i < SGL_MAX_DISKS; i++)
		t->slot_owner[i] = -1;
	snprintf(path, sizeof(path), "%s/module/virtio_blk_sgl", root);
	t->drv = o->mode == SGL_MODE_DRIVER || (o->mode == SGL_MODE_AUTO && !access(path, F_OK));
	t->stock = o->mode != SGL_MODE_DRIVER;
	t->drv_setup = t->drv && drv_setup;

	t->snap = calloc(1, sizeof(*t->snap));
	t->ncpus = libbpf_num_possible_cpus();
	if (!t->snap || t->ncpus <= 0) {
		fprintf(stderr, "sglstat: out of memory or cannot count CPUs\n");
		return -ENOMEM;
	}
	t->percpu = calloc(t->ncpus, sizeof(struct sgl_stats));
	t->zero = calloc(t->ncpus, sizeof(struct sgl_stats));
	if (!t->percpu || !t->zero)
		return -ENOMEM;

	/* the disks there are now, to size the maps */
	n = find_disks(t, true, found, SGL_SCAN_MAX);
	if (n < 0)
		return n;
	for (i = 0; i < (unsigned int)n; i++)
		present += disk_wanted(t, &found[i]);
	t->nslots = sgl_disk_slots(o->max_disks, present);

	if (o->btf_path)
		open_opts.btf_custom_path = o->btf_path;
	t->skel = sglstat_bpf__open_opts(&open_opts);
	if (!t->skel) {
		err = -errno;
		fprintf(stderr, "sglstat: cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	t->skel->rodata->targ_part_shift = PART_SHIFT;
	t->skel->rodata->targ_driver_mode = o->mode == SGL_MODE_DRIVER;
	t->skel->rodata->targ_queued = o->queued;
	t->skel->rodata->targ_setup_events = t->drv_setup;
	t->tp_btf = !o->btf_path && !o->force_raw_tp && sgl_probe_tp_btf();
	set_autoload(t);
	t->snap->tp_btf = t->tp_btf;
	bpf_map__set_max_entries(t->skel->maps.stats, t->nslots * SGL_NR_OPS);
	bpf_map__set_max_entries(t->skel->maps.inflight, t->nslots);

	err = sglstat_bpf__load(t->skel);
	if (err) {
		char why[128];

		libbpf_strerror(err, why, sizeof(why));
		fprintf(stderr, "sglstat: cannot load the BPF programs: %s%s\n", why,
			o->btf_path ? "" : " (if the kernel BTF does not match, try --btf PATH)");
		return err;
	}
	t->disks_fd = bpf_map__fd(t->skel->maps.disks);
	t->stats_fd = bpf_map__fd(t->skel->maps.stats);
	t->inflight_fd = bpf_map__fd(t->skel->maps.inflight);

	err = sgl_tracer_rescan(t, true);
	if (err)
		return err;

	err = sglstat_bpf__attach(t->skel);
	if (!err && t->drv)
		err = attach_driver(t);
	if (err == -EAGAIN)
		return err;
	if (err) {
		if (t->drv)
			fprintf(stderr, "sglstat: cannot attach to the virtio_blk_sgl tracepoints: %s (is the virtio_blk_sgl module loaded?)\n",
				strerror(-err));
		else
			fprintf(stderr, "sglstat: cannot attach to the block tracepoints: %s\n", strerror(-err));
		return err;
	}
	snap_mode(t);
	return 0;
}

int sgl_tracer_open(struct sgl_tracer *t, const struct sgl_tracer_opts *o)
{
	int err = tracer_open(t, o, o->setup_events);

	if (err != -EAGAIN)
		return err;
	sgl_tracer_close(t);
	return tracer_open(t, o, true);
}

void sgl_tracer_close(struct sgl_tracer *t)
{
	sglstat_bpf__destroy(t->skel);
	free(t->percpu);
	free(t->zero);
	free(t->snap);
	t->skel = NULL;
	t->percpu = t->zero = NULL;
	t->snap = NULL;
}
