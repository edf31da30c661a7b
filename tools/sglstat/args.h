/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_ARGS_H
#define SGLSTAT_ARGS_H

#include <stdbool.h>
#include "snapshot.h"

/* From the top-level VERSION file (tools/sglstat/sglstat.mk). */
#ifndef SGLSTAT_VERSION
#define SGLSTAT_VERSION "unknown"
#endif

struct sgl_env {
	bool memory;		/* `sglstat memory` subcommand */
	enum sgl_mode mode;
	const char *disk;	/* -d: the first one given */
	const char *disks[16];	/* -d DISK, may be given more than once */
	int nr_disks;
	bool milliseconds;	/* -m: latency histograms in ms */
	bool queued;		/* -Q: latency includes queueing (start_time_ns) */
	bool setup_time;	/* --setup-time: driver setup events too */
	unsigned int max_disks;	/* --max-disks: BPF slots (0: disks present + 4) */
	bool per_disk;		/* -D */
	bool timestamp;		/* -T */
	bool json;		/* -j */
	bool cumulative;
	bool verbose;		/* -v: libbpf debug output */
	const char *btf_path;	/* --btf */
	unsigned int stock_inline;
	bool force_raw_tp;	/* --raw-tp: stock mode with the raw_tp twins */
	long interval;		/* seconds; 0 = single report at exit */
	long count;		/* reports; 0 = unlimited */
	const char *prom_file;	/* --prom-file: node_exporter textfile, rewritten each interval */
	/* `sglstat tune` */
	bool tune;
	double tune_duration;	/* --duration, seconds (default 10) */
	double tune_target;	/* --target-chain-rate (default SGL_TUNE_DEFAULT_TARGET) */
	const char *tune_from;	/* --from: a saved sglstat -j capture */
	bool tune_apply;	/* --apply */
	const char *tune_root;	/* --root (default /) */
	const char *prom_in[64];	/* --from-prom FILE... */
	int nr_prom_in;
	const char *prom_query;	/* --from-prom-query FILE */
	const char *prom_url;	/* --prometheus URL: query its HTTP API */
	const char *prom_range;	/* --range (default 7d) */
	const char *prom_at;	/* --at: evaluation time (default now) */
	const char *prom_selector;	/* --prom-selector: label matchers */
	long prom_timeout;	/* --prom-timeout, seconds (default 30) */
	bool pick_observed;	/* --pick-by observed (default: bound) */
	bool pick_set;		/* --pick-by given */
};

/* Strict positive decimal integer <= @max: 0 or -EINVAL / -ERANGE. */
int sgl_parse_pos_long(const char *s, long max, long *out);
/* Non-negative integer <= @max (for --stock-inline). */
int sgl_parse_uint(const char *s, unsigned int max, unsigned int *out);
int sgl_parse_mode(const char *s, enum sgl_mode *m);

/*
 * Parse the command line into @env (defaults set first).  @argp_flags go to
 * argp_parse (tests pass ARGP_NO_EXIT).  Returns 0, or a positive errno after
 * printing one line naming the problem to stderr.
 */
int sgl_parse_args(int argc, char **argv, struct sgl_env *env, unsigned int argp_flags);

#endif
