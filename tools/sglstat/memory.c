// SPDX-License-Identifier: GPL-2.0
/*
 * `sglstat memory`: SG memory footprint per disk, from sysfs only.
 *
 * Our driver exports every figure (docs/ABI.md, /sys/block/X/sgl/).  For the
 * in-tree driver it is estimated from the block layer's sysfs:
 *   nr_requests_total = sum over hw queues of mq/N/nr_tags
 *                     + nr_hw_queues * queue/nr_requests when a scheduler is
 *                       set (scheduler tags get PDUs too)
 *                     + nr_hw_queues (one flush request per hw queue),
 * inline count 2 (VIRTIO_BLK_INLINE_SG_CNT, or --stock-inline), and no peak
 * of runtime chained bytes (the stock driver keeps no counter).
 *
 * Our driver also models what blk-mq really allocates for the requests
 * (sgl/pdu_alloc_bytes, and pdu_alloc_bytes_prealloc for the prealloc layout:
 * 64 KiB page-block packing, kmalloc'd flush requests); the real saving is
 * their difference.  Read when present (older driver builds lack them).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memory.h"
#include "json.h"
#include "entry_bytes.h"

static int read_sched(const char *root, const char *name, char *out, size_t len)
{
	char p[PATH_MAX], buf[256], *a, *b;
	int err;

	snprintf(p, sizeof(p), "%s/block/%s/queue/scheduler", root, name);
	err = sgl_read_line(p, buf, sizeof(buf));
	if (err)
		return err;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!a || !b) {
		/* "none" alone (no brackets) when only one choice exists */
		buf[strcspn(buf, " \n")] = 0;
		sgl_strcpy(out, len, buf);
		return 0;
	}
	*b = 0;
	sgl_strcpy(out, len, a + 1);
	return 0;
}

/* sgl/pdu_alloc_bytes(_prealloc), optional: m->pdu_known stays false without them. */
static void read_pdu(const char *root, const char *name, struct sgl_mem_info *m)
{
	char p[PATH_MAX];
	__u64 cur, pre;

	snprintf(p, sizeof(p), "%s/block/%s/sgl/pdu_alloc_bytes", root, name);
	if (sgl_read_u64(p, &cur))
		return;
	snprintf(p, sizeof(p), "%s/block/%s/sgl/pdu_alloc_bytes_prealloc", root, name);
	if (sgl_read_u64(p, &pre))
		return;
	m->pdu_known = true;
	m->pdu_alloc_bytes = cur;
	m->pdu_alloc_bytes_prealloc = pre;
	/* 0: a prealloc request would not fit a 64 KiB block (not allocatable) */
	m->pdu_saved_known = pre != 0;
	if (m->pdu_saved_known)
		m->pdu_saved_bytes = (__s64)pre - (__s64)cur;
}

static int stock_mem(const char *root, const char *name, struct sgl_mem_info *m)
{
	char p[PATH_MAX];
	struct dirent *e;
	__u64 tags_sum = 0, v, nr_requests = 0;
	DIR *dir;
	int err;

	snprintf(p, sizeof(p), "%s/block/%s/mq", root, name);
	dir = opendir(p);
	if (!dir)
		return -errno;
	m->nr_hw_queues = 0;
	while ((e = readdir(dir))) {
		char *end;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		strtoul(e->d_name, &end, 10);
		if (*end)
			continue;
		snprintf(p, sizeof(p), "%s/block/%s/mq/%s/nr_tags", root, name, e->d_name);
		err = sgl_read_u64(p, &v);
		if (err) {
			closedir(dir);
			return err;
		}
		if (!m->nr_hw_queues || v > m->queue_depth)
			m->queue_depth = v;
		tags_sum += v;
		m->nr_hw_queues++;
	}
	closedir(dir);
	if (!m->nr_hw_queues)
		return -ENOENT;
	snprintf(p, sizeof(p), "%s/block/%s/queue/max_segments", root, name);
	err = sgl_read_u64(p, &m->max_segments);
	if (err)
		return err;
	snprintf(p, sizeof(p), "%s/block/%s/queue/nr_requests", root, name);
	err = sgl_read_u64(p, &nr_requests);
	if (err)
		return err;
	if (read_sched(root, name, m->scheduler, sizeof(m->scheduler)))
		strcpy(m->scheduler, "?");
	m->nr_requests_total = tags_sum + m->nr_hw_queues;
	if (strcmp(m->scheduler, "none"))
		m->nr_requests_total += m->nr_hw_queues * nr_requests;
	m->estimated = true;
	return 0;
}

int sgl_mem_read(const char *root, const struct sgl_disk_info *d, unsigned int stock_inline,
		 struct sgl_mem_info *m)
{
	struct sgl_drv_sysfs s;
	int err;

	memset(m, 0, sizeof(*m));
	sgl_strcpy(m->name, sizeof(m->name), d->name);
	m->kind = d->kind;
	if (d->kind == SGL_DISK_VSGL) {
		err = sgl_read_drv_sysfs(root, d->name, &s);
		if (err)
			return err;
		m->nr_hw_queues = s.nr_hw_queues;
		m->queue_depth = s.queue_depth;
		m->max_segments = s.max_segments;
		m->inline_cnt = s.inline_sg_cnt;
		m->nr_requests_total = s.nr_requests_total;
		m->full_prealloc_bytes = s.sg_full_prealloc_bytes;
		m->inline_bytes = s.sg_prealloc_bytes;
		m->peak_known = true;
		m->peak_chained_bytes = s.chained_bytes_peak;
		if (read_sched(root, d->name, m->scheduler, sizeof(m->scheduler)))
			strcpy(m->scheduler, "?");
		read_pdu(root, d->name, m);
	} else {
		err = stock_mem(root, d->name, m);
		if (err)
			return err;
		m->inline_cnt = stock_inline;
		m->inline_assumed = true;
		m->full_prealloc_bytes = m->nr_requests_total * m->max_segments * SGL_ENTRY_BYTES;
		m->inline_bytes = m->nr_requests_total * m->inline_cnt * SGL_ENTRY_BYTES;
	}
	m->saved_bytes = (__s64)m->full_prealloc_bytes - (__s64)m->inline_bytes -
			 (__s64)m->peak_chained_bytes;
	return 0;
}

int sgl_disk_geo(const char *root, struct sgl_disk_snap *d, unsigned int stock_inline)
{
	struct sgl_disk_info info;
	struct sgl_mem_info m;
	int err;

	memset(&d->geo, 0, sizeof(d->geo));
	memset(&info, 0, sizeof(info));
	sgl_strcpy(info.name, sizeof(info.name), d->name);
	info.major = d->major;
	info.first_minor = d->first_minor;
	info.kind = d->kind;
	err = sgl_mem_read(root, &info, stock_inline, &m);
	if (err)
		return err;
	d->geo.valid = true;
	d->geo.estimated = m.estimated;
	d->geo.max_segments = m.max_segments;
	d->geo.nr_requests_total = m.nr_requests_total;
	return 0;
}

int sgl_disk_mem_fill(const char *root, struct sgl_disk_snap *d)
{
	struct sgl_disk_info info;
	struct sgl_mem_info mi;
	int err;

	memset(&d->mem, 0, sizeof(d->mem));
	if (d->kind != SGL_DISK_VIRTIO_BLK || !d->present)
		return 0;
	memset(&info, 0, sizeof(info));
	sgl_strcpy(info.name, sizeof(info.name), d->name);
	info.major = d->major;
	info.first_minor = d->first_minor;
	info.kind = d->kind;
	err = sgl_mem_read(root, &info, d->inline_cnt, &mi);
	if (err)
		return err;
	d->mem.valid = true;
	d->mem.nr_hw_queues = mi.nr_hw_queues;
	d->mem.queue_depth = mi.queue_depth;
	d->mem.max_segments = mi.max_segments;
	d->mem.nr_requests_total = mi.nr_requests_total;
	d->mem.full_prealloc_bytes = mi.full_prealloc_bytes;
	d->mem.inline_bytes = mi.inline_bytes;
	return 0;
}

static const char *human(__u64 b, char *buf, size_t len)
{
	if (b >= 10ULL << 20)
		snprintf(buf, len, "%.1f MiB", b / 1048576.0);
	else if (b >= 10ULL << 10)
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	return buf;
}

void sgl_mem_print_text(FILE *out, const struct sgl_mem_info *m, int n)
{
	char b1[32];
	int i;

	for (i = 0; i < n; i++, m++) {
		fprintf(out, "%s (%s)\n", m->name, sgl_kind_name(m->kind));
		fprintf(out, "  hw queues %llu, queue depth %llu, max segments %llu, scheduler %s\n",
			(unsigned long long)m->nr_hw_queues, (unsigned long long)m->queue_depth,
			(unsigned long long)m->max_segments, m->scheduler);
		fprintf(out, "  requests with a PDU     %10llu%s\n",
			(unsigned long long)m->nr_requests_total,
			m->estimated ? "  (estimated from mq/*/nr_tags, nr_requests, scheduler)" : "");
		fprintf(out, "  inline SG count         %10llu%s\n", (unsigned long long)m->inline_cnt,
			m->inline_assumed ? "  (assumed: in-tree VIRTIO_BLK_INLINE_SG_CNT)" : "");
		fprintf(out, "  full preallocation      %10llu bytes (%s)\n",
			(unsigned long long)m->full_prealloc_bytes, human(m->full_prealloc_bytes, b1, sizeof(b1)));
		fprintf(out, "  inline arrays           %10llu bytes (%s)\n",
			(unsigned long long)m->inline_bytes, human(m->inline_bytes, b1, sizeof(b1)));
		if (m->peak_known)
			fprintf(out, "  peak chained (runtime)  %10llu bytes (%s)\n",
				(unsigned long long)m->peak_chained_bytes,
				human(m->peak_chained_bytes, b1, sizeof(b1)));
		else
			fprintf(out, "  peak chained (runtime)     unknown  (stock driver keeps no counter; run sglstat)\n");
		fprintf(out, "  memory saved            %10lld bytes (%s)%s\n",
			(long long)m->saved_bytes,
			human(m->saved_bytes < 0 ? 0 : (__u64)m->saved_bytes, b1, sizeof(b1)),
			m->peak_known ? "" : "  (upper bound: runtime chained bytes not subtracted)");
		if (!m->pdu_known)
			continue;
		fprintf(out, "  blk-mq request memory   %10llu bytes (%s)  (sgl/pdu_alloc_bytes)\n",
			(unsigned long long)m->pdu_alloc_bytes, human(m->pdu_alloc_bytes, b1, sizeof(b1)));
		if (!m->pdu_saved_known) {
			fprintf(out, "  same, prealloc layout   %10s  (a request would not fit a 64 KiB block)\n",
				"n/a");
			continue;
		}
		fprintf(out, "  same, prealloc layout   %10llu bytes (%s)\n",
			(unsigned long long)m->pdu_alloc_bytes_prealloc,
			human(m->pdu_alloc_bytes_prealloc, b1, sizeof(b1)));
		fprintf(out, "  real memory saved       %10lld bytes (%s)  (prealloc layout - in force)\n",
			(long long)m->pdu_saved_bytes,
			human(m->pdu_saved_bytes < 0 ? 0 : (__u64)m->pdu_saved_bytes, b1, sizeof(b1)));
	}
}

void sgl_mem_print_json(FILE *out, const struct sgl_mem_info *m, int n)
{
	int i;

	fputs("{\"disks\":[", out);
	for (i = 0; i < n; i++, m++) {
		fputs(i ? ",{" : "{", out);
		fputs("\"name\":", out);
		sgl_json_str(out, m->name);
		fputs(",\"driver\":", out);
		sgl_json_str(out, sgl_kind_name(m->kind));
		fputs(",\"scheduler\":", out);
		sgl_json_str(out, m->scheduler);
		fprintf(out, ",\"nr_hw_queues\":%llu,\"queue_depth\":%llu,\"max_segments\":%llu,"
			"\"inline_cnt\":%llu,\"inline_assumed\":%s,\"nr_requests_total\":%llu,"
			"\"estimated\":%s,\"full_prealloc_bytes\":%llu,\"inline_bytes\":%llu,",
			(unsigned long long)m->nr_hw_queues, (unsigned long long)m->queue_depth,
			(unsigned long long)m->max_segments, (unsigned long long)m->inline_cnt,
			m->inline_assumed ? "true" : "false", (unsigned long long)m->nr_requests_total,
			m->estimated ? "true" : "false", (unsigned long long)m->full_prealloc_bytes,
			(unsigned long long)m->inline_bytes);
		if (m->peak_known)
			fprintf(out, "\"peak_chained_bytes\":%llu,", (unsigned long long)m->peak_chained_bytes);
		else
			fputs("\"peak_chained_bytes\":null,", out);
		fprintf(out, "\"saved_bytes\":%lld,\"saved_is_upper_bound\":%s,",
			(long long)m->saved_bytes, m->peak_known ? "false" : "true");
		if (m->pdu_known)
			fprintf(out, "\"pdu_alloc_bytes\":%llu,\"pdu_alloc_bytes_prealloc\":%llu,",
				(unsigned long long)m->pdu_alloc_bytes,
				(unsigned long long)m->pdu_alloc_bytes_prealloc);
		else
			fputs("\"pdu_alloc_bytes\":null,\"pdu_alloc_bytes_prealloc\":null,", out);
		if (m->pdu_saved_known)
			fprintf(out, "\"pdu_saved_bytes\":%lld}", (long long)m->pdu_saved_bytes);
		else
			fputs("\"pdu_saved_bytes\":null}", out);
	}
	fputs("]}\n", out);
}
