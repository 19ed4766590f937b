/* io_uring SQPOLL and IOPOLL rings, as Linux has them: an SQPOLL ring's
 * thread submits what the SQ ring holds with no io_uring_enter, sets
 * IORING_SQ_NEED_WAKEUP once idle and takes IORING_ENTER_SQ_WAKEUP;
 * io_uring_enter answers to_submit, EOWNERDEAD once the creator's process
 * is gone; IORING_SQ_CQ_OVERFLOW; the setup's SQ_AFF and ATTACH_WQ
 * errnos; a short submission returns without waiting.  An IOPOLL ring takes NOP, answers EOPNOTSUPP
 * in the CQE of a READ or WRITE on a file without polled I/O (EBADF for no file), EINVAL for an op
 * that cannot be polled for, and its GETEVENTS never sleeps. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/uio.h>

#ifndef RWF_HIPRI
#define RWF_HIPRI 0x1
#endif

#include "testutil.h"
#include "uring_raw.h"

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Publishes the SQEs taken, with the full barrier SQPOLL asks for
 * before reading the SQ flags (liburing's io_uring_smp_mb). */
static void publish(struct uring *r)
{
	__atomic_store_n(r->sq_tail, r->sq_local, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* An SQPOLL ring (flags added; cq: CQSIZE's entries, wq_fd:
 * ATTACH_WQ's fd, or 0): 0 or -errno. */
static int sqpoll_init(struct uring *r, uint32_t entries, uint32_t flags, uint32_t idle_ms,
		       uint32_t cq, uint32_t wq_fd)
{
	memset(r, 0, sizeof(*r));
	r->p.flags = IORING_SETUP_SQPOLL | flags;
	r->p.cq_entries = cq;
	r->p.wq_fd = wq_fd;
	r->p.sq_thread_idle = idle_ms;
	long fd = uring_setup_raw(entries, &r->p);
	if (fd < 0)
		return (int)fd;
	r->fd = (int)fd;
	return uring_map(r);
}

static void check_submit(void)
{
	struct uring r;
	struct io_uring_cqe c;

	/* Once it has worked, it stays awake for sq_thread_idle (a minute
	 * here) and needs no enter; before, it may sleep at once (Linux's
	 * thread does if its first look finds nothing) */
	require(sqpoll_init(&r, 8, 0, 60000, 0, 0) == 0, "an SQPOLL ring");
	ok(r.p.features & IORING_FEAT_SQPOLL_NONFIXED, "features: SQPOLL_NONFIXED");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 6);
	publish(&r);
	if (load(r.sq_flags) & IORING_SQ_NEED_WAKEUP)
		uring_enter_raw(r.fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
	require(uring_wait(&r, &c) == 0 && c.user_data == 6, "a first NOP");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 7);
	publish(&r);
	ok(WAIT_UNTIL(load(r.cq_tail) != load(r.cq_head)),
	   "a NOP reaches the CQ ring with no io_uring_enter");
	is_int(load(r.sq_head), 2, "the thread consumed the SQE (SQ head 2)");
	ok(uring_peek(&r, &c) && c.user_data == 7 && c.res == 0, "its CQE: user_data 7, res 0");
	uring_exit(&r);

	/* Idle for sq_thread_idle: it sleeps and says so */
	require(sqpoll_init(&r, 8, 0, 50, 0, 0) == 0, "an SQPOLL ring");
	ok(WAIT_UNTIL(load(r.sq_flags) & IORING_SQ_NEED_WAKEUP), "idle: IORING_SQ_NEED_WAKEUP set");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 8);
	publish(&r);
	is_int(uring_enter_raw(r.fd, 1, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0), 1,
	       "enter with SQ_WAKEUP answers to_submit (1)");
	ok(uring_wait(&r, &c) == 0 && c.user_data == 8 && c.res == 0,
	   "woken, the thread submits the NOP");
	ok(WAIT_UNTIL(!(load(r.sq_flags) & IORING_SQ_NEED_WAKEUP) || load(r.sq_head) == r.sq_local),
	   "the SQ ring consumed");
	is_int(uring_enter_raw(r.fd, 5, 0, 0, NULL, 0), 5,
	       "enter answers to_submit (5) with nothing queued");
	is_int(uring_enter_raw(r.fd, 0, 0, IORING_ENTER_SQ_WAIT, NULL, 0), 0,
	       "SQ_WAIT with room in the SQ ring returns at once");

	/* A batch, the GETEVENTS wait without submitting */
	for (int i = 0; i < 8; i++)
		uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 100 + i);
	publish(&r);
	if (load(r.sq_flags) & IORING_SQ_NEED_WAKEUP)
		uring_enter_raw(r.fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
	int n = 0, inorder = 1;
	for (int i = 0; i < 8; i++) {
		if (uring_wait(&r, &c) == 0 && c.res == 0)
			n++;
		inorder &= c.user_data == (uint64_t)(100 + i);
	}
	ok(n == 8 && inorder, "a batch of 8 NOPs: 8 CQEs, in order");
	uring_exit(&r);
}

/* The CQ ring full, the thread's CQEs overflow: IORING_SQ_CQ_OVERFLOW
 * until user space flushes them with io_uring_enter. */
static void check_overflow(void)
{
	struct uring r;
	struct io_uring_cqe c;
	int n = 0;

	require(sqpoll_init(&r, 2, IORING_SETUP_CQSIZE, 1000, 2, 0) == 0,
		"an SQPOLL ring, CQ of 2");
	for (int round = 0; round < 2; round++) {
		uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
		uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 2);
		publish(&r);
		if (load(r.sq_flags) & IORING_SQ_NEED_WAKEUP)
			uring_enter_raw(r.fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
		WAIT_UNTIL(load(r.sq_head) == r.sq_local);
	}
	ok(WAIT_UNTIL(load(r.sq_flags) & IORING_SQ_CQ_OVERFLOW),
	   "4 NOPs into a CQ of 2: IORING_SQ_CQ_OVERFLOW");
	while (uring_peek(&r, &c))
		n++;
	is_int(uring_enter_raw(r.fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "GETEVENTS flushes the overflow");
	while (uring_peek(&r, &c))
		n++;
	ok(n == 4 && !(load(r.sq_flags) & IORING_SQ_CQ_OVERFLOW),
	   "4 CQEs in all, the flag cleared (%d)", n);
	uring_exit(&r);
}

/* The ring's creator gone (its process exited), a process that shares
 * the ring gets EOWNERDEAD from io_uring_enter. */
static void check_owner_dead(void)
{
	int go[2], res[2];
	long got = 0;
	pid_t a;

	require(pipe(go) == 0 && pipe(res) == 0, "pipes");
	if ((a = fork()) == 0) {
		struct uring r;

		if (sqpoll_init(&r, 4, 0, 50, 0, 0))
			_exit(1);
		if (fork() == 0) { /* B: the ring's fd, not its thread */
			char ch;
			long e;

			close(go[1]);
			if (read(go[0], &ch, 1) != 1)
				_exit(1);
			e = uring_enter_raw(r.fd, 0, 0, 0, NULL, 0);
			if (write(res[1], &e, sizeof(e)) != sizeof(e))
				_exit(1);
			_exit(0);
		}
		_exit(0);
	}
	close(res[1]);
	require(a > 0 && waitpid(a, NULL, 0) == a, "the creator exits");
	require(write(go[1], "g", 1) == 1, "go");
	if (read(res[0], &got, sizeof(got)) != sizeof(got))
		got = 1;
	ok(got == -EOWNERDEAD, "its creator gone, enter on the ring: EOWNERDEAD (%ld)", got);
	close(go[0]);
	close(go[1]);
	close(res[0]);
}

static void check_setup_errors(void)
{
	struct io_uring_params p;
	struct uring plain, sq;
	int pfd[2];
	long fd;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQ_AFF;
	is_int(uring_setup_raw(4, &p), -EINVAL, "SQ_AFF without SQPOLL: EINVAL");
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	p.sq_thread_cpu = 4096;
	is_int(uring_setup_raw(4, &p), -EINVAL, "SQ_AFF on CPU 4096: EINVAL");
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_SQ_AFF;
	fd = uring_setup_raw(4, &p);
	ok(fd >= 0, "SQ_AFF on CPU 0: a ring (%ld)", fd);
	close((int)fd);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQPOLL | IORING_SETUP_COOP_TASKRUN;
	is_int(uring_setup_raw(4, &p), -EINVAL, "SQPOLL with COOP_TASKRUN: EINVAL");

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ;
	p.wq_fd = 1000;
	is_int(uring_setup_raw(4, &p), -ENXIO, "ATTACH_WQ to no file: ENXIO");
	require(pipe(pfd) == 0, "a pipe");
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ | IORING_SETUP_SQPOLL;
	p.wq_fd = (uint32_t)pfd[0];
	is_int(uring_setup_raw(4, &p), -EINVAL, "ATTACH_WQ to a pipe: EINVAL");
	require(uring_init(&plain, 4, 0) == 0, "a plain ring");
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ;
	p.wq_fd = (uint32_t)plain.fd;
	fd = uring_setup_raw(4, &p);
	ok(fd >= 0, "ATTACH_WQ to a ring: a ring (%ld)", fd);
	close((int)fd);
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_ATTACH_WQ | IORING_SETUP_SQPOLL;
	p.wq_fd = (uint32_t)plain.fd;
	is_int(uring_setup_raw(4, &p), -EINVAL, "SQPOLL attached to a ring without SQPOLL: EINVAL");

	require(sqpoll_init(&sq, 4, 0, 50, 0, 0) == 0, "an SQPOLL ring");
	struct uring att;
	require(sqpoll_init(&att, 4, IORING_SETUP_ATTACH_WQ, 50, 0, (uint32_t)sq.fd) == 0,
		"SQPOLL attached to an SQPOLL ring");
	struct io_uring_cqe c;
	uring_prep(&att, IORING_OP_NOP, -1, 0, 0, 0, 3);
	publish(&att);
	if (load(att.sq_flags) & IORING_SQ_NEED_WAKEUP)
		uring_enter_raw(att.fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
	ok(uring_wait(&att, &c) == 0 && c.user_data == 3, "the attached ring's NOP completes");
	uring_exit(&att);
	uring_exit(&sq);
	uring_exit(&plain);
	close(pfd[0]);
	close(pfd[1]);
}

static int32_t run1(struct uring *r)
{
	struct io_uring_cqe c;

	if (uring_submit_wait(r, 0) != 1)
		return -99999;
	for (int i = 0; i < 100000 && !uring_peek(r, &c); i++)
		if (uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
			return -99998;
	return c.res;
}

static void check_iopoll(void)
{
	struct uring r;
	struct io_uring_sqe *s;
	char buf[8];
	int fd = uring_tmpfile();

	require(fd >= 0 && write(fd, "abcdefgh", 8) == 8, "a file");
	require(uring_init(&r, 8, IORING_SETUP_IOPOLL) == 0, "an IOPOLL ring");
	is_int(uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "GETEVENTS for 1 with nothing in flight: 0 at once");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	is_int(run1(&r), 0, "NOP: 0");
	uring_prep(&r, IORING_OP_READ, fd, (uint64_t)buf, 8, 0, 2);
	is_int(run1(&r), -EOPNOTSUPP, "READ of a file without polled I/O: EOPNOTSUPP");
	s = uring_prep(&r, IORING_OP_WRITE, fd, (uint64_t)buf, 8, 0, 2);
	s->rw_flags = RWF_HIPRI;
	is_int(run1(&r), -EOPNOTSUPP, "WRITE with RWF_HIPRI: EOPNOTSUPP");
	struct iovec iov = {buf, 8};
	uring_prep(&r, IORING_OP_READV, fd, (uint64_t)&iov, 1, 0, 2);
	is_int(run1(&r), -EOPNOTSUPP, "READV: EOPNOTSUPP");
	uring_prep(&r, IORING_OP_READ, 1000, (uint64_t)buf, 8, 0, 2);
	is_int(run1(&r), -EBADF, "READ of no file: EBADF");
	uring_prep(&r, IORING_OP_POLL_ADD, fd, 0, 0, 0, 3)->poll32_events = POLLIN;
	is_int(run1(&r), -EINVAL, "POLL_ADD on an IOPOLL ring: EINVAL");
	uring_prep(&r, IORING_OP_FSYNC, fd, 0, 0, 0, 3);
	is_int(run1(&r), -EINVAL, "FSYNC on an IOPOLL ring: EINVAL");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 4);
	uring_prep(&r, IORING_OP_READ, fd, (uint64_t)buf, 8, 0, 5);
	is_int(uring_submit_wait(&r, 0), 2, "NOP and READ: both submitted");
	struct io_uring_cqe c;
	int seen = 0;
	for (int i = 0; i < 100000 && seen != 3; i++) {
		while (uring_peek(&r, &c))
			seen |= (c.user_data == 4 && c.res == 0) |
				(c.user_data == 5 && c.res == -EOPNOTSUPP) << 1;
		if (seen != 3)
			uring_enter_raw(r.fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0);
	}
	is_int(seen, 3, "their CQEs: 0 and EOPNOTSUPP");
	uring_exit(&r);
	close(fd);
}

/* A submission cut short (an SQE failing its preparation) returns at
 * once, without GETEVENTS' wait for CQEs that will never come (Linux's
 * io_uring_enter; the SQPOLL tests' submit-and-wait relies on it). */
static void check_short_submit(void)
{
	struct uring r;
	struct io_uring_cqe c;

	require(uring_init(&r, 4, 0) == 0, "a ring");
	uring_prep(&r, IORING_OP_LAST + 7, -1, 0, 0, 0, 1);
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 2);
	is_int(uring_submit_wait(&r, 2), 1, "2 SQEs, the first failing, waiting for 2: 1 at once");
	ok(uring_peek(&r, &c) && c.user_data == 1 && c.res == -EINVAL, "its CQE: EINVAL");
	uring_exit(&r);
}

int main(void)
{
	plan(36);
	check_short_submit();
	check_submit();
	check_overflow();
	check_owner_dead();
	check_setup_errors();
	check_iopoll();
	return done();
}
