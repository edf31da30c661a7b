// SPDX-License-Identifier: GPL-2.0
/*
 * sgl_btf_need(): which kernels sglstat refuses before loading, from tables
 * of the types each kernel's BTF has (the real 6.1, 6.12 and 6.18 BTF pass
 * in the guest and host tests; tests/reliability/run feeds a real BTF with
 * enum req_op renamed to the whole tool).
 */
#include "tap.h"
#include <errno.h>
#include <string.h>
#include "btf_need.h"

struct kernel {
	const char *const *enums;	/* NULL-terminated */
	const char *const *members;	/* "struct.member", NULL-terminated */
};

static bool in(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static bool has_enum(void *ctx, const char *name)
{
	return in(((struct kernel *)ctx)->enums, name);
}

static bool has_member(void *ctx, const char *type, const char *member)
{
	char s[128];

	snprintf(s, sizeof(s), "%s.%s", type, member);
	return in(((struct kernel *)ctx)->members, s);
}

#define REQUEST_MEMBERS "request.cmd_flags", "request.__data_len", "request.nr_phys_segments", \
	"request.state", "request.start_time_ns", "request.io_start_time_ns", "request.q", \
	"gendisk.major", "gendisk.first_minor"

/* 6.0 and later (6.1, 6.12, 6.18): enum req_op, q->disk */
static const char *const new_enums[] = { "req_op", "mq_rq_state", "rqf_flags", NULL };
static const char *const new_members[] = { REQUEST_MEMBERS, "request_queue.disk", NULL };
/* 5.17..5.19: q->disk, REQ_OP_* still in enum req_opf */
static const char *const opf_enums[] = { "req_opf", "mq_rq_state", NULL };
/* before 5.17 shape: the disk in rq->rq_disk, no q->disk */
static const char *const old_members[] = { REQUEST_MEMBERS, "request.rq_disk", NULL };

static int need(const char *const *enums, const char *const *members, char *why, size_t len)
{
	struct kernel k = { enums, members };
	struct sgl_btf_lookup lk = { has_enum, has_member, &k };

	return sgl_btf_need(&lk, why, len);
}

static void new_kernel_passes(void **state)
{
	char why[256] = "";

	(void)state;
	assert_int_equal(need(new_enums, new_members, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

static void req_opf_kernel_refused(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(need(opf_enums, new_members, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "no enum req_op "));
	assert_non_null(strstr(why, "Linux 6.0 or later"));
	assert_null(strchr(why, '\n'));
}

static void rq_disk_kernel_refused(void **state)
{
	char why[256];

	(void)state;
	/* the first thing missing is named: with enum req_op present, q->disk */
	assert_int_equal(need(new_enums, old_members, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "struct request_queue member disk"));
	assert_non_null(strstr(why, "rq->rq_disk"));
	assert_non_null(strstr(why, "Linux 6.0 or later"));
}

static void missing_request_field_named(void **state)
{
	static const char *const members[] = { "request.cmd_flags", "request.__data_len",
		"request.nr_phys_segments", "request.state", "request.start_time_ns",
		"request.q", "gendisk.major", "gendisk.first_minor", "request_queue.disk", NULL };
	char why[256];

	(void)state;
	assert_int_equal(need(new_enums, members, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "struct request member io_start_time_ns"));
}

static void short_buffer_truncates(void **state)
{
	char why[16];

	(void)state;
	memset(why, 'x', sizeof(why));
	assert_int_equal(need(opf_enums, old_members, why, 8), -ENOTSUP);
	assert_int_equal(strlen(why), 7);
	assert_int_equal(why[8], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_kernel_passes),
		cmocka_unit_test(req_opf_kernel_refused),
		cmocka_unit_test(rq_disk_kernel_refused),
		cmocka_unit_test(missing_request_field_named),
		cmocka_unit_test(short_buffer_truncates),
	};

	return SGL_RUN("btf_need", tests);
}
