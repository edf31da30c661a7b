// SPDX-License-Identifier: GPL-2.0
/* expect-results: 6 (tests/unit/run fails this test with fewer result lines) */
/* Command line parsing. */
#include "tap.h"
#include <argp.h>
#include <stdlib.h>
#include <string.h>
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
		cmocka_unit_test(all_options),
		cmocka_unit_test(memory_subcommand),
		cmocka_unit_test(bad_values),
		cmocka_unit_test(pos_long),
	};

	return SGL_RUN("unit_args", tests);
}
