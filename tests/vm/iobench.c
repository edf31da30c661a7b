// SPDX-License-Identifier: GPL-2.0
/*
 * iobench: per-I/O instruction counts of the block path, for a guest run
 * under QEMU's -icount shift=0,sleep=off (one nanosecond of guest clock per
 * executed instruction while the vCPU runs; an idle vCPU warps the clock to
 * the next timer, so idle time is not instructions).
 *
 *   iobench spin FILE    run forever as SCHED_IDLE, counting loop turns in
 *                        FILE (a shared page): the vCPU never idles, and
 *                        every turn is exactly two instructions
 *   iobench base FILE MS the background rate: the share of MS ms (guest
 *                        clock, nothing but the spinner runnable) spent
 *                        outside the spinner (timer ticks, housekeeping)
 *   iobench rep          guest ns of rep stosb / rep stosq clearing 4 KiB:
 *                        under icount, how a string instruction is counted
 *   iobench run DEV RW BS QD N FILE
 *                        N O_DIRECT reads or writes (RW read|write) of BS
 *                        bytes at random BS-aligned offsets, QD in flight
 *                        (Linux AIO), after a warm-up of 4*QD; prints
 *                        "n NS TURNS IPIO IDLE": guest ns over the N I/Os,
 *                        spin turns meanwhile, instructions per I/O
 *                        ((ns - 2 * turns) / N) and the spinner's share;
 *                        with IOBENCH_BASE=RATE (from base) the background
 *                        that came with the run's length is taken out too
 *                        ((ns - 2 * turns - RATE * ns) / N): timer ticks
 *                        come per guest time, and a slow host makes a run
 *                        longer (the spinner fills the waits); it still
 *                        changes the path itself, as completions that come
 *                        late come several to an interrupt: run it alone;
 *                        exits 3 with a "stall:" line when no I/O completed
 *                        for STALL_S seconds of guest clock (a lost completion
 *                        or a device that stopped answering)
 *
 * Buffers are BS-sized anonymous mappings without huge pages, one per slot,
 * so that their pages land wherever the (fragmented) allocator puts them;
 * with IOBENCH_HUGE=1 they are carved from one region backed by transparent
 * huge pages instead, so that each is physically contiguous (one segment).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t *map_counter(const char *path, int create)
{
	int fd = open(path, O_RDWR | (create ? O_CREAT : 0), 0600);
	void *p;

	if (fd < 0 || (create && ftruncate(fd, 4096))) {
		fprintf(stderr, "iobench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "iobench: mmap %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
	return p;
}

static int spin(const char *path)
{
	volatile uint64_t *c = map_counter(path, 1);
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
		fprintf(stderr, "iobench: SCHED_IDLE: %s\n", strerror(errno));
		return 1;
	}
	/* two instructions a turn, whatever the compiler would make of C */
	__asm__ volatile("1: addq $1, (%0)\n\tjmp 1b" : : "r"(c) : "memory");
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct bench {
	int fd;
	int write;
	size_t bs;
	uint64_t slots;		/* BS-sized blocks on the device */
	aio_context_t ctx;
	struct iocb *cbs;
	void **bufs;
};

static int submit(struct bench *b, unsigned int slot)
{
	struct iocb *cb = &b->cbs[slot], *list[1] = { cb };

	memset(cb, 0, sizeof(*cb));
	cb->aio_data = slot;
	cb->aio_fildes = b->fd;
	cb->aio_lio_opcode = b->write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	cb->aio_buf = (uintptr_t)b->bufs[slot];
	cb->aio_nbytes = b->bs;
	cb->aio_offset = (int64_t)((rnd() % b->slots) * b->bs);
	return syscall(SYS_io_submit, b->ctx, 1, list) == 1 ? 0 : -1;
}

#define STALL_S 20

/* keep qd in flight until n have completed */
static int drive(struct bench *b, unsigned int qd, uint64_t n)
{
	struct timespec stall = { .tv_sec = STALL_S };
	struct io_event ev[64];
	uint64_t done = 0, issued = 0;
	unsigned int i;

	for (i = 0; i < qd && issued < n; i++, issued++)
		if (submit(b, i))
			return -1;
	while (done < n) {
		long got = syscall(SYS_io_getevents, b->ctx, 1, 64, ev, &stall);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (got == 0) {
			printf("stall: %llu of %llu completed, %llu in flight, none for %d s\n",
			       (unsigned long long)done, (unsigned long long)n,
			       (unsigned long long)(issued - done), STALL_S);
			fflush(stdout);
			exit(3);
		}
		for (long k = 0; k < got; k++) {
			if ((int64_t)ev[k].res != (int64_t)b->bs) {
				fprintf(stderr, "iobench: I/O returned %lld, not %zu\n",
					(long long)ev[k].res, b->bs);
				return -1;
			}
			done++;
			if (issued < n && submit(b, (unsigned int)ev[k].data))
				return -1;
			issued += issued < n;
		}
	}
	return 0;
}

#define HUGE_SZ (2ul << 20)

/* one 2 MiB-aligned THP region; BS divides 2 MiB, so no buffer crosses a huge page */
static int huge_buffers(struct bench *b, unsigned int qd)
{
	size_t len = ((qd * b->bs + HUGE_SZ - 1) / HUGE_SZ) * HUGE_SZ;
	char *raw, *p;

	if (HUGE_SZ % b->bs) {
		fprintf(stderr, "iobench: IOBENCH_HUGE needs BS dividing 2 MiB\n");
		return -1;
	}
	raw = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return -1;
	p = (char *)(((uintptr_t)raw + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0x5a, len);
	for (unsigned int i = 0; i < qd; i++)
		b->bufs[i] = p + (size_t)i * b->bs;
	return 0;
}

static int run(char **argv)
{
	struct bench b = { 0 };
	unsigned int qd = (unsigned int)atoi(argv[3]);
	uint64_t n = strtoull(argv[4], NULL, 10), bytes, t0, t1, c0, c1;
	volatile uint64_t *spins = map_counter(argv[5], 0);
	double ipio;

	b.write = !strcmp(argv[1], "write");
	b.bs = strtoul(argv[2], NULL, 10);
	if ((!b.write && strcmp(argv[1], "read")) || !b.bs || b.bs % 512 || !qd || qd > 1024 || !n) {
		fprintf(stderr, "iobench: bad arguments (RW read|write, BS a multiple of 512, QD 1..1024, N > 0)\n");
		return 2;
	}
	b.fd = open(argv[0], (b.write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (b.fd < 0 || ioctl(b.fd, BLKGETSIZE64, &bytes)) {
		fprintf(stderr, "iobench: %s: %s\n", argv[0], strerror(errno));
		return 1;
	}
	b.slots = bytes / b.bs;
	b.cbs = calloc(qd, sizeof(*b.cbs));
	b.bufs = calloc(qd, sizeof(*b.bufs));
	if (!b.slots || !b.cbs || !b.bufs || syscall(SYS_io_setup, qd, &b.ctx)) {
		fprintf(stderr, "iobench: setup: %s\n", strerror(errno));
		return 1;
	}
	if (getenv("IOBENCH_HUGE") && !strcmp(getenv("IOBENCH_HUGE"), "1")) {
		if (huge_buffers(&b, qd))
			return 1;
	} else {
		for (unsigned int i = 0; i < qd; i++) {
			b.bufs[i] = mmap(NULL, b.bs, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (b.bufs[i] == MAP_FAILED)
				return 1;
			madvise(b.bufs[i], b.bs, MADV_NOHUGEPAGE);
			memset(b.bufs[i], 0x5a, b.bs);
		}
	}
	if (drive(&b, qd, 4ull * qd)) {
		fprintf(stderr, "iobench: warm-up failed: %s\n", strerror(errno));
		return 1;
	}
	c0 = *spins;
	t0 = now_ns();
	if (drive(&b, qd, n)) {
		fprintf(stderr, "iobench: I/O failed: %s\n", strerror(errno));
		return 1;
	}
	t1 = now_ns();
	c1 = *spins;
	ipio = ((double)(t1 - t0) - 2.0 * (double)(c1 - c0)) / (double)n;
	if (getenv("IOBENCH_BASE"))
		ipio -= strtod(getenv("IOBENCH_BASE"), NULL) * (double)(t1 - t0) / (double)n;
	printf("n %llu %llu %.1f %.4f\n", (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
	       ipio, 2.0 * (double)(c1 - c0) / (double)(t1 - t0));
	return 0;
}

static char rep_buf[4096];

static int rep(void)
{
	uint64_t t0, t1, t2;
	int i;

	t0 = now_ns();
	for (i = 0; i < 10000; i++) {
		void *d = rep_buf;
		long c = sizeof(rep_buf);

		__asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
	}
	t1 = now_ns();
	for (i = 0; i < 10000; i++) {
		void *d = rep_buf;
		long c = sizeof(rep_buf) / 8;

		__asm__ volatile("rep stosq" : "+D"(d), "+c"(c) : "a"(0) : "memory");
	}
	t2 = now_ns();
	printf("rep stosb 4096 B: %.0f ns, rep stosq 4096 B: %.0f ns\n", (t1 - t0) / 1e4, (t2 - t1) / 1e4);
	return 0;
}

static int base(const char *path, const char *ms)
{
	volatile uint64_t *spins = map_counter(path, 0);
	struct timespec d = { .tv_sec = atol(ms) / 1000, .tv_nsec = (atol(ms) % 1000) * 1000000L };
	uint64_t t0, t1, c0, c1;

	c0 = *spins;
	t0 = now_ns();
	nanosleep(&d, NULL);
	t1 = now_ns();
	c1 = *spins;
	printf("%.6f\n", 1.0 - 2.0 * (double)(c1 - c0) / (double)(t1 - t0));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "base"))
		return base(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "rep"))
		return rep();
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return spin(argv[2]);
	if (argc == 8 && !strcmp(argv[1], "run"))
		return run(argv + 2);
	fprintf(stderr, "usage: iobench spin FILE | iobench base FILE MS | iobench rep | iobench run DEV read|write BS QD N FILE\n");
	return 2;
}
