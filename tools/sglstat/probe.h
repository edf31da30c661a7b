/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel and process can do: privileges, BTF, tp_btf. */
#ifndef SGLSTAT_PROBE_H
#define SGLSTAT_PROBE_H

#include <stdbool.h>

/* root, or CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN */
bool sgl_have_privs(void);
/* Can a tp_btf program attach to block_rq_issue on this kernel? */
bool sgl_probe_tp_btf(void);
/*
 * The kernel BTF (@root/kernel/btf/vmlinux) or @btf_path must exist and have
 * the types the programs relocate against (btf_need.c).  0, or -errno after
 * one line on stderr naming what is missing and the fix.
 */
int sgl_check_btf(const char *root, const char *btf_path);
/* sizeof(struct scatterlist) in that BTF; 0 when there is none to read. */
unsigned int sgl_btf_sg_entry_bytes(const char *root, const char *btf_path);

#endif
