/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_BTF_NEED_H
#define SGLSTAT_BTF_NEED_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What the BPF programs relocate against (CO-RE), checked in the kernel's
 * BTF before loading so that an older kernel gets one line naming what it
 * lacks instead of libbpf's relocation and verifier dump.  The oldest
 * kernel with all of it is Linux 6.0 (enum req_op); see docs/SGLSTAT.md.
 */
#define SGL_BTF_OLDEST	"6.0"

struct sgl_btf_lookup {
	/* has an enum @name (ENUM or ENUM64) */
	bool (*has_enum)(void *ctx, const char *name);
	/* struct @type exists and has a member @member */
	bool (*has_member)(void *ctx, const char *type, const char *member);
	void *ctx;
};

/*
 * 0 when the BTF has everything; -ENOTSUP with a one-line reason in @why
 * (without "sglstat: " and without a newline) otherwise.
 */
int sgl_btf_need(const struct sgl_btf_lookup *lk, char *why, size_t len);

#endif
