// SPDX-License-Identifier: GPL-2.0
/* Privilege, BTF and tp_btf probes, done before the BPF object is loaded. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf_need.h"
#include "probe.h"

bool sgl_have_privs(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	unsigned long long eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = ((unsigned long long)data[1].effective << 32) | data[0].effective;
#define CAPB(c) (1ULL << (c))
	if (eff & CAPB(21 /* CAP_SYS_ADMIN */))
		return true;
	return (eff & CAPB(39 /* CAP_BPF */)) && (eff & CAPB(38 /* CAP_PERFMON */));
#undef CAPB
}

bool sgl_probe_tp_btf(void)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	struct btf *vmlinux;
	int id, fd;

	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		return false;
	id = btf__find_by_name_kind(vmlinux, "btf_trace_block_rq_issue", BTF_KIND_TYPEDEF);
	btf__free(vmlinux);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static bool btf_has_enum(void *ctx, const char *name)
{
	return btf__find_by_name_kind(ctx, name, BTF_KIND_ENUM) > 0 ||
	       btf__find_by_name_kind(ctx, name, BTF_KIND_ENUM64) > 0;
}

static bool btf_has_member(void *ctx, const char *type, const char *member)
{
	int id = btf__find_by_name_kind(ctx, type, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(ctx, id) : NULL;
	const struct btf_member *m;
	int i;

	if (!t)
		return false;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(ctx, m->name_off);

		if (n && !strcmp(n, member))
			return true;
	}
	return false;
}

/* The types the programs relocate against: one line naming what is missing. */
static int check_kernel_btf(const char *path)
{
	struct btf *btf = btf__parse(path, NULL);
	struct sgl_btf_lookup lk = { btf_has_enum, btf_has_member, btf };
	char why[256];
	int err;

	if (!btf) {
		fprintf(stderr, "sglstat: cannot parse the kernel BTF %s: %s: pass --btf PATH to a BTF file of this kernel\n",
			path, strerror(errno));
		return -EINVAL;
	}
	err = sgl_btf_need(&lk, why, sizeof(why));
	btf__free(btf);
	if (err)
		fprintf(stderr, "sglstat: %s\n", why);
	return err;
}

int sgl_check_btf(const char *root, const char *btf_path)
{
	struct btf *custom;
	char path[512];

	snprintf(path, sizeof(path), "%s/kernel/btf/vmlinux", root);
	if (btf_path) {
		if (access(btf_path, R_OK)) {
			fprintf(stderr, "sglstat: cannot read --btf %s: %s\n", btf_path, strerror(errno));
			return -errno;
		}
		/* parse it here: libbpf would print pages and end in its own errno */
		libbpf_set_print(NULL);
		custom = btf__parse(btf_path, NULL);
		if (!custom) {
			fprintf(stderr, "sglstat: --btf %s is not a BTF file: pass this kernel's BTF (e.g. a copy of /sys/kernel/btf/vmlinux)\n",
				btf_path);
			return -EINVAL;
		}
		btf__free(custom);
	} else if (access(path, R_OK)) {
		fprintf(stderr, "sglstat: kernel has no BTF (%s missing): pass --btf PATH to a BTF file of this kernel\n",
			path);
		return -ENOENT;
	}
	libbpf_set_print(NULL);
	return check_kernel_btf(btf_path ? btf_path : path);
}

unsigned int sgl_btf_sg_entry_bytes(const char *root, const char *btf_path)
{
	struct btf *btf;
	char path[512];
	__s64 size;
	int id;

	snprintf(path, sizeof(path), "%s/kernel/btf/vmlinux", root);
	libbpf_set_print(NULL);
	btf = btf__parse(btf_path ? btf_path : path, NULL);
	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "scatterlist", BTF_KIND_STRUCT);
	size = id > 0 ? btf__resolve_size(btf, id) : 0;
	btf__free(btf);
	return size > 0 && size < 4096 ? (unsigned int)size : 0;
}
