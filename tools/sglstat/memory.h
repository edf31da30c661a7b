/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_MEMORY_H
#define SGLSTAT_MEMORY_H

#include <stdio.h>
#include <linux/types.h>
#include <stdbool.h>
#include "disks.h"

struct sgl_mem_info {
	char name[32];
	enum sgl_disk_kind kind;
	__u64 nr_hw_queues, queue_depth, max_segments, inline_cnt;
	__u64 nr_requests_total;	/* requests with a PDU */
	bool estimated;			/* stock driver: nr_requests_total estimated */
	bool inline_assumed;		/* stock driver: inline count assumed */
	__u64 full_prealloc_bytes;	/* nr_requests_total * max_segments * 32 */
	__u64 inline_bytes;		/* nr_requests_total * inline_cnt * 32 */
	bool peak_known;		/* driver: chained_bytes_peak in sysfs */
	__u64 peak_chained_bytes;
	__s64 saved_bytes;		/* full - (inline + peak); stock: full - inline */
	/* driver with sgl/pdu_alloc_bytes(_prealloc): what blk-mq really allocates */
	bool pdu_known;			/* both files read */
	bool pdu_saved_known;		/* pdu_known and prealloc layout allocatable (!= 0) */
	__u64 pdu_alloc_bytes, pdu_alloc_bytes_prealloc;
	__s64 pdu_saved_bytes;		/* pdu_alloc_bytes_prealloc - pdu_alloc_bytes */
	char scheduler[32];
};

/* Gather the memory figures of one disk: 0 or -errno. */
int sgl_mem_read(const char *root, const struct sgl_disk_info *d, unsigned int stock_inline,
		 struct sgl_mem_info *m);
/* Geometry of snapshot disk @d (max_segments, nr_requests_total) into d->geo. */
int sgl_disk_geo(const char *root, struct sgl_disk_snap *d, unsigned int stock_inline);
/* In-tree driver disks: memory gauges (block-layer sysfs, estimated) into d->mem. */
int sgl_disk_mem_fill(const char *root, struct sgl_disk_snap *d);
void sgl_mem_print_text(FILE *out, const struct sgl_mem_info *m, int n);
void sgl_mem_print_json(FILE *out, const struct sgl_mem_info *m, int n);

#endif
