// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel types sglstat's BPF programs need (bpf/sglstat.bpf.c), and the
 * hint for an older kernel's one-line error.
 * Pure: the lookups come from the caller (libbpf's btf__find_by_name_kind()
 * in sglstat.c, a table in tests/unit/test_btf_need.c).
 */
#include <errno.h>
#include <stdio.h>
#include "btf_need.h"

static const struct {
	const char *type, *member;	/* member NULL: type is an enum */
	const char *hint;
} needs[] = {
	/* op_class(): REQ_OP_* as CO-RE enum values */
	{ "req_op", NULL, "an enum since 6.0; enum req_opf before" },
	{ "mq_rq_state", NULL, NULL },
	/* stock mode reaches the disk through the queue */
	{ "request_queue", "disk", "older kernels reach the disk through rq->rq_disk" },
	{ "request", "cmd_flags", NULL },
	{ "request", "__data_len", NULL },
	{ "request", "nr_phys_segments", NULL },
	{ "request", "state", NULL },
	{ "request", "start_time_ns", NULL },
	{ "request", "io_start_time_ns", NULL },
	{ "request", "q", NULL },
	{ "gendisk", "major", NULL },
	{ "gendisk", "first_minor", NULL },
};

int sgl_btf_need(const struct sgl_btf_lookup *lk, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
		bool ok = needs[i].member ?
			lk->has_member(lk->ctx, needs[i].type, needs[i].member) :
			lk->has_enum(lk->ctx, needs[i].type);

		if (ok)
			continue;
		if (needs[i].member)
			snprintf(why, len, "this kernel's BTF has no struct %s member %s%s%s%s: sglstat needs Linux %s or later",
				 needs[i].type, needs[i].member, needs[i].hint ? " (" : "",
				 needs[i].hint ? needs[i].hint : "", needs[i].hint ? ")" : "",
				 SGL_BTF_OLDEST);
		else
			snprintf(why, len, "this kernel's BTF has no enum %s%s%s%s: sglstat needs Linux %s or later",
				 needs[i].type, needs[i].hint ? " (" : "",
				 needs[i].hint ? needs[i].hint : "", needs[i].hint ? ")" : "",
				 SGL_BTF_OLDEST);
		return -ENOTSUP;
	}
	return 0;
}
