// SPDX-License-Identifier: GPL-2.0
/* expect-results: 6 (tests/unit/run fails this test with fewer result lines) */
/* Command line parsing. */
#include "tap.h"
#include <argp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "args.h"

static int parse(struct sgl_env *env, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "sglstat";
	va_start(ap, env);
	while ((a = va_arg(ap, char *)))
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return sgl_parse_args(argc, argv, env, ARGP_NO_EXIT);
}

static void defaults(void **state)
{
	struct sgl_env e;

	(void)state;
	assert_int_equal(parse(&e, NULL), 0);
	assert_int_equal(e.mode, SGL_MODE_AUTO);
	assert_int_equal(e.interval, 0);
	assert_int_equal(e.count, 0);
	assert_int_equal(e.stock_inline, 2);
	assert_false(e.json);
	assert_false(e.cumulative);
	assert_null(e.disk);
	assert_false(e.memory);
}

/* -d more than once, -m, -Q, --max-disks, --pick-by */
static void new_options(void **state)
{
	struct sgl_env e;

	(void)state;
	assert_int_equal(parse(&e, "-d", "vda", "-d", "vsgla", "-d", "vda", "-m", "-Q",
			       "--max-disks", "3", NULL), 0);
	assert_int_equal(e.nr_disks, 2);
	assert_string_equal(e.disks[0], "vda");
	assert_string_equal(e.disks[1], "vsgla");
	assert_string_equal(e.disk, "vda");
	assert_true(e.milliseconds && e.queued);
	assert_int_equal(e.max_disks, 3);
	assert_int_not_equal(parse(&e, "--max-disks", "0", NULL), 0);
	assert_int_not_equal(parse(&e, "--max-disks", "65", NULL), 0);
	assert_int_equal(parse(&e, "tune", "--pick-by", "observed", NULL), 0);
	assert_true(e.pick_observed);
	assert_int_equal(parse(&e, "tune", NULL), 0);
	assert_false(e.pick_observed);
	assert_int_not_equal(parse(&e, "tune", "--pick-by", "both", NULL), 0);
	assert_int_not_equal(parse(&e, "--pick-by", "bound", NULL), 0);	/* tune only */
	assert_int_not_equal(parse(&e, "memory", "-m", NULL), 0);
}

/* The --help text, with ARGP_HELP_FMT set to @fmt (NULL: unset), into @buf. */
static void help_text(const char *fmt, char *buf, size_t len)
{
	char path[] = "/tmp/sgl-help.XXXXXX";
	int fd = mkstemp(path), saved = dup(1);
	struct sgl_env e;
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	if (fmt)
		setenv("ARGP_HELP_FMT", fmt, 1);
	else
		unsetenv("ARGP_HELP_FMT");
	fflush(stdout);
	dup2(fd, 1);
	parse(&e, "--help", NULL);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	assert_true(n > 0);
	buf[n] = 0;
	close(fd);
	unlink(path);
	unsetenv("ARGP_HELP_FMT");
}

/*
 * --help: every line fits 80 columns and argp reflows nothing (the text is
 * the same as with a 250-column margin, where argp wraps nothing), and no
 * bug address is printed (the project has none to give).
 */
static void help_fits(void **state)
{
	static char narrow[16384], wide[16384];
	const char *l = narrow;
	int lines = 0;

	(void)state;
	help_text(NULL, narrow, sizeof(narrow));
	help_text("rmargin=250", wide, sizeof(wide));
	while (*l) {
		size_t n = strcspn(l, "\n");

		lines++;
		if (n > 80)
			fail_msg("help line %d longer than 80 columns: '%.*s'", lines, (int)n, l);
		l += n + (l[n] == '\n');
	}
	assert_true(lines > 20);
	assert_null(strstr(narrow, "Report bugs"));
	assert_string_equal(narrow, wide);
}

static void interval_count(void **state)
{
	struct sgl_env e;

	(void)state;
	assert_int_equal(parse(&e, "1", "10", NULL), 0);
	assert_int_equal(e.interval, 1);
	assert_int_equal(e.count, 10);
	assert_int_equal(parse(&e, "5", NULL), 0);
	assert_int_equal(e.interval, 5);
	assert_int_equal(e.count, 0);
}

static void all_options(void **state)
{
	struct sgl_env e;

	(void)state;
	assert_int_equal(parse(&e, "-d", "vsgla", "-D", "-T", "-j", "--cumulative", "-v",
			       "--mode", "driver", "--btf", "/tmp/x.btf", "--stock-inline", "4",
			       "--raw-tp", "2", "3", NULL), 0);
	assert_string_equal(e.disk, "vsgla");
	assert_true(e.per_disk && e.timestamp && e.json && e.cumulative && e.verbose && e.force_raw_tp);
	assert_int_equal(e.mode, SGL_MODE_DRIVER);
	assert_string_equal(e.btf_path, "/tmp/x.btf");
	assert_int_equal(e.stock_inline, 4);
	assert_int_equal(e.interval, 2);
	assert_int_equal(e.count, 3);
	assert_int_equal(parse(&e, "--mode", "stock", "--json", NULL), 0);
	assert_int_equal(e.mode, SGL_MODE_STOCK);
	assert_true(e.json);
	assert_int_equal(parse(&e, "--stock-inline", "0", NULL), 0);
	assert_int_equal(e.stock_inline, 0);
}

static void memory_subcommand(void **state)
{
	struct sgl_env e;

	(void)state;
	assert_int_equal(parse(&e, "memory", NULL), 0);
	assert_true(e.memory);
	assert_int_equal(parse(&e, "memory", "-d", "vda", "-j", NULL), 0);
	assert_true(e.memory && e.json);
	assert_string_equal(e.disk, "vda");
	assert_int_not_equal(parse(&e, "memory", "5", NULL), 0);
	assert_int_not_equal(parse(&e, "memory", "--cumulative", NULL), 0);
}

static void bad_values(void **state)
{
	struct sgl_env e;

	(void)state;
	assert_int_not_equal(parse(&e, "0", NULL), 0);
	assert_int_not_equal(parse(&e, "-1", NULL), 0);
	assert_int_not_equal(parse(&e, "abc", NULL), 0);
	assert_int_not_equal(parse(&e, "1x", NULL), 0);
	assert_int_not_equal(parse(&e, "", NULL), 0);
	assert_int_not_equal(parse(&e, "+1", NULL), 0);
	assert_int_not_equal(parse(&e, "1", "0", NULL), 0);
	assert_int_not_equal(parse(&e, "1", "-5", NULL), 0);
	assert_int_not_equal(parse(&e, "1", "2", "3", NULL), 0);
	assert_int_not_equal(parse(&e, "99999999999999999999", NULL), 0);
	assert_int_not_equal(parse(&e, "86401", NULL), 0);
	assert_int_not_equal(parse(&e, "--mode", "fast", NULL), 0);
	assert_int_not_equal(parse(&e, "--stock-inline", "x", NULL), 0);
	assert_int_not_equal(parse(&e, "--stock-inline", "-2", NULL), 0);
	assert_int_not_equal(parse(&e, "--stock-inline", "70000", NULL), 0);
	assert_int_not_equal(parse(&e, "-d", "../etc", NULL), 0);
	assert_int_not_equal(parse(&e, "-d", "", NULL), 0);
}

static void pos_long(void **state)
{
	long v = 0;

	(void)state;
	assert_int_equal(sgl_parse_pos_long("7", 10, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(sgl_parse_pos_long("10", 10, &v), 0);
	assert_int_not_equal(sgl_parse_pos_long("11", 10, &v), 0);
	assert_int_not_equal(sgl_parse_pos_long("0", 10, &v), 0);
	assert_int_not_equal(sgl_parse_pos_long(" 1", 10, &v), 0);
	assert_int_not_equal(sgl_parse_pos_long("1 ", 10, &v), 0);
	assert_int_not_equal(sgl_parse_pos_long(NULL, 10, &v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(interval_count),
		cmocka_unit_test(new_options),
		cmocka_unit_test(help_fits),
		cmocka_unit_test(all_options),
		cmocka_unit_test(memory_subcommand),
		cmocka_unit_test(bad_values),
		cmocka_unit_test(pos_long),
	};

	return SGL_RUN("unit_args", tests);
}
