/* A small io_uring client on the raw system calls (uapi/io_uring.h's
 * structures): set-up and mapping, taking an SQE, submitting, waiting for
 * and consuming CQEs.  The io_uring tests share it so that each runs the
 * same on the host Linux and in fdkernel. */
#ifndef LINUX_URING_RAW_H
#define LINUX_URING_RAW_H

#include "../../kernel/uapi/io_uring.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup    425
#define SYS_io_uring_enter    426
#define SYS_io_uring_register 427
#endif

struct uring {
	int fd;
	struct io_uring_params p;
	uint8_t *rings, *sqes_map;
	size_t rings_size, sqes_size;
	uint32_t *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags, *sq_dropped;
	uint32_t *cq_head, *cq_tail, *cq_mask, *cq_overflow;
	struct io_uring_cqe *cqes;
	struct io_uring_sqe *sqes;
	uint32_t sq_local; /* SQEs taken, not yet published */
};

/* The raw calls: the result, or -errno. */
static inline long uring_setup_raw(uint32_t entries, struct io_uring_params *p)
{
	long r = syscall(SYS_io_uring_setup, entries, p);
	return r < 0 ? -errno : r;
}

static inline long uring_enter_raw(int fd, uint32_t submit, uint32_t min, uint32_t flags,
				   const void *arg, size_t argsz)
{
	long r = syscall(SYS_io_uring_enter, fd, submit, min, flags, arg, argsz);
	return r < 0 ? -errno : r;
}

static inline long uring_register_raw(int fd, unsigned op, const void *arg, unsigned nr)
{
	long r = syscall(SYS_io_uring_register, fd, op, arg, nr);
	return r < 0 ? -errno : r;
}

/* Maps ring r (set up already): 0 or -errno.  One mapping for both rings
 * (IORING_FEAT_SINGLE_MMAP), as liburing does. */
static inline int uring_map(struct uring *r)
{
	struct io_uring_params *p = &r->p;
	size_t sq = p->sq_off.array + p->sq_entries * sizeof(uint32_t);
	size_t cq = p->cq_off.cqes + p->cq_entries * sizeof(struct io_uring_cqe);

	r->rings_size = sq > cq ? sq : cq;
	r->rings = mmap(NULL, r->rings_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			r->fd, IORING_OFF_SQ_RING);
	if (r->rings == MAP_FAILED)
		return -errno;
	r->sqes_size = p->sq_entries * sizeof(struct io_uring_sqe);
	r->sqes_map = mmap(NULL, r->sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			   r->fd, IORING_OFF_SQES);
	if (r->sqes_map == MAP_FAILED)
		return -errno;
	r->sq_head = (uint32_t *)(r->rings + p->sq_off.head);
	r->sq_tail = (uint32_t *)(r->rings + p->sq_off.tail);
	r->sq_mask = (uint32_t *)(r->rings + p->sq_off.ring_mask);
	r->sq_array = (uint32_t *)(r->rings + p->sq_off.array);
	r->sq_flags = (uint32_t *)(r->rings + p->sq_off.flags);
	r->sq_dropped = (uint32_t *)(r->rings + p->sq_off.dropped);
	r->cq_head = (uint32_t *)(r->rings + p->cq_off.head);
	r->cq_tail = (uint32_t *)(r->rings + p->cq_off.tail);
	r->cq_mask = (uint32_t *)(r->rings + p->cq_off.ring_mask);
	r->cq_overflow = (uint32_t *)(r->rings + p->cq_off.overflow);
	r->cqes = (struct io_uring_cqe *)(r->rings + p->cq_off.cqes);
	r->sqes = (struct io_uring_sqe *)r->sqes_map;
	r->sq_local = *r->sq_tail;
	return 0;
}

/* A ring of entries SQEs with flags: 0 or -errno. */
static inline int uring_init(struct uring *r, uint32_t entries, uint32_t flags)
{
	long fd;

	memset(r, 0, sizeof(*r));
	r->p.flags = flags;
	if ((fd = uring_setup_raw(entries, &r->p)) < 0)
		return (int)fd;
	r->fd = (int)fd;
	return uring_map(r);
}

static inline void uring_exit(struct uring *r)
{
	munmap(r->rings, r->rings_size);
	munmap(r->sqes_map, r->sqes_size);
	close(r->fd);
}

/* The next free SQE, zeroed, or NULL if the SQ ring is full. */
static inline struct io_uring_sqe *uring_sqe(struct uring *r)
{
	uint32_t head = __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE), idx;
	struct io_uring_sqe *sqe;

	if (r->sq_local - head >= r->p.sq_entries)
		return NULL;
	idx = r->sq_local & *r->sq_mask;
	sqe = &r->sqes[idx];
	memset(sqe, 0, sizeof(*sqe));
	r->sq_array[idx] = idx;
	r->sq_local++;
	return sqe;
}

static inline struct io_uring_sqe *uring_prep(struct uring *r, uint8_t op, int fd, uint64_t addr,
					      uint32_t len, uint64_t off, uint64_t data)
{
	struct io_uring_sqe *s = uring_sqe(r);

	if (s) {
		s->opcode = op;
		s->fd = fd;
		s->addr = addr;
		s->len = len;
		s->off = off;
		s->user_data = data;
	}
	return s;
}

/* Publishes the SQEs taken and enters to submit every one the kernel
 * has not consumed: io_uring_enter's result. */
static inline long uring_submit_wait(struct uring *r, uint32_t wait_nr)
{
	uint32_t n = r->sq_local - __atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(r->sq_tail, r->sq_local, __ATOMIC_RELEASE);
	return uring_enter_raw(r->fd, n, wait_nr, wait_nr ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
}

/* The next CQE into *out, consumed: 1, or 0 if none is ready. */
static inline int uring_peek(struct uring *r, struct io_uring_cqe *out)
{
	uint32_t head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return 0;
	*out = r->cqes[head & *r->cq_mask];
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 1;
}

/* Waits for the next CQE: 0, or -errno from io_uring_enter. */
static inline int uring_wait(struct uring *r, struct io_uring_cqe *out)
{
	long err;

	while (!uring_peek(r, out))
		if ((err = uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0)) < 0)
			return (int)err;
	return 0;
}

/* Waits for n CQEs and stores each one's res at the index its user_data
 * names (user_data < n): 0 or -errno. */
static inline int uring_wait_n(struct uring *r, int n, int32_t *res)
{
	struct io_uring_cqe c;
	int err;

	for (int i = 0; i < n; i++) {
		if ((err = uring_wait(r, &c)))
			return err;
		if (c.user_data < (uint64_t)n)
			res[c.user_data] = c.res;
	}
	return 0;
}

/* An unlinked scratch file for the ops to work on: its fd, or -1. */
static inline int uring_tmpfile(void)
{
	char path[] = "/tmp/uringXXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Submits what is prepared and waits for one CQE: its res (-99999 if
 * io_uring_enter failed). */
static inline int32_t uring_run1(struct uring *r)
{
	struct io_uring_cqe c;

	if (uring_submit_wait(r, 1) < 0 || uring_wait(r, &c))
		return -99999;
	return c.res;
}

#endif
