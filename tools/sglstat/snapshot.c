// SPDX-License-Identifier: GPL-2.0
/* Pure arithmetic on struct sgl_stats / sgl_snapshot (no BPF, no I/O). */
#include <stddef.h>
#include <string.h>
#include "snapshot.h"

#define NWORDS (sizeof(struct sgl_stats) / sizeof(__u64))

void sgl_stats_add(struct sgl_stats *dst, const struct sgl_stats *src)
{
	__u64 *d = (__u64 *)dst;
	const __u64 *s = (const __u64 *)src;
	size_t i;

	for (i = 0; i < NWORDS; i++)
		d[i] += s[i];
}

/* dst = a - b, word by word (counters are monotonic while attached). */
void sgl_stats_sub(struct sgl_stats *dst, const struct sgl_stats *a, const struct sgl_stats *b)
{
	__u64 *d = (__u64 *)dst;
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	size_t i;

	for (i = 0; i < NWORDS; i++)
		d[i] = x[i] - y[i];
}

#define W(s, field)	((offsetof(struct sgl_stats, field)) / sizeof(__u64))

void sgl_disk_update(struct sgl_disk_snap *d, const struct sgl_stats now[SGL_NR_OPS])
{
	unsigned int op, k;
	size_t i;

	for (op = 0; op < SGL_NR_OPS; op++) {
		const __u64 *n = (const __u64 *)&now[op];
		__u64 *raw = (__u64 *)&d->raw[op], *acc = (__u64 *)&d->acc[op];
		__u64 *cum = (__u64 *)&d->cum[op], *delta = (__u64 *)&d->delta[op];
		__u64 rd[NWORDS];

		for (i = 0; i < NWORDS; i++) {
			rd[i] = n[i] - raw[i];		/* mod 2^64 */
			acc[i] += rd[i];
			raw[i] = n[i];
			/* cum = max(cum, acc), comparing as a signed difference */
			if ((__s64)(acc[i] - cum[i]) > 0) {
				delta[i] = acc[i] - cum[i];
				cum[i] = acc[i];
			} else {
				delta[i] = 0;
			}
		}
		for (k = 0; k < SGL_NR_LAT; k++)
			d->wide[op].lat_ns[k] += rd[W(s, c.lat_sum_ns[k])];
		d->wide[op].setup_ns += rd[W(s, c.setup_sum_ns)];
	}
	d->wide_valid = true;
}

void sgl_disk_slot_reset(struct sgl_disk_snap *d)
{
	memset(d->raw, 0, sizeof(d->raw));
}

enum sgl_mode sgl_disk_mode(const struct sgl_snapshot *snap, const struct sgl_disk_snap *d)
{
	return d->mode != SGL_MODE_AUTO ? d->mode : snap->mode;
}

unsigned __int128 sgl_disk_lat_sum(const struct sgl_disk_snap *d, unsigned int op, int kind)
{
	return d->wide_valid ? d->wide[op].lat_ns[kind] : d->cum[op].c.lat_sum_ns[kind];
}

unsigned __int128 sgl_disk_setup_sum(const struct sgl_disk_snap *d, unsigned int op)
{
	return d->wide_valid ? d->wide[op].setup_ns : d->cum[op].c.setup_sum_ns;
}

void sgl_disk_total(const struct sgl_disk_snap *d, bool cumulative, struct sgl_stats *out)
{
	unsigned int op;

	memset(out, 0, sizeof(*out));
	for (op = 0; op < SGL_NR_OPS; op++)
		sgl_stats_add(out, cumulative ? &d->cum[op] : &d->delta[op]);
}

void sgl_snapshot_sum_disks(const struct sgl_snapshot *snap, struct sgl_disk_snap *out)
{
	unsigned int i, op;
	bool same_inline = true;

	memset(out, 0, sizeof(*out));
	strcpy(out->name, "all");
	out->present = true;
	out->wide_valid = true;
	for (i = 0; i < snap->nr_disks; i++) {
		const struct sgl_disk_snap *d = &snap->disk[i];

		for (op = 0; op < SGL_NR_OPS; op++) {
			unsigned int k;

			sgl_stats_add(&out->cum[op], &d->cum[op]);
			sgl_stats_add(&out->delta[op], &d->delta[op]);
			for (k = 0; k < SGL_NR_LAT; k++)
				out->wide[op].lat_ns[k] += sgl_disk_lat_sum(d, op, k);
			out->wide[op].setup_ns += sgl_disk_setup_sum(d, op);
		}
		if (i == 0)
			out->mode = sgl_disk_mode(snap, d);
		else if (out->mode != sgl_disk_mode(snap, d))
			out->mode = SGL_MODE_AUTO;
		out->chained_now += d->chained_now;
		out->chained_peak += d->chained_peak;	/* sum of peaks: an upper bound */
		if (i == 0) {
			out->inline_cnt = d->inline_cnt;
			out->kind = d->kind;
		} else if (d->inline_cnt != out->inline_cnt) {
			same_inline = false;
		}
		out->inline_assumed |= d->inline_assumed;
	}
	if (!same_inline)
		out->inline_cnt = 0;
}

const char *sgl_op_name(unsigned int op)
{
	static const char *const names[SGL_NR_OPS] = {
		"read", "write", "flush", "discard", "write_zeroes", "other",
	};

	return op < SGL_NR_OPS ? names[op] : "?";
}

const char *sgl_mode_name(enum sgl_mode m)
{
	switch (m) {
	case SGL_MODE_DRIVER: return "driver";
	case SGL_MODE_STOCK: return "stock";
	default: return "auto";
	}
}

const char *sgl_kind_name(enum sgl_disk_kind k)
{
	switch (k) {
	case SGL_DISK_VIRTIO_BLK: return "virtio_blk";
	case SGL_DISK_VSGL: return "virtio_blk_sgl";
	default: return "other";
	}
}
