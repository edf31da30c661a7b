// SPDX-License-Identifier: GPL-2.0
/*
 * sglstat: trace virtio-blk scatter-gather list use (segments, chained SG
 * tables, sg_pool allocation failures, latency) per disk and operation.
 *
 * This file keeps the loop and the printing, as libbpf-tools do: the BPF
 * side is tracer.c, the probes before loading probe.c, the subcommands
 * without BPF cmd.c, the formatters report_*.c.  See docs/SGLSTAT.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "args.h"
#include "cmd.h"
#include "disks.h"
#include "entry_bytes.h"
#include "probe.h"
#include "report.h"
#include "report_prom.h"
#include "tracer.h"

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

static void report(struct sgl_tracer *t)
{
	struct sgl_report_opts o = {
		.per_disk = env.per_disk,
		.timestamp = env.timestamp,
		.cumulative = env.cumulative,
		.milliseconds = env.milliseconds,
		.queued = env.queued,
	};

	if (env.json)
		sgl_report_json(stdout, t->snap, &o);
	else
		sgl_report_text(stdout, t->snap, &o);
}

/* Sleep until @deadline (monotonic) or a signal; rescan disks every second. */
static void wait_until(struct sgl_tracer *t, double deadline)
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
			sgl_tracer_rescan(t, false);	/* hot-plugged / removed disks */
	}
}

/* The end of `sglstat tune` measuring live: exit status. */
static int tune_live(struct sgl_tracer *t)
{
	struct sgl_tune_set set = { 0 };
	int rc;

	if (sgl_tune_from_snapshot(t->snap, sgl_sysfs_root(), env.stock_inline, &set)) {
		fprintf(stderr, "sglstat: out of memory\n");
		rc = 1;
	} else {
		rc = sgl_cmd_tune_finish(&env, &set, "live", false);
	}
	sgl_tune_set_free(&set);
	return rc;
}

int main(int argc, char **argv)
{
	struct sgl_tracer_opts to = {};
	struct sgl_prom_meta prom_meta;
	struct sgl_tracer t = {};
	double start, last, deadline;
	long reports = 0;
	int err, rc = 1;

	if (sgl_parse_args(argc, argv, &env, 0))
		return 2;
	sgl_set_entry_bytes(sgl_btf_sg_entry_bytes(sgl_sysfs_root(), env.btf_path));
	if (env.memory)
		return sgl_cmd_memory(&env);
	if (env.tune && (env.tune_from || env.nr_prom_in || env.prom_query || env.prom_url))
		return sgl_cmd_tune_files(&env);

	if (!sgl_have_privs()) {
		fprintf(stderr, "sglstat: need root, or CAP_BPF and CAP_PERFMON, to load BPF programs: run it with sudo\n");
		return 1;
	}
	if (sgl_check_btf(sgl_sysfs_root(), env.btf_path))
		return 1;
	if (env.prom_file) {
		if (sgl_prom_check_target(env.prom_file))
			return 1;
		sgl_prom_meta_init(&prom_meta, SGLSTAT_VERSION, sgl_sysfs_root());
	}

	libbpf_set_print(libbpf_print_fn);
	to.mode = env.mode;
	to.disks = env.disks;
	to.nr_disks = env.nr_disks;
	to.stock_inline = env.stock_inline;
	to.btf_path = env.btf_path;
	to.force_raw_tp = env.force_raw_tp;
	to.queued = env.queued;
	to.setup_events = env.setup_time;
	to.max_disks = env.max_disks;
	err = sgl_tracer_open(&t, &to);
	if (err)
		goto cleanup;

	/* SIGHUP too: a hangup must not kill it between a temp file and its rename */
	if (signal(SIGINT, sig_handler) == SIG_ERR || signal(SIGTERM, sig_handler) == SIG_ERR ||
	    signal(SIGHUP, sig_handler) == SIG_ERR) {
		fprintf(stderr, "sglstat: cannot set signal handlers: %s\n", strerror(errno));
		goto cleanup;
	}

	fprintf(stderr, "sglstat: mode %s (%s), %u disk slots\n",
		t.drv && t.stock ? "auto" : t.drv ? "driver" : "stock", sgl_tracer_describe(&t), t.nslots);
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
		if (sgl_tracer_collect(&t, now - last, now - start))
			goto cleanup;
		last = now;
		if (env.tune) {
			rc = tune_live(&t);
			goto cleanup;
		}
		report(&t);
		if (env.prom_file) {
			int e = sgl_prom_write(env.prom_file, t.snap, &prom_meta);

			if (e)
				fprintf(stderr, "sglstat: cannot write %s: %s (the previous file is left as it was)\n",
					env.prom_file, strerror(-e));
		}
		sgl_tracer_reported(&t);
		reports++;
		if (exiting || (env.count && reports >= env.count) || !env.interval)
			break;
	}
	rc = 0;

cleanup:
	sgl_tracer_close(&t);
	if (env.prom_file)
		sgl_prom_meta_free(&prom_meta);
	return rc;
}
