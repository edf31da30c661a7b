// SPDX-License-Identifier: GPL-2.0
/* Command line parsing (argp), libbpf-tools style. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "prom_api.h"

const char *argp_program_version = "sglstat " SGLSTAT_VERSION;
/* no bug address: the project has no public tracker to name */

static const char doc[] =
"Trace virtio-blk scatter-gather list use: segments, chained SG tables,\n"
"allocation failures and latency, per disk and per operation.\n"
"\n"
"USAGE: sglstat [OPTION...] [interval [count]]\n"
"       sglstat memory [-d DISK]... [-j] [--stock-inline N]\n"
"       sglstat tune [-d DISK]... [--duration S] [--target-chain-rate X]\n"
"                    [--pick-by bound|observed] [--from FILE]\n"
"                    [--from-prom FILE...] [--from-prom-query FILE]\n"
"                    [--prometheus URL [--range DUR] [--at TIME]\n"
"                     [--prom-selector SEL] [--prom-timeout S]]\n"
"                    [--apply] [--root DIR] [-j]\n"
"\n"
"EXAMPLES:\n"
"    sglstat              # summary at Ctrl-C\n"
"    sglstat 1 10         # 10 one-second intervals\n"
"    sglstat -D -T 5      # per disk, with timestamps, every 5 s\n"
"    sglstat -d vda -j 1  # one JSON object per second for vda\n"
"    sglstat -m -Q 5      # latency in ms, including queueing\n"
"    sglstat --mode stock # trace every disk by the block tracepoints\n"
"    sglstat memory       # SG memory footprint per disk\n"
"    sglstat tune --apply # measure 10 s, write the pick to modprobe.d";

enum {
	OPT_CUMULATIVE = 0x100,
	OPT_MODE,
	OPT_BTF,
	OPT_STOCK_INLINE,
	OPT_RAW_TP,
	OPT_PROM_FILE,
	OPT_DURATION,
	OPT_TARGET,
	OPT_FROM,
	OPT_APPLY,
	OPT_ROOT,
	OPT_FROM_PROM,
	OPT_FROM_PROM_QUERY,
	OPT_PROMETHEUS,
	OPT_RANGE,
	OPT_AT,
	OPT_PROM_SELECTOR,
	OPT_PROM_TIMEOUT,
	OPT_MAX_DISKS,
	OPT_PICK_BY,
	OPT_DISK,
	OPT_SETUP_TIME,
};

/*
 * Option texts: argp prints them from column 29 and wraps at 80, so each
 * stays within 51 columns (a longer one would be reflowed mid-phrase);
 * tests/unit/test_args.c checks every --help line fits 80 columns.
 */
static const struct argp_option opts[] = {
	/*
	 * -d and --disk as two entries: argp prints a note on arguments of
	 * options with both names, a sentence it reflows itself
	 */
	{ NULL, 'd', "DISK", 0, "Trace this disk only (repeatable)", 0 },
	{ "disk", OPT_DISK, "DISK", 0, "The same as -d DISK", 0 },
	{ "disks", 'D', NULL, 0, "Print a report per disk", 0 },
	{ "timestamp", 'T', NULL, 0, "Print a timestamp with each report", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per line per interval", 0 },
	{ "milliseconds", 'm', NULL, 0, "Latency histograms in milliseconds", 0 },
	{ "queued", 'Q', NULL, 0, "Latency includes queueing (start_time_ns)", 0 },
	{ "setup-time", OPT_SETUP_TIME, NULL, 0, "Driver: also trace setups (map time, gauge)", 0 },
	{ "cumulative", OPT_CUMULATIVE, NULL, 0, "Totals since start, not per interval", 0 },
	{ "verbose", 'v', NULL, 0, "Print libbpf debug messages", 0 },
	{ "mode", OPT_MODE, "MODE", 0, "auto (each disk its best way), driver, stock", 0 },
	{ "btf", OPT_BTF, "PATH", 0, "BTF file of the running kernel, for CO-RE", 0 },
	{ "stock-inline", OPT_STOCK_INLINE, "N", 0, "Inline SG count of in-tree disks (default 2)", 0 },
	{ "raw-tp", OPT_RAW_TP, NULL, 0, "Block tracepoints as raw_tp even if tp_btf works", 0 },
	{ "max-disks", OPT_MAX_DISKS, "N", 0, "Disks traced at once (default: present + 4)", 0 },
	{ "prom-file", OPT_PROM_FILE, "PATH", 0, "Rewrite a node_exporter textfile each interval", 0 },
	{ "duration", OPT_DURATION, "S", 0, "tune: seconds to measure (default 10)", 0 },
	{ "target-chain-rate", OPT_TARGET, "X", 0, "tune: max chained fraction (default 0.01)", 0 },
	{ "pick-by", OPT_PICK_BY, "WHAT", 0, "tune: bound (default) or observed", 0 },
	{ "from", OPT_FROM, "FILE", 0, "tune: a saved sglstat -j capture", 0 },
	{ "from-prom", OPT_FROM_PROM, "FILE", 0, "tune: --prom-file textfile(s), FILE...", 0 },
	{ "from-prom-query", OPT_FROM_PROM_QUERY, "FILE", 0, "tune: a Prometheus HTTP API result", 0 },
	{ "prometheus", OPT_PROMETHEUS, "URL", 0, "tune: query this Prometheus (http://HOST:PORT)", 0 },
	{ "range", OPT_RANGE, "DUR", 0, "tune --prometheus: over this range (default 7d)", 0 },
	{ "at", OPT_AT, "TIME", 0, "tune --prometheus: ending at TIME (default now)", 0 },
	{ "prom-selector", OPT_PROM_SELECTOR, "SEL", 0, "tune --prometheus: label matchers", 0 },
	{ "prom-timeout", OPT_PROM_TIMEOUT, "S", 0, "tune --prometheus: timeout (default 30)", 0 },
	{ "apply", OPT_APPLY, NULL, 0, "tune: write etc/modprobe.d/virtio_blk_sgl.conf", 0 },
	{ "root", OPT_ROOT, "DIR", 0, "tune --apply: root directory (default /)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

/* Decimal digits only, 0..@max: 0, -EINVAL (not a number) or -ERANGE. */
static int parse_dec(const char *s, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int sgl_parse_pos_long(const char *s, long max, long *out)
{
	long v;
	int err = parse_dec(s, max, &v);

	if (err)
		return err;
	if (v <= 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int sgl_parse_uint(const char *s, unsigned int max, unsigned int *out)
{
	long v;
	int err = parse_dec(s, (long)max, &v);

	if (err)
		return err;
	*out = (unsigned int)v;
	return 0;
}

int sgl_parse_mode(const char *s, enum sgl_mode *m)
{
	if (!strcmp(s, "driver"))
		*m = SGL_MODE_DRIVER;
	else if (!strcmp(s, "stock"))
		*m = SGL_MODE_STOCK;
	else if (!strcmp(s, "auto"))
		*m = SGL_MODE_AUTO;
	else
		return -EINVAL;
	return 0;
}

struct parse_state {
	struct sgl_env *env;
	int npos;
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct sgl_env *env = ps->env;
	int err;

	switch (key) {
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case OPT_DISK:
	case 'd':
		if (!*arg || strlen(arg) >= 32 || strchr(arg, '/')) {
			fprintf(stderr, "sglstat: invalid disk name '%s': give a name from /sys/block, e.g. vda\n", arg);
			return EINVAL;
		}
		if (env->nr_disks >= (int)(sizeof(env->disks) / sizeof(env->disks[0]))) {
			fprintf(stderr, "sglstat: too many -d DISK (at most 16): leave -d out to trace every disk\n");
			return EINVAL;
		}
		for (int i = 0; i < env->nr_disks; i++)
			if (!strcmp(env->disks[i], arg))
				return 0;	/* given twice: once is enough */
		env->disks[env->nr_disks++] = arg;
		if (!env->disk)
			env->disk = arg;
		break;
	case 'm':
		env->milliseconds = true;
		break;
	case 'Q':
		env->queued = true;
		break;
	case OPT_SETUP_TIME:
		env->setup_time = true;
		break;
	case OPT_MAX_DISKS:
		err = sgl_parse_uint(arg, SGL_MAX_DISKS, &env->max_disks);
		if (err || !env->max_disks) {
			fprintf(stderr, "sglstat: invalid --max-disks '%s': use an integer 1..%d\n", arg, SGL_MAX_DISKS);
			return EINVAL;
		}
		break;
	case OPT_PICK_BY:
		if (!strcmp(arg, "bound")) {
			env->pick_observed = false;
		} else if (!strcmp(arg, "observed")) {
			env->pick_observed = true;
		} else {
			fprintf(stderr, "sglstat: invalid --pick-by '%s': use bound or observed\n", arg);
			return EINVAL;
		}
		env->pick_set = true;
		break;
	case 'D':
		env->per_disk = true;
		break;
	case 'T':
		env->timestamp = true;
		break;
	case 'j':
		env->json = true;
		break;
	case 'v':
		env->verbose = true;
		break;
	case OPT_CUMULATIVE:
		env->cumulative = true;
		break;
	case OPT_MODE:
		if (sgl_parse_mode(arg, &env->mode)) {
			fprintf(stderr, "sglstat: invalid --mode '%s': use driver, stock or auto\n", arg);
			return EINVAL;
		}
		break;
	case OPT_PROM_FILE:
		if (!*arg) {
			fprintf(stderr, "sglstat: empty --prom-file: give a path such as /var/lib/prometheus/node-exporter/virtio_blk_sgl.prom\n");
			return EINVAL;
		}
		env->prom_file = arg;
		break;
	case OPT_DURATION: {
		char *end;

		errno = 0;
		env->tune_duration = strtod(arg, &end);
		if (!*arg || *end || errno || !(env->tune_duration > 0) || env->tune_duration > 86400) {
			fprintf(stderr, "sglstat: invalid --duration '%s': seconds, 0 < S <= 86400\n", arg);
			return EINVAL;
		}
		break;
	}
	case OPT_TARGET: {
		char *end;

		errno = 0;
		env->tune_target = strtod(arg, &end);
		if (!*arg || *end || errno || !(env->tune_target >= 0) || env->tune_target > 1) {
			fprintf(stderr, "sglstat: invalid --target-chain-rate '%s': a fraction 0..1, e.g. 0.05\n", arg);
			return EINVAL;
		}
		break;
	}
	case OPT_FROM:
		env->tune_from = arg;
		break;
	case OPT_FROM_PROM:
		if (env->nr_prom_in >= (int)(sizeof(env->prom_in) / sizeof(env->prom_in[0]))) {
			fprintf(stderr, "sglstat: too many --from-prom files (at most 64)\n");
			return EINVAL;
		}
		env->prom_in[env->nr_prom_in++] = arg;
		break;
	case OPT_FROM_PROM_QUERY:
		env->prom_query = arg;
		break;
	case OPT_PROMETHEUS:
		env->prom_url = arg;
		break;
	case OPT_RANGE:
		if (!sgl_prom_range_valid(arg)) {
			fprintf(stderr, "sglstat: --range '%s' is not a Prometheus duration: e.g. 30m, 6h, 7d\n", arg);
			return EINVAL;
		}
		env->prom_range = arg;
		break;
	case OPT_AT:
		if (!sgl_prom_time_valid(arg)) {
			fprintf(stderr, "sglstat: --at '%s' is not a time: unix seconds or RFC 3339 (2026-12-07T10:00:00Z)\n", arg);
			return EINVAL;
		}
		env->prom_at = arg;
		break;
	case OPT_PROM_SELECTOR:
		if (!sgl_prom_selector_valid(arg)) {
			fprintf(stderr, "sglstat: --prom-selector '%s': label matchers without braces, e.g. job=\"node\",env=~\"prod.*\"\n", arg);
			return EINVAL;
		}
		env->prom_selector = arg;
		break;
	case OPT_PROM_TIMEOUT:
		if (sgl_parse_pos_long(arg, 3600, &env->prom_timeout)) {
			fprintf(stderr, "sglstat: --prom-timeout '%s': seconds, 1 to 3600\n", arg);
			return EINVAL;
		}
		break;
	case OPT_APPLY:
		env->tune_apply = true;
		break;
	case OPT_ROOT:
		if (!*arg) {
			fprintf(stderr, "sglstat: empty --root\n");
			return EINVAL;
		}
		env->tune_root = arg;
		break;
	case OPT_RAW_TP:
		env->force_raw_tp = true;
		break;
	case OPT_BTF:
		env->btf_path = arg;
		break;
	case OPT_STOCK_INLINE:
		err = sgl_parse_uint(arg, 65535, &env->stock_inline);
		if (err) {
			fprintf(stderr, "sglstat: invalid --stock-inline '%s': use an integer 0..65535 (in-tree default 2)\n", arg);
			return EINVAL;
		}
		break;
	case ARGP_KEY_ARG:
		if (ps->npos == 0 && !strcmp(arg, "memory") && !env->memory && !env->tune) {
			env->memory = true;
			break;
		}
		if (ps->npos == 0 && !strcmp(arg, "tune") && !env->memory && !env->tune) {
			env->tune = true;
			break;
		}
		if (env->tune) {
			/* more Prometheus textfiles after --from-prom FILE */
			if (env->nr_prom_in && env->nr_prom_in < 64) {
				env->prom_in[env->nr_prom_in++] = arg;
				break;
			}
			fprintf(stderr, "sglstat: unexpected argument '%s': `sglstat tune` takes options only (see --help)\n", arg);
			return EINVAL;
		}
		if (env->memory) {
			fprintf(stderr, "sglstat: unexpected argument '%s': `sglstat memory` takes no interval\n", arg);
			return EINVAL;
		}
		if (ps->npos == 0 || (ps->npos == 1 && env->interval)) {
			long *dst = env->interval ? &env->count : &env->interval;
			const char *what = env->interval ? "count" : "interval";

			err = sgl_parse_pos_long(arg, env->interval ? LONG_MAX : 86400, dst);
			if (err) {
				fprintf(stderr, "sglstat: invalid %s '%s': must be a positive integer%s\n",
					what, arg, env->interval ? "" : " of seconds (1..86400)");
				return EINVAL;
			}
			ps->npos++;
			break;
		}
		fprintf(stderr, "sglstat: unexpected argument '%s': usage is sglstat [options] [interval [count]]\n", arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* An option of opts[] by its long name or an unambiguous prefix of it. */
static const struct argp_option *find_long(const char *name, size_t n)
{
	const struct argp_option *o, *hit = NULL;
	int hits = 0;

	for (o = opts; o->name || o->key; o++) {
		if (!o->name || strncmp(o->name, name, n))
			continue;
		if (strlen(o->name) == n)
			return o;
		hit = o;
		hits++;
	}
	return hits == 1 ? hit : NULL;
}

static const struct argp_option *find_short(int key)
{
	const struct argp_option *o;

	for (o = opts; o->name || o->key; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/*
 * argp reports an unknown option or a missing value in two lines naming the
 * binary's full path and exits 64: check options first, one line each.
 * argp's own --help, --usage, --version (-?, -V) pass through.
 */
static int check_options(int argc, char **argv)
{
	static const char *const builtin[] = { "help", "usage", "version" };
	const struct argp_option *o;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1] || (a[1] >= '0' && a[1] <= '9'))
			continue;
		if (a[1] == '-') {
			size_t n = strcspn(a + 2, "="), b;
			bool known = false;

			for (b = 0; b < sizeof(builtin) / sizeof(builtin[0]); b++)
				known |= n && !strncmp(builtin[b], a + 2, n);
			if (known)
				continue;
			o = find_long(a + 2, n);
			if (!o) {
				fprintf(stderr, "sglstat: unknown option '%s': see sglstat --help\n", a);
				return EINVAL;
			}
			if (o->arg && !a[2 + n] && ++i >= argc) {
				fprintf(stderr, "sglstat: option '--%s' needs a value (%s): see sglstat --help\n",
					o->name, o->arg);
				return EINVAL;
			}
			continue;
		}
		for (const char *c = a + 1; *c; c++) {
			if (*c == '?' || *c == 'V')
				continue;
			o = find_short(*c);
			if (!o) {
				fprintf(stderr, "sglstat: unknown option '-%c': see sglstat --help\n", *c);
				return EINVAL;
			}
			if (!o->arg)
				continue;
			if (!c[1] && ++i >= argc) {
				fprintf(stderr, "sglstat: option '-%c' needs a value (%s): see sglstat --help\n",
					*c, o->arg);
				return EINVAL;
			}
			break;
		}
	}
	return 0;
}

int sgl_parse_args(int argc, char **argv, struct sgl_env *env, unsigned int argp_flags)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	struct parse_state ps = { .env = env };
	int err;

	memset(env, 0, sizeof(*env));
	if (check_options(argc, argv))
		return EINVAL;
	/* argp would take "-1" for an option: name the real problem instead */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			break;
		const char *prev = argv[i - 1];

		/* the value of an option that takes one is that option's business */
		if (i > 1 && (!strcmp(prev, "-d") || !strcmp(prev, "--disk") || !strcmp(prev, "--mode") ||
			      !strcmp(prev, "--btf") || !strcmp(prev, "--stock-inline") ||
			      !strcmp(prev, "--max-disks") || !strcmp(prev, "--pick-by") ||
			      !strcmp(prev, "--duration") || !strcmp(prev, "--target-chain-rate")))
			continue;
		if (a[0] == '-' && a[1] >= '0' && a[1] <= '9') {
			fprintf(stderr, "sglstat: invalid interval or count '%s': must be a positive integer\n", a);
			return EINVAL;
		}
	}
	env->mode = SGL_MODE_AUTO;
	env->stock_inline = 2;
	env->tune_duration = 10;
	env->tune_target = 0.01;
	err = argp_parse(&argp, argc, argv, argp_flags, NULL, &ps);
	if (err)
		return err;
	if (env->prom_file && !env->interval) {
		fprintf(stderr, "sglstat: --prom-file needs an interval: e.g. sglstat --prom-file %s 15\n",
			env->prom_file);
		return EINVAL;
	}
	if (!env->tune && (env->tune_from || env->tune_apply || env->tune_root || env->nr_prom_in ||
			   env->prom_query || env->prom_url)) {
		fprintf(stderr, "sglstat: --from, --from-prom, --from-prom-query, --prometheus, --apply and --root belong to `sglstat tune`\n");
		return EINVAL;
	}
	if (!env->prom_url && (env->prom_range || env->prom_at || env->prom_selector || env->prom_timeout)) {
		fprintf(stderr, "sglstat: --range, --at, --prom-selector and --prom-timeout belong to `sglstat tune --prometheus URL`\n");
		return EINVAL;
	}
	if (env->prom_url && (env->tune_from || env->nr_prom_in || env->prom_query)) {
		fprintf(stderr, "sglstat: tune: use either --prometheus or --from/--from-prom/--from-prom-query\n");
		return EINVAL;
	}
	if (env->tune && (env->interval || env->cumulative || env->timestamp || env->prom_file)) {
		fprintf(stderr, "sglstat: `sglstat tune` takes no interval, --cumulative, -T or --prom-file\n");
		return EINVAL;
	}
	if (!env->tune && env->pick_set) {
		fprintf(stderr, "sglstat: --pick-by belongs to `sglstat tune`\n");
		return EINVAL;
	}
	if (env->tune && env->tune_from && (env->nr_prom_in || env->prom_query)) {
		fprintf(stderr, "sglstat: tune: use either --from or --from-prom/--from-prom-query\n");
		return EINVAL;
	}
	if (env->memory && (env->interval || env->cumulative || env->timestamp || env->milliseconds ||
			    env->queued || env->max_disks || env->setup_time)) {
		fprintf(stderr, "sglstat: `sglstat memory` takes only -d, -j, --stock-inline\n");
		return EINVAL;
	}
	return 0;
}
