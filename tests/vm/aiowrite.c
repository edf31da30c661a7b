// SPDX-License-Identifier: GPL-2.0
/*
 * aiowrite - O_DIRECT writes submitted at once with Linux AIO, then read
 * back and verified, for the virtio_blk_sgl guest tests.
 *
 *   aiowrite DEV COUNT KIB SECTOR
 *
 * Writes COUNT requests of KIB KiB each from SECTOR, a KIB gap after each
 * (so that they do not merge into one request), all
 * submitted with one io_submit(2); waits for them in io_getevents(2), an
 * interruptible sleep, so that the freezer can freeze this process while
 * its requests are still in flight in the driver (a process in a
 * synchronous pwrite(2) sleeps uninterruptibly and holds up the freezer
 * until its I/O is done); then reads everything back with pread(2) and
 * compares.  Exit status: 0 ok, 1 I/O or verify error (message on
 * stderr), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAXREQ	64

static uint64_t pat(uint64_t off)
{
	return (off / 8) * 0x9e3779b97f4a7c15ULL ^ 0xa10a10a10a10a10aULL;
}

int main(int argc, char **argv)
{
	struct iocb cbs[MAXREQ], *cbp[MAXREQ];
	struct io_event ev[MAXREQ];
	aio_context_t ctx = 0;
	unsigned long count, kib;
	unsigned long long sector;
	size_t len, done = 0;
	char *buf, *rd;
	int fd, n;

	if (argc != 5)
		goto usage;
	count = strtoul(argv[2], NULL, 0);
	kib = strtoul(argv[3], NULL, 0);
	sector = strtoull(argv[4], NULL, 0);
	if (!count || count > MAXREQ || !kib || kib > 1024)
		goto usage;
	len = kib * 1024;
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "aiowrite: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (posix_memalign((void **)&buf, 4096, len * count) ||
	    posix_memalign((void **)&rd, 4096, len))
		return 1;
	for (size_t i = 0; i < len * count; i += 8) {
		uint64_t w = pat(sector * 512 + i / len * 2 * len + i % len);

		memcpy(buf + i, &w, 8);
	}
	if (syscall(SYS_io_setup, MAXREQ, &ctx)) {
		fprintf(stderr, "aiowrite: io_setup: %s\n", strerror(errno));
		return 1;
	}
	memset(cbs, 0, sizeof(cbs));
	for (unsigned long i = 0; i < count; i++) {
		cbs[i].aio_fildes = fd;
		cbs[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		cbs[i].aio_buf = (uintptr_t)(buf + i * len);
		cbs[i].aio_nbytes = len;
		/* a gap after each: requests that do not merge */
		cbs[i].aio_offset = sector * 512 + i * 2 * len;
		cbp[i] = &cbs[i];
	}
	n = syscall(SYS_io_submit, ctx, (long)count, cbp);
	if (n != (int)count) {
		fprintf(stderr, "aiowrite: io_submit: %d of %lu: %s\n", n, count,
			strerror(errno));
		return 1;
	}
	while (done < count) {
		n = syscall(SYS_io_getevents, ctx, 1L, (long)(count - done), ev, NULL);
		if (n < 0 && errno == EINTR)
			continue;	/* frozen and thawed: wait on */
		if (n < 0) {
			fprintf(stderr, "aiowrite: io_getevents: %s\n", strerror(errno));
			return 1;
		}
		for (int i = 0; i < n; i++)
			if ((long long)ev[i].res != (long long)len) {
				fprintf(stderr, "aiowrite: write failed: res %lld\n",
					(long long)ev[i].res);
				return 1;
			}
		done += n;
	}
	for (unsigned long i = 0; i < count; i++) {
		if (pread(fd, rd, len, sector * 512 + i * 2 * len) != (ssize_t)len) {
			fprintf(stderr, "aiowrite: read back %lu: %s\n", i, strerror(errno));
			return 1;
		}
		if (memcmp(rd, buf + i * len, len)) {
			fprintf(stderr, "aiowrite: request %lu reads back wrong\n", i);
			return 1;
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: aiowrite DEV COUNT KIB SECTOR (COUNT 1..%d, KIB 1..1024)\n", MAXREQ);
	return 2;
}
