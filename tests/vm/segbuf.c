// SPDX-License-Identifier: GPL-2.0
/*
 * segbuf - block I/O with a known number of segments per request, and the
 * block ioctls busybox lacks, for the virtio_blk_sgl guest tests.
 *
 *   segbuf write DEV NSEGS COUNT SECTOR   COUNT O_DIRECT pwritev()s
 *   segbuf read  DEV NSEGS COUNT SECTOR   the same reads, verifying the data
 *   segbuf discard|zeroout|punch DEV SECTOR NSECT
 *                                         BLKDISCARD, BLKZEROOUT, or
 *                                         fallocate(PUNCH_HOLE) (zeroes with
 *                                         unmap allowed)
 *   segbuf checkzero DEV SECTOR NSECT     fail unless the range reads zeroes
 *   segbuf geo DEV                        print HDIO_GETGEO: heads sectors cyls
 *   segbuf hog MB                         fragment memory: take MB, give back
 *                                         every other page, then sleep (run
 *                                         it in the background); later page
 *                                         allocations get isolated pages, so
 *                                         fio buffers span many segments
 *
 * Each request of NSEGS iovecs uses the first half page of NSEGS different
 * pages.  Two such pieces are never physically contiguous (one ends in the
 * middle of a page, the next starts at a page boundary), so the block layer
 * cannot merge them: a request has exactly NSEGS physical segments as long
 * as NSEGS <= 256 (one bio) and the queue limits allow it.  Requests are
 * issued one at a time, so they do not merge with each other either.
 * Exit status: 0 ok, 1 I/O or verify error (message on stderr), 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/hdreg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#define PIECE	2048		/* bytes used of each page */
#define MAXSEGS	256

static long page;

static void usage(void)
{
	fprintf(stderr,
		"usage: segbuf write|read DEV NSEGS COUNT SECTOR\n"
		"       segbuf discard|zeroout|punch|checkzero DEV SECTOR NSECT\n"
		"       segbuf geo DEV\n"
		"       segbuf hog MB\n");
	exit(2);
}

static unsigned long long num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s)
		usage();
	return v;
}

/* Pattern word for byte offset @off of the device: verifies placement. */
static uint64_t pat(uint64_t off)
{
	return (off / 8) * 0x9e3779b97f4a7c15ULL ^ 0x5e6b0f5e6b0f5e6bULL;
}

static void fill(char *p, uint64_t devoff)
{
	for (size_t i = 0; i < PIECE; i += 8) {
		uint64_t w = pat(devoff + i);

		memcpy(p + i, &w, 8);
	}
}

static int rw(int write, const char *dev, unsigned int nsegs,
	      unsigned long long count, unsigned long long sector)
{
	struct iovec iov[MAXSEGS];
	char *buf;
	int fd, bad = 0;

	if (!nsegs || nsegs > MAXSEGS) {
		fprintf(stderr, "segbuf: NSEGS must be 1..%d\n", MAXSEGS);
		return 2;
	}
	buf = mmap(NULL, (size_t)nsegs * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("segbuf: mmap");
		return 1;
	}
	fd = open(dev, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "segbuf: open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	for (unsigned int i = 0; i < nsegs; i++) {
		iov[i].iov_base = buf + (size_t)i * page;
		iov[i].iov_len = PIECE;
	}
	for (unsigned long long r = 0; r < count; r++) {
		off_t off = (off_t)(sector * 512 + r * (unsigned long long)nsegs * PIECE);
		ssize_t n, want = (ssize_t)nsegs * PIECE;

		for (unsigned int i = 0; i < nsegs; i++) {
			if (write)
				fill(iov[i].iov_base, off + (uint64_t)i * PIECE);
			else
				memset(iov[i].iov_base, 0xa5, PIECE);
		}
		n = write ? pwritev(fd, iov, nsegs, off) : preadv(fd, iov, nsegs, off);
		if (n != want) {
			fprintf(stderr, "segbuf: %s at %lld: %s (%zd of %zd)\n",
				write ? "pwritev" : "preadv", (long long)off,
				n < 0 ? strerror(errno) : "short", n, want);
			close(fd);
			return 1;
		}
		if (write)
			continue;
		for (unsigned int i = 0; i < nsegs; i++) {
			char expect[PIECE];

			fill(expect, off + (uint64_t)i * PIECE);
			if (memcmp(expect, iov[i].iov_base, PIECE)) {
				fprintf(stderr, "segbuf: data mismatch at %lld\n",
					(long long)(off + (off_t)i * PIECE));
				bad = 1;
			}
		}
	}
	if (close(fd)) {
		perror("segbuf: close");
		return 1;
	}
	return bad;
}

static int range_op(const char *op, const char *dev, unsigned long long sector,
		    unsigned long long nsect)
{
	uint64_t r[2] = { sector * 512, nsect * 512 };
	int fd, ret;

	fd = open(dev, (strcmp(op, "checkzero") ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "segbuf: open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	if (!strcmp(op, "discard")) {
		ret = ioctl(fd, BLKDISCARD, r);
	} else if (!strcmp(op, "zeroout")) {
		ret = ioctl(fd, BLKZEROOUT, r);
	} else if (!strcmp(op, "punch")) {
		ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				r[0], r[1]);
	} else {
		size_t chunk = 1 << 20;
		char *b;

		if (posix_memalign((void **)&b, page, chunk))
			return 1;
		ret = 0;
		for (uint64_t o = 0; o < r[1] && !ret; o += chunk) {
			size_t len = r[1] - o < chunk ? r[1] - o : chunk;
			ssize_t n = pread(fd, b, len, r[0] + o);

			if (n != (ssize_t)len) {
				fprintf(stderr, "segbuf: pread: %s\n",
					n < 0 ? strerror(errno) : "short");
				return 1;
			}
			for (size_t i = 0; i < len; i++) {
				if (b[i]) {
					fprintf(stderr, "segbuf: nonzero byte at %llu\n",
						(unsigned long long)(r[0] + o + i));
					ret = 1;
					break;
				}
			}
		}
		close(fd);
		return ret;
	}
	if (ret) {
		fprintf(stderr, "segbuf: %s: %s\n", op, strerror(errno));
		close(fd);
		return 1;
	}
	return close(fd) ? 1 : 0;
}

int main(int argc, char **argv)
{
	page = sysconf(_SC_PAGESIZE);
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "write") || !strcmp(argv[1], "read")) {
		if (argc != 6)
			usage();
		return rw(argv[1][0] == 'w', argv[2], num(argv[3]), num(argv[4]),
			  num(argv[5]));
	}
	if (!strcmp(argv[1], "hog")) {
		size_t len = (size_t)num(argv[2]) << 20;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("segbuf: mmap");
			return 1;
		}
		/* no huge pages: they would defeat the point */
		madvise(p, len, MADV_NOHUGEPAGE);
		for (size_t o = 0; o < len; o += page)
			p[o] = 1;
		for (size_t o = page; o < len; o += 2 * page)
			madvise(p + o, page, MADV_DONTNEED);
		printf("segbuf: holding %zu MiB in every other page\n", len >> 21);
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "geo")) {
		struct hd_geometry g;
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0 || ioctl(fd, HDIO_GETGEO, &g)) {
			perror("segbuf: HDIO_GETGEO");
			return 1;
		}
		printf("%u %u %u\n", g.heads, g.sectors, g.cylinders);
		return 0;
	}
	if (argc != 5)
		usage();
	if (strcmp(argv[1], "discard") && strcmp(argv[1], "zeroout") &&
	    strcmp(argv[1], "punch") && strcmp(argv[1], "checkzero"))
		usage();
	return range_op(argv[1], argv[2], num(argv[3]), num(argv[4]));
}
