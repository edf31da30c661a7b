// SPDX-License-Identifier: GPL-2.0
/*
 * holdopen - keep a block device open across its removal, then use it, for
 * the virtio_blk_sgl guest tests (tests/vm/cases/driver-unplug-open.sh).
 *
 *   holdopen DEV GOFILE
 *
 * Opens DEV (O_RDONLY | O_DIRECT), prints "opened" and waits (up to 300 s)
 * until GOFILE exists; then, on the same descriptor, prints one line per
 * call: "getgeo RC ERRNO heads sectors cylinders", "size64 RC ERRNO bytes",
 * "read RC ERRNO", "fsync RC ERRNO", "close RC ERRNO" (RC is the call's
 * return value, ERRNO its errno name or 0).  Exit status: 0 when every line
 * was printed, 1 when DEV could not be opened, 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/hdreg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char *ename(int rc, int err)
{
	static char buf[32];

	if (rc >= 0)
		return "0";
	switch (err) {
	case ENXIO: return "ENXIO";
	case EIO: return "EIO";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	default:
		snprintf(buf, sizeof(buf), "E%d", err);
		return buf;
	}
}

int main(int argc, char **argv)
{
	struct hd_geometry geo;
	uint64_t bytes = 0;
	void *buf;
	int fd, rc, i;

	if (argc != 3) {
		fprintf(stderr, "usage: holdopen DEV GOFILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "holdopen: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	printf("opened\n");
	fflush(stdout);
	for (i = 0; i < 3000 && access(argv[2], F_OK); i++)
		usleep(100000);

	memset(&geo, 0, sizeof(geo));
	rc = ioctl(fd, HDIO_GETGEO, &geo);
	printf("getgeo %d %s %u %u %u\n", rc, ename(rc, errno), geo.heads,
	       geo.sectors, geo.cylinders);
	rc = ioctl(fd, BLKGETSIZE64, &bytes);
	printf("size64 %d %s %llu\n", rc, ename(rc, errno),
	       (unsigned long long)bytes);
	if (posix_memalign(&buf, 4096, 4096))
		return 1;
	rc = (int)pread(fd, buf, 4096, 0);
	printf("read %d %s\n", rc, ename(rc, errno));
	rc = fsync(fd);
	printf("fsync %d %s\n", rc, ename(rc, errno));
	rc = close(fd);
	printf("close %d %s\n", rc, ename(rc, errno));
	free(buf);
	return 0;
}
