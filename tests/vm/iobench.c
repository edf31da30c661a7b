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
 *                        "n NS TURNS IPIO IDLE IRQS": guest ns over the N
 *                        I/Os, spin turns meanwhile, instructions per I/O
 *                        ((ns - 2 * turns) / N), the share of the time that
 *                        waited (spinner or polling) and virtio interrupts
 *                        per I/O; IOBENCH_POLL=1 reaps completions from the
 *                        AIO ring, spinning, instead of sleeping in
 *                        io_getevents (its turns are taken out too);
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
	int poll;		/* reap from the ring, spinning (IOBENCH_POLL=1) */
	uint64_t poll_turns;	/* empty turns of that spin */
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

/*
 * Interrupts taken so far on virtio vectors, all CPUs (/proc/interrupts).
 * Read outside the measured window: from QD 8 on, how many completions
 * QEMU's main loop delivers per interrupt follows the host's timing, and a
 * run's count moves with it (about 700-950 instructions an interrupt).
 */
static uint64_t virtio_irqs(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[1024];
	uint64_t sum = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *end;

		if (!p || !strstr(line, "virtio"))
			continue;
		for (p++;; p = end) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

/*
 * The completion ring the kernel maps at the AIO context's address (its
 * layout is ABI: libaio and fio reap from it without a syscall).
 */
struct aio_ring {
	unsigned int id, nr, head, tail;
	unsigned int magic, compat_features, incompat_features, header_length;
	struct io_event events[];
};
#define AIO_RING_MAGIC 0xa10a10a1

/* instructions of one empty turn of wait_ring()'s loop */
#define POLL_TURN 6

/*
 * Spin until the ring's tail moves past @head: every empty turn is exactly
 * POLL_TURN instructions (load, compare, branch, count, compare, branch),
 * so that run() can take them out as it does the spinner's. Returns the
 * empty turns; @limit of them means no completion came (a stall).
 */
static uint64_t wait_ring(volatile struct aio_ring *r, unsigned int head, uint64_t limit)
{
	uint64_t turns = 0;
	unsigned int tail;

	__asm__ volatile("1:\tmovl %[tail], %[tl]\n\t"
			 "cmpl %[tl], %[hd]\n\t"
			 "jne 2f\n\t"
			 "addq $1, %[t]\n\t"
			 "cmpq %[lim], %[t]\n\t"
			 "jb 1b\n"
			 "2:"
			 : [tl] "=&r"(tail), [t] "+r"(turns)
			 : [tail] "m"(r->tail), [hd] "r"(head), [lim] "r"(limit)
			 : "cc", "memory");
	return turns;
}

/*
 * Up to @max completions: from the ring without a syscall when polling
 * (the vCPU never sleeps, so the path does not depend on whether QEMU
 * completed a request before or after the guest looked), else from
 * io_getevents, which sleeps until one comes. 0: none for STALL_S seconds.
 */
static long reap(struct bench *b, struct io_event *ev, long max)
{
	struct timespec stall = { .tv_sec = STALL_S };
	volatile struct aio_ring *r = (volatile struct aio_ring *)b->ctx;
	unsigned int head;
	long got = 0;

	if (!b->poll) {
		do
			got = syscall(SYS_io_getevents, b->ctx, 1, max, ev, &stall);
		while (got < 0 && errno == EINTR);
		return got;
	}
	head = r->head;
	if (head == r->tail) {
		uint64_t t = wait_ring(r, head, STALL_S * 1000000000ull / POLL_TURN);

		b->poll_turns += t;
		if (head == r->tail)
			return 0;
	}
	while (got < max && head != r->tail) {
		ev[got++] = r->events[head];
		head = (head + 1) % r->nr;
	}
	/* the events are copied before the kernel may reuse their slots */
	__asm__ volatile("" : : : "memory");
	r->head = head;
	return got;
}

/* keep qd in flight until n have completed */
static int drive(struct bench *b, unsigned int qd, uint64_t n)
{
	struct io_event ev[64];
	uint64_t done = 0, issued = 0;
	unsigned int i;

	for (i = 0; i < qd && issued < n; i++, issued++)
		if (submit(b, i))
			return -1;
	while (done < n) {
		long got = reap(b, ev, 64);

		if (got < 0)
			return -1;
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

static int env_is_1(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

static int run(char **argv)
{
	struct bench b = { 0 };
	unsigned int qd = (unsigned int)atoi(argv[3]);
	uint64_t n = strtoull(argv[4], NULL, 10), bytes, t0, t1, c0, c1, i0, i1;
	volatile uint64_t *spins = map_counter(argv[5], 0);
	double ipio, wait;

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
	b.poll = env_is_1("IOBENCH_POLL");
	if (b.poll) {
		volatile struct aio_ring *r = (volatile struct aio_ring *)b.ctx;

		if (r->magic != AIO_RING_MAGIC || r->incompat_features || !r->nr) {
			fprintf(stderr, "iobench: IOBENCH_POLL: no AIO completion ring at the context (magic %#x)\n",
				r->magic);
			return 1;
		}
	}
	if (env_is_1("IOBENCH_HUGE")) {
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
	b.poll_turns = 0;
	i0 = virtio_irqs();
	c0 = *spins;
	t0 = now_ns();
	if (drive(&b, qd, n)) {
		fprintf(stderr, "iobench: I/O failed: %s\n", strerror(errno));
		return 1;
	}
	t1 = now_ns();
	c1 = *spins;
	i1 = virtio_irqs();
	/* what waited: the spinner's turns, and polling's empty turns */
	wait = 2.0 * (double)(c1 - c0) + (double)POLL_TURN * (double)b.poll_turns;
	ipio = ((double)(t1 - t0) - wait) / (double)n;
	if (getenv("IOBENCH_BASE"))
		ipio -= strtod(getenv("IOBENCH_BASE"), NULL) * (double)(t1 - t0) / (double)n;
	printf("n %llu %llu %.1f %.4f %.4f\n", (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0),
	       ipio, wait / (double)(t1 - t0), (double)(i1 - i0) / (double)n);
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
