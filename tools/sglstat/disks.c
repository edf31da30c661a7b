// SPDX-License-Identifier: GPL-2.0
/* /sys/block scanning, virtio detection, driver sysfs reading. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "disks.h"

const char *sgl_sysfs_root(void)
{
	const char *r = getenv("SGLSTAT_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

int sgl_read_line(const char *path, char *buf, size_t len)
{
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	return 0;
}

int sgl_read_u64(const char *path, __u64 *val)
{
	char buf[64], *end;
	unsigned long long v;
	int err;

	err = sgl_read_line(path, buf, sizeof(buf));
	if (err)
		return err;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || (*end && *end != '\n'))
		return -EINVAL;
	*val = v;
	return 0;
}

int sgl_parse_dev(const char *s, unsigned int *major, unsigned int *minor)
{
	unsigned int ma, mi;
	char tail;
	int n;

	n = sscanf(s, "%u:%u%c", &ma, &mi, &tail);
	if (n < 2 || (n == 3 && tail != '\n'))
		return -EINVAL;
	if (ma >= (1u << 12) || mi >= (1u << 20))
		return -EINVAL;
	*major = ma;
	*minor = mi;
	return 0;
}

static bool path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

int sgl_disk_kind(const char *root, const char *name)
{
	char p[PATH_MAX], link[PATH_MAX], buf[128];
	const char *base;
	ssize_t n;

	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -ENOENT;
	snprintf(p, sizeof(p), "%s/block/%s", root, name);
	if (!path_exists(p))
		return -ENOENT;
	snprintf(p, sizeof(p), "%s/block/%s/sgl", root, name);
	if (path_exists(p))
		return SGL_DISK_VSGL;
	snprintf(p, sizeof(p), "%s/block/%s/device/driver", root, name);
	n = readlink(p, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (!strcmp(base, "virtio_blk"))
			return SGL_DISK_VIRTIO_BLK;
		if (!strcmp(base, "virtio_blk_sgl"))
			return SGL_DISK_VSGL;
	}
	/* virtio device id 2 = block */
	snprintf(p, sizeof(p), "%s/block/%s/device/modalias", root, name);
	if (!sgl_read_line(p, buf, sizeof(buf)) && !strncmp(buf, "virtio:d00000002v", 17))
		return SGL_DISK_VIRTIO_BLK;
	return SGL_DISK_OTHER;
}

void sgl_disk_explain_error(const char *root, const char *name, int err)
{
	if (sgl_disk_kind(root, name) < 0)
		fprintf(stderr, "sglstat: unknown disk '%s': not in %s/block (list disks with lsblk)\n",
			name, root);
	else
		fprintf(stderr, "sglstat: disk '%s': cannot read %s/block/%s/dev: %s (is sysfs mounted and readable?)\n",
			name, root, name, strerror(-err));
}

int sgl_disk_get(const char *root, const char *name, struct sgl_disk_info *d)
{
	char p[PATH_MAX], buf[64];
	int kind, err;

	kind = sgl_disk_kind(root, name);
	if (kind < 0)
		return kind;
	if (strlen(name) >= sizeof(d->name))
		return -ENAMETOOLONG;
	snprintf(p, sizeof(p), "%s/block/%s/dev", root, name);
	err = sgl_read_line(p, buf, sizeof(buf));
	if (err)
		return err;
	err = sgl_parse_dev(buf, &d->major, &d->first_minor);
	if (err)
		return err;
	strcpy(d->name, name);
	d->kind = kind;
	return 0;
}

static int cmp_info(const void *a, const void *b)
{
	return strcmp(((const struct sgl_disk_info *)a)->name,
		      ((const struct sgl_disk_info *)b)->name);
}

int sgl_scan_disks(const char *root, struct sgl_disk_info *out, int max)
{
	char p[PATH_MAX];
	struct dirent *e;
	int n = 0;
	DIR *dir;

	snprintf(p, sizeof(p), "%s/block", root);
	dir = opendir(p);
	if (!dir)
		return -errno;
	while ((e = readdir(dir)) && n < max) {
		struct sgl_disk_info d;

		if (e->d_name[0] == '.')
			continue;
		if (sgl_disk_get(root, e->d_name, &d))
			continue;
		if (d.kind == SGL_DISK_OTHER)
			continue;
		out[n++] = d;
	}
	closedir(dir);
	qsort(out, n, sizeof(*out), cmp_info);
	return n;
}

int sgl_read_drv_sysfs(const char *root, const char *name, struct sgl_drv_sysfs *s)
{
	static const struct { const char *file; size_t off; } f[] = {
#define F(x) { #x, __builtin_offsetof(struct sgl_drv_sysfs, x) }
		F(inline_sg_cnt), F(max_segments), F(nr_hw_queues), F(queue_depth),
		F(nr_requests_total), F(sg_prealloc_bytes), F(sg_full_prealloc_bytes),
		F(requests_mapped), F(requests_chained), F(chain_alloc_failures),
		F(chain_alloc_injected), F(retries), F(chained_bytes_now),
		F(chained_bytes_peak), F(requests_completed), F(io_errors),
#undef F
	};
	char p[PATH_MAX];
	size_t i;
	int err;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(p, sizeof(p), "%s/block/%s/sgl/%s", root, name, f[i].file);
		err = sgl_read_u64(p, (__u64 *)((char *)s + f[i].off));
		if (err)
			return err;
	}
	s->valid = true;
	return 0;
}

unsigned int sgl_disk_slots(unsigned int max_disks, unsigned int present)
{
	unsigned int n = max_disks ? max_disks : present + 4;

	if (n < 1)
		n = 1;
	return n > SGL_MAX_DISKS ? SGL_MAX_DISKS : n;
}
