// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only helper for tests/bpf/test_sglstat_bpf.c.
 *
 * The sglstat programs read the request through BPF_CORE_READ, i.e.
 * bpf_probe_read_kernel(), which refuses user addresses.  To hand them a
 * request with chosen contents, this object keeps a fake struct request (and
 * the request_queue and gendisk it points to) in its .bss, which is kernel
 * memory (an array map value).  fill() copies the wanted fields from `spec`
 * (set by userspace through the mmaped .bss) into the fake objects, links
 * rq->q->disk, and publishes the kernel address of the fake request in
 * rq_addr, which the test passes as ctx[0] to the programs under test.
 * Publishing a kernel pointer is a "pointer leak" that the verifier allows
 * only with CAP_PERFMON (root): this helper is never part of sglstat.
 * The layouts are those of vmlinux.h, i.e. of the running kernel.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct fake_spec {
	__u32 cmd_flags;
	__u32 rq_flags;
	__u32 nr_phys_segments;
	__u32 data_len;
	__u64 start_time_ns;
	__u64 io_start_time_ns;
	__s32 major;
	__s32 first_minor;
	__u32 state;		/* enum mq_rq_state */
};

#define RQ_OFF		0
#define Q_OFF		2048
#define DISK_OFF	(Q_OFF + 4096)
#define FAKE_MEM	(DISK_OFF + 4096)

struct fake_spec spec;
__u64 rq_addr;
__u64 now_ns;
/*
 * Raw bytes, not typed globals: the skeleton would otherwise drag the whole
 * kernel type graph into the userspace test.
 */
char fake_mem[FAKE_MEM] __attribute__((aligned(64)));

_Static_assert(sizeof(struct request) <= Q_OFF - RQ_OFF, "fake request too small");
_Static_assert(sizeof(struct request_queue) <= DISK_OFF - Q_OFF, "fake queue too small");
_Static_assert(sizeof(struct gendisk) <= FAKE_MEM - DISK_OFF, "fake gendisk too small");

SEC("raw_tp")
int fill(void *ctx)
{
	struct request *rq = (void *)&fake_mem[RQ_OFF];
	struct request_queue *q = (void *)&fake_mem[Q_OFF];
	struct gendisk *disk = (void *)&fake_mem[DISK_OFF];

	disk->major = spec.major;
	disk->first_minor = spec.first_minor;
	q->disk = disk;
	rq->q = q;
	rq->cmd_flags = spec.cmd_flags;
	rq->rq_flags = spec.rq_flags;
	rq->nr_phys_segments = spec.nr_phys_segments;
	rq->__data_len = spec.data_len;
	rq->start_time_ns = spec.start_time_ns;
	rq->io_start_time_ns = spec.io_start_time_ns;
	rq->state = spec.state;
	rq_addr = (__u64)rq;
	now_ns = bpf_ktime_get_ns();
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
