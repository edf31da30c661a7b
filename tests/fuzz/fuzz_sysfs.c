// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: everything sglstat reads from sysfs. A fake sysfs tree holds
 * one virtio_blk_sgl disk and one in-tree virtio_blk disk; the input is
 * split at newlines-pairs into the contents of their files in a fixed
 * order, then the disk scan, the driver counters and the memory figures are
 * read as sglstat does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>
#include "disks.h"
#include "memory.h"

static char root[PATH_MAX];

static const char *const files[] = {
	"block/vsgla/dev", "block/vsgla/sgl/inline_sg_cnt", "block/vsgla/sgl/max_segments",
	"block/vsgla/sgl/nr_hw_queues", "block/vsgla/sgl/queue_depth",
	"block/vsgla/sgl/nr_requests_total", "block/vsgla/sgl/sg_prealloc_bytes",
	"block/vsgla/sgl/sg_full_prealloc_bytes", "block/vsgla/sgl/requests_mapped",
	"block/vsgla/sgl/requests_chained", "block/vsgla/sgl/chained_bytes_peak",
	"block/vda/dev", "block/vda/queue/max_segments", "block/vda/queue/nr_requests",
	"block/vda/queue/scheduler", "block/vda/device/modalias", "block/vda/mq/0/nr_tags",
};

static void mkparents(const char *path)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s", path);
	for (s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	}
}

static void put(const char *rel, const char *data, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	mkparents(p);
	f = fopen(p, "w");
	if (!f)
		return;
	fwrite(data, 1, len, f);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(root, sizeof(root), "/tmp/sglstat-fuzz-sysfs.%d", (int)getpid());
	mkdir(root, 0755);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *d = (const char *)data, *end = d + size;
	struct sgl_disk_info disks[8];
	struct sgl_drv_sysfs s;
	struct sgl_mem_info m;
	unsigned int i, ma, mi;
	int n, k;

	if (size > 8192)
		return 0;
	/* fields are separated by "\n\n"; missing fields become empty files */
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *sep = d < end ? memmem(d, end - d, "\n\n", 2) : NULL;
		size_t len = d < end ? (size_t)((sep ? sep : end) - d) : 0;

		put(files[i], d, len);
		d = sep ? sep + 2 : end;
	}
	n = sgl_scan_disks(root, disks, 8);
	for (k = 0; k < n; k++) {
		sgl_read_drv_sysfs(root, disks[k].name, &s);
		sgl_mem_read(root, &disks[k], 2, &m);
	}
	sgl_disk_get(root, "vsgla", &disks[0]);
	{
		char line[64];
		size_t l = size < sizeof(line) - 1 ? size : sizeof(line) - 1;

		memcpy(line, data, l);
		line[l] = 0;
		sgl_parse_dev(line, &ma, &mi);
	}
	return 0;
}
