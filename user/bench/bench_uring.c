/* io_uring NOPs: submit and complete a batch of 1 and of 32 NOPs through
 * one io_uring_enter(to_submit = n, min_complete = n, GETEVENTS), then
 * consume the CQEs.  Median of repetitions, in ns per NOP. */
#include <fdkernel.h>
#include <sys/mman.h>
#include <uapi/io_uring.h>

#include "bench.h"

#define NOPS 4096
#define REPS 11

struct ring {
	int fd;
	uint32_t *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static struct ring ring;

static int ring_open(void)
{
	struct io_uring_params p;
	uint8_t *rings;
	size_t size;

	memset(&p, 0, sizeof(p));
	if ((ring.fd = (int)syscall(__NR_io_uring_setup, 64, &p)) < 0)
		return -1;
	size = p.sq_off.array + p.sq_entries * 4;
	if (p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe) > size)
		size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	rings = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, IORING_OFF_SQ_RING);
	ring.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
			 MAP_SHARED, ring.fd, IORING_OFF_SQES);
	if (rings == MAP_FAILED || ring.sqes == MAP_FAILED)
		return -1;
	ring.sq_tail = (uint32_t *)(rings + p.sq_off.tail);
	ring.sq_mask = (uint32_t *)(rings + p.sq_off.ring_mask);
	ring.sq_array = (uint32_t *)(rings + p.sq_off.array);
	ring.cq_head = (uint32_t *)(rings + p.cq_off.head);
	ring.cq_tail = (uint32_t *)(rings + p.cq_off.tail);
	ring.cq_mask = (uint32_t *)(rings + p.cq_off.ring_mask);
	ring.cqes = (struct io_uring_cqe *)(rings + p.cq_off.cqes);
	return 0;
}

/* One batch of n NOPs, submitted and reaped: 0 or -1. */
static int nop_batch(uint32_t n)
{
	uint32_t tail = *ring.sq_tail, head;

	for (uint32_t i = 0; i < n; i++, tail++) {
		uint32_t idx = tail & *ring.sq_mask;
		memset(&ring.sqes[idx], 0, sizeof(ring.sqes[idx]));
		ring.sqes[idx].opcode = IORING_OP_NOP;
		ring.sq_array[idx] = idx;
	}
	__atomic_store_n(ring.sq_tail, tail, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring.fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0) != (long)n)
		return -1;
	head = *ring.cq_head;
	if (__atomic_load_n(ring.cq_tail, __ATOMIC_ACQUIRE) - head != n)
		return -1;
	__atomic_store_n(ring.cq_head, head + n, __ATOMIC_RELEASE);
	return 0;
}

static double nop_rep(const char *name, void *arg)
{
	uint32_t n = (uint32_t)(uintptr_t)arg;
	uint64_t start = bench_now_ns();

	for (int i = 0; i < NOPS / (int)n; i++)
		if (nop_batch(n)) {
			bench_fail(name, "io_uring_enter: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, NOPS);
}

int main(void)
{
	bench_begin("bench_uring", "uring_nop_1,uring_nop_32");
	if (ring_open()) {
		bench_skip("uring_nop_1", "io_uring_setup: %s", strerror(errno));
		bench_skip("uring_nop_32", "io_uring_setup: %s", strerror(errno));
		return bench_end();
	}
	bench_row("uring_nop_1", "ns", REPS, nop_rep, (void *)1);
	bench_row("uring_nop_32", "ns", REPS, nop_rep, (void *)32);
	return bench_end();
}
