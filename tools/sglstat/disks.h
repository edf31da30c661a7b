/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SGLSTAT_DISKS_H
#define SGLSTAT_DISKS_H

#include <linux/types.h>
#include <stdbool.h>
#include "snapshot.h"

#define SGL_SCAN_MAX	256

#include <string.h>
/* Copy @src into @dst of @n bytes, truncating, always terminated. */
static inline void sgl_strcpy(char *dst, size_t n, const char *src)
{
	size_t l = strnlen(src, n - 1);

	memcpy(dst, src, l);
	dst[l] = 0;
}

struct sgl_disk_info {
	char name[32];
	unsigned int major, first_minor;
	enum sgl_disk_kind kind;
};

/* Root of sysfs ("/sys", or $SGLSTAT_SYSFS_ROOT for tests). */
const char *sgl_sysfs_root(void);

/* First line of a file into @buf (fgets: newline kept): 0, -errno, or
 * -EINVAL if it is empty. */
int sgl_read_line(const char *path, char *buf, size_t len);
/* Read one decimal unsigned value (one line) from a file: 0 or -errno. */
int sgl_read_u64(const char *path, __u64 *val);
/* Parse "MAJ:MIN\n": 0 or -EINVAL. */
int sgl_parse_dev(const char *s, unsigned int *major, unsigned int *minor);

/* Kind of /sys/block/@name: VSGL if it has sgl/, VIRTIO_BLK if its device
 * driver is virtio_blk (driver link or virtio block modalias), else OTHER;
 * -ENOENT if the disk does not exist. */
int sgl_disk_kind(const char *root, const char *name);

/*
 * sgl_disk_get() failed with @err for -d @name: one line on stderr that tells
 * a disk that is not there from one whose sysfs files cannot be read, which
 * needs a different fix.
 */
void sgl_disk_explain_error(const char *root, const char *name, int err);

/* Fill @d for disk @name: 0 or -errno (-ENOENT: no such disk). */
int sgl_disk_get(const char *root, const char *name, struct sgl_disk_info *d);

/* All virtio disks (both kinds) in @root/block, sorted by name; count or -errno. */
int sgl_scan_disks(const char *root, struct sgl_disk_info *out, int max);

/*
 * BPF slots (stats map entries / SGL_NR_OPS) for @present virtio disks:
 * --max-disks if given, else the disks present plus room for 4 hot-plugged
 * ones, 1..SGL_MAX_DISKS.  Departed disks give their slot back.
 */
unsigned int sgl_disk_slots(unsigned int max_disks, unsigned int present);

/* Our driver's /sys/block/@name/sgl/ counters: 0 or -errno. */
int sgl_read_drv_sysfs(const char *root, const char *name, struct sgl_drv_sysfs *s);

#endif
