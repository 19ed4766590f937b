/* The fuzzer's asynchronous-call scenario (issue 34, docs/async.md): one
 * io_uring (now and then an SQPOLL ring, whose thread submits, or an
 * IOPOLL one) and one sysind_queue shared by the scenario's threads, which
 * submit random SQEs (every opcode, known or not, with random flags,
 * links, fds and user_data, cancels aimed at those user_data or fds,
 * messages to rings), reap CQEs, register and unregister buffers, buffer
 * rings (filling them), an eventfd, personalities (which the SQEs name
 * now and then) and the thread's registered rings (which its
 * io_uring_enter names now and then), cancel synchronously, and
 * make random
 * syscall_indirect(SYSIND_ASYNC) calls, many of which block on a worker.
 * Meanwhile a helper forked with the ring open submits on it and dies,
 * or execs with async calls outstanding; then the ring, the queue, the
 * files and the ring's views (the buffer ring's page too) go in a random
 * order, or the process exits
 * under its threads with everything in flight.  The kernel must not
 * panic, hang or leak (the run's counters count rings, engines,
 * workers and queues).  Only calls whose effects stay in the scenario's
 * own objects are drawn, so the host plays it too (SYSIND_ASYNC is
 * ENOSYS there).  Threads make raw calls only (thread.h).  Included by
 * fuzz.c only, after fuzz_threads.h. */
#ifndef FUZZ_URING_H
#define FUZZ_URING_H

#include <sys/un.h>
#include <uapi/io_uring.h>

#define URING_THREADS	2   /* besides the scenario's own thread */
#define URING_OPS	100 /* actions per thread */
#define URING_FDS	8   /* pipe ends, a socket pair, a listener, an eventfd, a file */
#define URING_BUFS	8
#define URING_BUF	256
#define URING_KEYS	16     /* user_data values, so that cancels find targets */
#define UZ_AT_FDCWD	(-100) /* Linux's (newlib's AT_FDCWD differs) */
#define UZ_MSG_DONTWAIT 0x40   /* Linux's, for raw calls */
#define UZ_READ_FD	64     /* above every number uz_fd draws */

/* Words an SQE field must refuse: unmapped, kernel, non-canonical, all ones. */
static const uint64_t uz_bad[] = {8, 0xffff800000000000ULL, 1ULL << 47, ~0ULL, 0x7fffffff};

static struct {
	/* queue_rd: a dup of the queue the threads read, numbered past the
	 * draws, so that no random close (an IORING_OP_CLOSE, an async one)
	 * hands its number to a blocking file, such as an accepted socket:
	 * the threads then waited in read for ever (seed 15). */
	int ring, queue, queue_rd, fds[URING_FDS];
	uint32_t sq_entries;
	uint8_t *rings;		   /* the SQ/CQ view, rings_len bytes */
	struct io_uring_sqe *sqes; /* sqes_len bytes */
	struct io_uring_buf *br;   /* a page for buffer rings (groups 0-3), unmapped at the end */
	size_t rings_len, sqes_len;
	struct io_uring_params p;
	struct sockaddr_un name; /* the listener's */
	char bufs[URING_BUFS][URING_BUF];
	struct iovec iov[URING_BUFS];
	struct msghdr msg, msg1; /* two iovecs, one */
	struct uring_ts {
		int64_t sec, nsec;
	} ts[2];
	int futex_word;
} uz;

static uint32_t *uz_word(uint32_t off)
{
	return (uint32_t *)(uz.rings + off);
}

/* The ring and its two views; false if io_uring_setup failed. */
static bool uz_ring_open(uint64_t *s)
{
	uint32_t entries = 1u << (fd_thread_rnd(s) % 6); /* 1 ... 32 */

	memset(&uz.p, 0, sizeof(uz.p));
	if (fd_thread_rnd(s) % 4 == 0) {
		uz.p.flags = IORING_SETUP_CQSIZE;
		uz.p.cq_entries = entries * (1u + (uint32_t)(fd_thread_rnd(s) % 4));
	}
	/* now and then an SQ thread submits (its end racing the ring's
	 * teardown and the process's exit), or the ring polls (IOPOLL) */
	if (fd_thread_rnd(s) % 4 == 0) {
		uz.p.flags |= IORING_SETUP_SQPOLL;
		uz.p.sq_thread_idle = (uint32_t)(fd_thread_rnd(s) % 20);
	}
	if (fd_thread_rnd(s) % 8 == 0)
		uz.p.flags |= IORING_SETUP_IOPOLL;
	uz.ring = (int)raw_call(__NR_io_uring_setup, entries, (long)&uz.p, 0);
	if (uz.ring < 0)
		return false;
	uz.sq_entries = uz.p.sq_entries;
	uz.rings_len = uz.p.sq_off.array + uz.p.sq_entries * 4;
	if (uz.p.cq_off.cqes + uz.p.cq_entries * sizeof(struct io_uring_cqe) > uz.rings_len)
		uz.rings_len = uz.p.cq_off.cqes + uz.p.cq_entries * sizeof(struct io_uring_cqe);
	uz.sqes_len = uz.p.sq_entries * sizeof(struct io_uring_sqe);
	uz.rings = mmap(NULL, uz.rings_len, PROT_READ | PROT_WRITE, MAP_SHARED, uz.ring,
			IORING_OFF_SQ_RING);
	uz.sqes =
	    mmap(NULL, uz.sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED, uz.ring, IORING_OFF_SQES);
	uz.br = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return uz.rings != MAP_FAILED && uz.sqes != MAP_FAILED && uz.br != MAP_FAILED;
}

/* The files the calls aim at: 0-1 a pipe, 2-3 a socket pair, 4 a
 * listener, 5 an eventfd, 6 a file of the scenario's directory, 7 a
 * socket to connect. */
static void uz_files_open(void)
{
	int pair[2];

	if (pipe(pair) == 0) { /* the write end never blocks a thread; reads wait on workers */
		uz.fds[0] = pair[0], uz.fds[1] = pair[1];
		fcntl(pair[1], F_SETFL, O_NONBLOCK);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0)
		uz.fds[2] = pair[0], uz.fds[3] = pair[1];
	uz.fds[4] = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(uz.fds[4], (struct sockaddr *)&uz.name, unix_name(&uz.name, "uring", 0)) == 0)
		listen(uz.fds[4], 4);
	uz.fds[5] = (int)raw_call(__NR_eventfd2, 0, 0, 0);
	uz.fds[6] = open("uring-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	unlink("uring-file");
	uz.fds[7] = socket(AF_UNIX, SOCK_STREAM, 0);
	for (int i = 0; i < URING_BUFS; i++)
		uz.iov[i] = (struct iovec){uz.bufs[i], URING_BUF};
	uz.msg = (struct msghdr){.msg_iov = uz.iov, .msg_iovlen = 2};
	uz.msg1 = (struct msghdr){.msg_iov = uz.iov, .msg_iovlen = 1};
}

static int uz_fd(uint64_t *s)
{
	switch (fd_thread_rnd(s) % 8) {
	case 0:
		return uz.ring; /* ops on a ring fd: EBADF or EINVAL, never a loop */
	case 1:
		return (int)(fd_thread_rnd(s) % 40) - 1; /* -1, stdio, closed or another's */
	default:
		return uz.fds[fd_thread_rnd(s) % URING_FDS];
	}
}

#include "fuzz_uring_sqe.h"

/* Consume whatever CQEs are there (racing the other threads). */
static void uz_reap(void)
{
	uint32_t tail = __atomic_load_n(uz_word(uz.p.cq_off.tail), __ATOMIC_ACQUIRE);
	__atomic_store_n(uz_word(uz.p.cq_off.head), tail, __ATOMIC_RELEASE);
}

/* io_uring_enter: submit what is queued; now and then wait up to a
 * millisecond for a CQE (never without a timeout: the scenario's threads
 * must not block). */
static void uz_enter(uint64_t *s)
{
	struct uring_ts ts = {0, 1000000};
	struct io_uring_getevents_arg arg = {.ts = (uint64_t)(uintptr_t)&ts};
	uint32_t n = (uint32_t)(fd_thread_rnd(s) % (uz.sq_entries + 2));

	if (fd_thread_rnd(s) % 3 == 0)
		thread_sys6(__NR_io_uring_enter, uz.ring, n, 1,
			    IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, (long)&arg, sizeof(arg));
	else if (fd_thread_rnd(s) % 8 == 0) /* an index of the thread's registered rings */
		thread_sys6(__NR_io_uring_enter, (long)(fd_thread_rnd(s) % 17), n, 0,
			    IORING_ENTER_REGISTERED_RING, 0, 0);
	else
		thread_sys6(__NR_io_uring_enter, uz.ring, n, 0,
			    fd_thread_rnd(s) % 8 ? IORING_ENTER_GETEVENTS | IORING_ENTER_SQ_WAKEUP
						 : (long)(fd_thread_rnd(s) & 0xffffffff),
			    0, 0);
}

/* Up to 4 entries more on the buffer ring's page, published by its tail
 * (racing the other threads and the kernel's reads: harmless). */
static void uz_br_fill(uint64_t *s)
{
	uint16_t *tail = (uint16_t *)((char *)uz.br + IO_URING_BUF_TAIL_OFF);
	uint16_t t = __atomic_load_n(tail, __ATOMIC_RELAXED);
	uint64_t n = fd_thread_rnd(s) % 5;

	for (uint64_t i = 0; i < n; i++) {
		struct io_uring_buf *b = &uz.br[(t + i) % 8];
		b->addr = fd_thread_rnd(s) % 8 ? (uint64_t)(uintptr_t)uz.bufs[fd_thread_rnd(s) % 6]
					       : uz_bad[fd_thread_rnd(s) % 5];
		b->len = (uint32_t)(fd_thread_rnd(s) % (URING_BUF + 1));
		b->bid = (uint16_t)fd_thread_rnd(s);
	}
	__atomic_store_n(tail, (uint16_t)(t + n), __ATOMIC_RELEASE);
}

static void uz_register(uint64_t *s)
{
	static const long ops[] = {IORING_REGISTER_BUFFERS,	  IORING_UNREGISTER_BUFFERS,
				   IORING_REGISTER_EVENTFD,	  IORING_UNREGISTER_EVENTFD,
				   IORING_REGISTER_PROBE,	  IORING_REGISTER_FILES,
				   IORING_UNREGISTER_FILES,	  IORING_REGISTER_PERSONALITY,
				   IORING_UNREGISTER_PERSONALITY, IORING_REGISTER_PBUF_RING,
				   IORING_UNREGISTER_PBUF_RING,	  IORING_REGISTER_PBUF_STATUS,
				   IORING_REGISTER_SYNC_CANCEL,	  IORING_REGISTER_RING_FDS,
				   IORING_UNREGISTER_RING_FDS,	  99};
	/* A cancel waits at most 1 ms for a running match: the threads
	 * must not block. */
	struct io_uring_sync_cancel_reg sc = {.addr = fd_thread_rnd(s) % URING_KEYS,
					      .flags = (uint32_t)(fd_thread_rnd(s) % 16),
					      .fd = uz_fd(s),
					      .timeout = {0, 1000000}};
	struct io_uring_rsrc_update up = {.offset = fd_thread_rnd(s) % 4 ? -1U : 15,
					  .data = (uint64_t)uz_fd(s)};
	struct io_uring_buf_reg reg = {.ring_addr = (uint64_t)(uintptr_t)uz.br,
				       .ring_entries = 1u << (fd_thread_rnd(s) % 4),
				       .bgid = (uint16_t)(fd_thread_rnd(s) % 4)};
	struct io_uring_buf_status st = {.buf_group = reg.bgid};
	static uint8_t probe[16 + 64 * 8];
	long op = ops[fd_thread_rnd(s) % (sizeof(ops) / sizeof(ops[0]))];

	switch (op) {
	case IORING_REGISTER_BUFFERS:
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)uz.iov, 2, 0, 0);
		break;
	case IORING_REGISTER_EVENTFD:
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)&uz.fds[5], 1, 0, 0);
		break;
	case IORING_REGISTER_PROBE:
		memset(probe, 0, sizeof(probe));
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)probe, 64, 0, 0);
		break;
	case IORING_REGISTER_FILES:
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)uz.fds, URING_FDS, 0, 0);
		break;
	case IORING_UNREGISTER_PERSONALITY: /* ids 0..3: the SQEs' (uz_prep) */
		thread_sys6(__NR_io_uring_register, uz.ring, op, 0, (long)(fd_thread_rnd(s) % 4), 0,
			    0);
		break;
	case IORING_REGISTER_PBUF_RING: /* groups 0-3, 1 to 8 entries, some filled */
	case IORING_UNREGISTER_PBUF_RING:
		if (op == IORING_UNREGISTER_PBUF_RING)
			reg.ring_addr = reg.ring_entries = 0;
		else if (fd_thread_rnd(s) % 4 == 0) /* now and then in the kernel's memory */
			reg.ring_addr = 0, reg.flags = IOU_PBUF_RING_MMAP;
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)&reg, 1, 0, 0);
		uz_br_fill(s);
		break;
	case IORING_REGISTER_PBUF_STATUS:
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)&st, 1, 0, 0);
		break;
	case IORING_REGISTER_SYNC_CANCEL:
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)&sc, 1, 0, 0);
		break;
	case IORING_REGISTER_RING_FDS: /* this thread's table: dropped at its exit */
	case IORING_UNREGISTER_RING_FDS:
		if (op == IORING_UNREGISTER_RING_FDS)
			up = (struct io_uring_rsrc_update){.offset = fd_thread_rnd(s) % 17};
		thread_sys6(__NR_io_uring_register, uz.ring, op, (long)&up, 1, 0, 0);
		break;
	default:
		thread_sys6(__NR_io_uring_register, uz.ring, op, 0, 0, 0, 0);
	}
}

/* One syscall_indirect(SYSIND_ASYNC) call on the queue (or on no queue);
 * most of them wait on a worker until a peer acts or the end cancels
 * them. */
static void uz_async(uint64_t *s)
{
	static const long nrs[] = {__NR_read,	__NR_write,    __NR_poll,    __NR_nanosleep,
				   __NR_futex,	__NR_recvfrom, __NR_accept4, __NR_connect,
				   __NR_sendto, __NR_getpid,   __NR_close,   __NR_readv};
	struct pollfd *pf = (struct pollfd *)uz.bufs[7];
	long nr = nrs[fd_thread_rnd(s) % (sizeof(nrs) / sizeof(nrs[0]))];
	unsigned long a[6] = {(unsigned long)uz_fd(s), (unsigned long)uz.bufs[fd_thread_rnd(s) % 6],
			      1 + fd_thread_rnd(s) % 64};
	unsigned long flags = SYSIND_ASYNC | (fd_thread_rnd(s) % 8 ? fd_thread_rnd(s) % 16 : 0x80);

	switch (nr) {
	case __NR_poll:
		pf->fd = (int)a[0];
		pf->events = POLLIN;
		a[0] = (unsigned long)pf;
		a[1] = 1;
		a[2] = fd_thread_rnd(s) % 2 ? (unsigned long)-1 : 2;
		break;
	case __NR_nanosleep:
		a[0] = (unsigned long)&uz.ts[fd_thread_rnd(s) % 2];
		a[1] = 0;
		break;
	case __NR_futex:
		a[0] = (unsigned long)&uz.futex_word;
		a[1] = 128 | (fd_thread_rnd(s) % 2); /* FUTEX_WAIT or FUTEX_WAKE, private */
		a[2] = fd_thread_rnd(s) % 2 ? 0 : 1;
		a[3] = 0;
		break;
	case __NR_accept4:
		a[1] = a[2] = 0;
		break;
	case __NR_connect:
		a[1] = (unsigned long)&uz.name;
		a[2] = sizeof(uz.name);
		break;
	case __NR_readv:
		a[1] = (unsigned long)uz.iov;
		a[2] = 2;
		break;
	}
	thread_sys6(__NR_syscall_indirect, (long)flags, 0, nr, (long)a,
		    fd_thread_rnd(s) % 8 ? uz.queue : uz_fd(s), 0);
}

static void uz_read_queue(void)
{
	struct sysind_completion rec[8];
	thread_sys6(__NR_read, uz.queue_rd, (long)rec, sizeof(rec), 0, 0, 0);
}

/* One random action of a thread. */
static void uz_action(uint64_t *s)
{
	switch (fd_thread_rnd(s) % 16) {
	case 0:
	case 1:
	case 2:
	case 3:
		for (uint64_t k = 1 + fd_thread_rnd(s) % 4; k--;)
			uz_prep(s);
		uz_enter(s);
		break;
	case 4:
		uz_enter(s);
		break;
	case 5:
	case 6:
		uz_reap();
		break;
	case 7:
		uz_register(s);
		break;
	case 8:
	case 9:
	case 10:
		uz_async(s);
		break;
	case 11:
		uz_read_queue();
		break;
	case 12: /* a peer acts: a byte on the pipe or the pair (never waiting) */
		if (fd_thread_rnd(s) % 2)
			thread_sys6(__NR_write, uz.fds[1], (long)"x", 1, 0, 0, 0);
		else
			thread_sys6(__NR_sendto, uz.fds[3], (long)"x", 1, UZ_MSG_DONTWAIT, 0, 0);
		break;
	case 13:
		thread_sys6(__NR_futex, (long)&uz.futex_word, 129, 8, 0, 0, 0);
		break;
	case 14: /* drain the pair a little, never waiting */
		thread_sys6(__NR_recvfrom, uz.fds[3], (long)uz.bufs[6], URING_BUF, UZ_MSG_DONTWAIT,
			    0, 0);
		break;
	default:
		thread_sys6(__NR_sched_yield, 0, 0, 0, 0, 0, 0);
	}
}

static int uz_thread_body(void *arg)
{
	struct fd_thread *t = arg;

	for (int i = 0; i < URING_OPS; i++)
		uz_action(&t->rng);
	return 0;
}

/* A helper with the ring open: it submits on the shared ring and ends,
 * or is killed mid-way; or it makes async calls that block and execs. */
static void uz_fork_helper(uint64_t *s)
{
	if (helper() != 0)
		return;
	if (fd_thread_rnd(s) % 3 == 0) {
		static char *const argv[] = {"true", NULL};
		for (int i = 0; i < 4; i++)
			uz_async(s);
		for (int i = 0; i < 2; i++)
			uz_prep(s);
		uz_enter(s);
		execve("/bin/true", argv, NULL);
		_exit(0);
	}
	for (int i = 0; i < 20; i++)
		uz_action(s);
	_exit(0);
}

/* The end, in a random order: the ring, the queue, the files and the
 * views of the ring, with whatever is still in flight; or a view made
 * read-only first, under a last submission. */
static void uz_teardown(uint64_t *s)
{
	int order[4] = {0, 1, 2, 3};

	if (fd_thread_rnd(s) % 4 == 0) {
		mprotect(uz.rings, uz.rings_len, PROT_READ);
		raw_call(__NR_io_uring_enter, uz.ring, 0, 0); /* the CQEs still land */
	}
	shuffle(order, 4);
	for (int i = 0; i < 4; i++)
		switch (order[i]) {
		case 0:
			close(uz.ring);
			break;
		case 1:
			close(uz.queue);
			close(uz.queue_rd);
			break;
		case 2:
			for (int k = 0; k < URING_FDS; k++)
				close(uz.fds[k]);
			break;
		default:
			munmap(uz.rings, uz.rings_len);
			munmap(uz.sqes, uz.sqes_len);
			munmap(uz.br, 4096); /* the kernel reads it only as user memory */
		}
}

static void scenario_uring(void)
{
	static struct fd_thread ut[URING_THREADS];
	uint64_t own = rnd();

	uz.ts[0] = (struct uring_ts){0, (int64_t)below(2000000)};
	uz.ts[1] = (struct uring_ts){0, 0};
	uz.futex_word = 0;
	for (int k = 0; k < URING_FDS; k++)
		uz.fds[k] = -1;
	uz_files_open();
	uz.queue = (int)raw_call(__NR_sysind_queue, 0, 0, 0);
	uz.queue_rd = -1;
	if (uz.queue >= 0) { /* the threads' reads of it must not block */
		fcntl(uz.queue, F_SETFL, O_NONBLOCK);
		uz.queue_rd = fcntl(uz.queue, F_DUPFD, UZ_READ_FD);
	}
	if (!uz_ring_open(&own))
		return;
	for (int i = 0; i < URING_THREADS; i++) {
		ut[i].rng = rnd();
		ut[i].running = thread_start(&ut[i].t, uz_thread_body, &ut[i]) > 0;
	}
	if (one_in(3))
		uz_fork_helper(&own);
	if (one_in(FD_EXIT_ODDS)) /* the end with threads mid-call, requests in flight */
		thread_sys(__NR_exit_group, 0, 0, 0);
	for (int i = 0; i < URING_OPS; i++)
		uz_action(&own);
	for (int i = 0; i < URING_THREADS; i++)
		if (ut[i].running)
			thread_join(&ut[i].t);
	kill_helpers();
	if (one_in(2)) /* else the process's exit ends what is in flight */
		uz_teardown(&own);
}

#endif
