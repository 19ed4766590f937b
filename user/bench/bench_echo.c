/* An echo server over 64 stream connections (AF_UNIX socketpairs, or TCP
 * over 127.0.0.1), 64-byte messages,
 * three ways (issue 34): epoll + read/write, io_uring (RECV, then SEND
 * linked to the next RECV; on plain fds, or on registered files; or one
 * multishot RECV per connection into a buffer ring, on plain fds or
 * registered files), and
 * syscall_indirect(SYSIND_ASYNC) reads with write.  The client, the same
 * for all, writes one message on every connection, then reads every echo
 * back; the figure is ns per echoed message (client and server together:
 * under icount, instructions). */
#include <fdkernel.h>
#include <signal.h>
#include <stdbool.h>
#include <netinet/in.h>
#ifndef TCP_NODELAY
#define TCP_NODELAY 1 /* <netinet/tcp.h>, which newlib lacks */
#endif
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <uapi/io_uring.h>
#include <unistd.h>

#include "bench.h"

#define CONNS  64
#define MSG    64
#define ROUNDS 64 /* rounds of CONNS messages per repetition */
#define REPS   5

static int cli[CONNS], srv[CONNS];
static char bufs[CONNS][MSG];

static int full_read(int fd, char *b, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, b + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* The server's three loops; each returns when a connection ends. */

static void serve_epoll(void)
{
	struct epoll_event ev[CONNS];
	int ep = epoll_create1(0);

	for (int i = 0; i < CONNS; i++) {
		ev[0] = (struct epoll_event){.events = EPOLLIN, .data.u32 = (uint32_t)i};
		if (epoll_ctl(ep, EPOLL_CTL_ADD, srv[i], &ev[0]) < 0)
			return;
	}
	for (;;) {
		int n = epoll_wait(ep, ev, CONNS, -1);
		for (int k = 0; k < n; k++) {
			int i = (int)ev[k].data.u32;
			ssize_t r = read(srv[i], bufs[i], MSG);
			if (r <= 0 || write(srv[i], bufs[i], (size_t)r) != r)
				return;
		}
		if (n < 0)
			return;
	}
}

struct ring {
	int fd;
	uint32_t *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	uint32_t queued; /* SQEs written but not yet submitted */
	bool fixed;	 /* srv[] registered: SQEs name direct descriptor i */
};

static int ring_open(struct ring *r, uint32_t entries)
{
	struct io_uring_params p;
	uint8_t *rings;
	size_t size;

	memset(&p, 0, sizeof(p));
	if ((r->fd = (int)syscall(__NR_io_uring_setup, entries, &p)) < 0)
		return -1;
	size = p.sq_off.array + p.sq_entries * 4;
	if (p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe) > size)
		size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	rings = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, IORING_OFF_SQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED, r->fd, IORING_OFF_SQES);
	if (rings == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (uint32_t *)(rings + p.sq_off.tail);
	r->sq_mask = (uint32_t *)(rings + p.sq_off.ring_mask);
	r->sq_array = (uint32_t *)(rings + p.sq_off.array);
	r->cq_head = (uint32_t *)(rings + p.cq_off.head);
	r->cq_tail = (uint32_t *)(rings + p.cq_off.tail);
	r->cq_mask = (uint32_t *)(rings + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(rings + p.cq_off.cqes);
	r->queued = 0;
	return 0;
}

static struct io_uring_sqe *ring_prep(struct ring *r, uint8_t op, int i, uint32_t len,
				      uint8_t flags, uint64_t ud)
{
	uint32_t tail = *r->sq_tail, idx = tail & *r->sq_mask;
	struct io_uring_sqe *s = &r->sqes[idx];

	memset(s, 0, sizeof(*s));
	s->opcode = op;
	s->flags = flags | (r->fixed ? IOSQE_FIXED_FILE : 0);
	s->fd = r->fixed ? i : srv[i];
	s->addr = (uint64_t)(uintptr_t)bufs[i];
	s->len = len;
	s->user_data = ud;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	r->queued++;
	return s;
}

/* A server's ring of entries (on the connections registered as direct
 * descriptors 0 to 63 if fixed): 0 or -1. */
static int ring_start(struct ring *r, uint32_t entries, bool fixed)
{
	if (ring_open(r, entries) < 0)
		return -1;
	r->fixed = fixed;
	if (fixed && syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_FILES, srv, CONNS) < 0)
		return -1;
	return 0;
}

/* A server's loop: submits what is queued, waits for a CQE, and hands
 * each CQE to on_cqe, which queues what follows (false: the end). */
static void ring_serve(struct ring *r, bool (*on_cqe)(struct ring *r, const struct io_uring_cqe *c))
{
	for (;;) {
		if (syscall(__NR_io_uring_enter, r->fd, r->queued, 1, IORING_ENTER_GETEVENTS, NULL,
			    0) < 0)
			return;
		r->queued = 0;
		uint32_t head = *r->cq_head, tail = __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE);
		for (; head != tail; head++)
			if (!on_cqe(r, &r->cqes[head & *r->cq_mask]))
				return;
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	}
}

/* A RECV's CQE: SEND the echo linked to the connection's next RECV (the
 * SEND's own CQE skipped unless it fails). */
static bool echo_recv(struct ring *r, const struct io_uring_cqe *c)
{
	int i = (int)c->user_data;

	if (c->res <= 0 || c->user_data >= CONNS)
		return false;
	ring_prep(r, IORING_OP_SEND, i, (uint32_t)c->res, IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS,
		  CONNS + (uint64_t)i);
	ring_prep(r, IORING_OP_RECV, i, MSG, 0, (uint64_t)i);
	return true;
}

/* RECV on every connection, each CQE's echo linked to the next RECV. */
static void serve_ring(bool fixed)
{
	struct ring r;

	if (ring_start(&r, 2 * CONNS, fixed) < 0)
		return;
	for (int i = 0; i < CONNS; i++)
		ring_prep(&r, IORING_OP_RECV, i, MSG, 0, (uint64_t)i);
	ring_serve(&r, echo_recv);
}

static void serve_uring(void)
{
	serve_ring(false);
}

static void serve_uring_fixed(void)
{
	serve_ring(true);
}

/* The multishot server's buffers: a buffer ring of group 0, two per
 * connection (a power of two, as a buffer ring's size must be). */
#define POOL (2 * CONNS)
static char pool[POOL][MSG];
static struct io_uring_buf *bring; /* POOL entries, page-aligned */
static uint16_t bring_tail;

/* Buffer bid back on the ring, seen by the kernel once the tail moves. */
static void bring_add(int bid)
{
	bring[bring_tail & (POOL - 1)] =
	    (struct io_uring_buf){(uint64_t)(uintptr_t)pool[bid], MSG, (uint16_t)bid, 0};
	bring_tail++;
}

static void bring_publish(void)
{
	__atomic_store_n((uint16_t *)((char *)bring + IO_URING_BUF_TAIL_OFF), bring_tail,
			 __ATOMIC_RELEASE);
}

/* Registers the pool as group 0's buffer ring: 0 or -1. */
static int bring_start(struct ring *r)
{
	struct io_uring_buf_reg reg = {.ring_entries = POOL, .bgid = 0};

	bring = mmap(NULL, POOL * sizeof(*bring), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bring == MAP_FAILED)
		return -1;
	reg.ring_addr = (uint64_t)(uintptr_t)bring;
	for (int bid = 0; bid < POOL; bid++)
		bring_add(bid);
	bring_publish();
	if (syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0)
		return -1;
	return 0;
}

/* A multishot RECV of connection i into group 0 (the SQE's fields are
 * written before the tail moves: its submission reads them later). */
static void recv_mshot(struct ring *r, int i)
{
	struct io_uring_sqe *s =
	    ring_prep(r, IORING_OP_RECV, i, 0, IOSQE_BUFFER_SELECT, (uint64_t)i);

	s->addr = 0;
	s->ioprio = IORING_RECV_MULTISHOT;
	s->buf_group = 0;
}

/* A multishot RECV's CQE: SEND the bytes of the buffer it names (its
 * CQE gives the buffer back to the ring); a RECV that ended (the ring
 * empty for a moment) is armed again.  A SEND's CQE (user_data CONNS +
 * its buffer's id) puts its buffer back. */
static bool echo_mshot(struct ring *r, const struct io_uring_cqe *c)
{
	int i = (int)c->user_data, bid = (int)(c->flags >> IORING_CQE_BUFFER_SHIFT);

	if (c->user_data >= CONNS) {
		if (c->res <= 0)
			return false;
		bring_add((int)(c->user_data - CONNS));
		bring_publish();
		return true;
	}
	if (c->res <= 0 && c->res != -ENOBUFS)
		return false;
	if (c->res > 0) {
		struct io_uring_sqe *s =
		    ring_prep(r, IORING_OP_SEND, i, (uint32_t)c->res, 0, CONNS + (uint64_t)bid);
		s->addr = (uint64_t)(uintptr_t)pool[bid];
	}
	if (!(c->flags & IORING_CQE_F_MORE))
		recv_mshot(r, i);
	return true;
}

/* One multishot RECV per connection into a buffer ring, as io_uring
 * servers are written. */
static void serve_ring_mshot(bool fixed)
{
	struct ring r;

	if (ring_start(&r, 4 * CONNS, fixed) < 0 || bring_start(&r) < 0)
		return;
	for (int i = 0; i < CONNS; i++)
		recv_mshot(&r, i);
	ring_serve(&r, echo_mshot);
}

static void serve_uring_mshot(void)
{
	serve_ring_mshot(false);
}

static void serve_uring_mshot_fixed(void)
{
	serve_ring_mshot(true);
}

/* Which connection each outstanding token is for: open addressing. */
static struct {
	uint64_t token;
	int conn;
} owner[4 * CONNS];

static long async_read(int q, int i)
{
	unsigned long args[6] = {(unsigned long)srv[i], (unsigned long)bufs[i], MSG};
	long tok = syscall(__NR_syscall_indirect, SYSIND_ASYNC, 0, __NR_read, args, q);
	uint32_t h = (uint32_t)tok % (4 * CONNS);

	if (tok <= 0)
		return -1;
	while (owner[h].token)
		h = (h + 1) % (4 * CONNS);
	owner[h].token = (uint64_t)tok;
	owner[h].conn = i;
	return 0;
}

static int owner_take(uint64_t tok)
{
	for (uint32_t h = (uint32_t)tok % (4 * CONNS);; h = (h + 1) % (4 * CONNS))
		if (owner[h].token == tok) {
			owner[h].token = 0;
			return owner[h].conn;
		}
}

/* An asynchronous read on every connection; each record's bytes are
 * written back and the next read issued.  Assumes the table has no
 * tokens but those issued here (a fresh process). */
static void serve_async(void)
{
	struct sysind_completion rec[CONNS];
	int q = (int)syscall(__NR_sysind_queue, 0);

	if (q < 0)
		return;
	for (int i = 0; i < CONNS; i++)
		if (async_read(q, i) < 0)
			return;
	for (;;) {
		ssize_t n = read(q, rec, sizeof(rec));
		if (n <= 0)
			return;
		for (ssize_t k = 0; k < n / (ssize_t)sizeof(rec[0]); k++) {
			int i = owner_take(rec[k].token);
			if (rec[k].result <= 0 ||
			    write(srv[i], bufs[i], (size_t)rec[k].result) != rec[k].result ||
			    async_read(q, i) < 0)
				return;
		}
	}
}

struct echo_case {
	void (*serve)(void);
	int family;
	pid_t server;
};

/* A connected TCP pair over 127.0.0.1 through listener l at a, Nagle off. */
static int tcp_pair(int l, const struct sockaddr_in *a, int sv[2])
{
	int one = 1;

	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (sv[0] < 0 || connect(sv[0], (const struct sockaddr *)a, sizeof(*a)) < 0 ||
	    (sv[1] = accept(l, NULL, NULL)) < 0)
		return -1;
	setsockopt(sv[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(sv[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* 64 connected pairs of c->family in cli[] and srv[]. */
static int echo_connect(struct echo_case *c)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int l = -1, sv[2], err = 0;

	if (c->family == AF_INET &&
	    ((l = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	     bind(l, (struct sockaddr *)&a, alen) < 0 || listen(l, CONNS) < 0 ||
	     getsockname(l, (struct sockaddr *)&a, &alen) < 0))
		err = -1;
	for (int i = 0; i < CONNS && !err; i++) {
		err = c->family == AF_INET ? tcp_pair(l, &a, sv)
					   : socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
		cli[i] = sv[0];
		srv[i] = sv[1];
	}
	if (l >= 0)
		close(l);
	return err;
}

/* A fresh server for the row: 64 connections, the child serves one end. */
static int echo_start(struct echo_case *c)
{
	if (echo_connect(c) < 0)
		return -1;
	c->server = fork();
	if (c->server < 0)
		return -1;
	if (c->server == 0) {
		for (int i = 0; i < CONNS; i++)
			close(cli[i]);
		c->serve();
		_exit(0);
	}
	for (int i = 0; i < CONNS; i++)
		close(srv[i]);
	return 0;
}

static void echo_stop(struct echo_case *c)
{
	for (int i = 0; i < CONNS; i++)
		close(cli[i]);
	waitpid(c->server, NULL, 0);
}

static double echo_rep(const char *name, void *arg)
{
	(void)arg;
	char msg[MSG], back[MSG];
	uint64_t start = bench_now_ns();

	memset(msg, 'e', sizeof(msg));
	for (int round = 0; round < ROUNDS; round++) {
		for (int i = 0; i < CONNS; i++)
			if (write(cli[i], msg, MSG) != MSG) {
				bench_fail(name, "write: %s", strerror(errno));
				return -1;
			}
		for (int i = 0; i < CONNS; i++)
			if (full_read(cli[i], back, MSG) < 0 || memcmp(back, msg, MSG)) {
				bench_fail(name, "no echo on connection %d", i);
				return -1;
			}
	}
	return bench_ns_per_op(start, (long)ROUNDS * CONNS);
}

static void echo_row(const char *name, void (*serve)(void), int family)
{
	struct echo_case c = {serve, family, 0};

	if (!bench_wanted(name))
		return;
	if (echo_start(&c) < 0) {
		bench_fail(name, "set-up: %s", strerror(errno));
		return;
	}
	bench_row(name, "ns", REPS, echo_rep, NULL);
	echo_stop(&c);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*serve)(void);
		int family;
	} rows[] = {
	    {"echo_epoll_unix", serve_epoll, AF_UNIX},
	    {"echo_uring_unix", serve_uring, AF_UNIX},
	    {"echo_uring_fixed_unix", serve_uring_fixed, AF_UNIX},
	    {"echo_uring_mshot_unix", serve_uring_mshot, AF_UNIX},
	    {"echo_uring_mshot_fixed_unix", serve_uring_mshot_fixed, AF_UNIX},
	    {"echo_async_unix", serve_async, AF_UNIX},
	    {"echo_epoll_inet", serve_epoll, AF_INET},
	    {"echo_uring_inet", serve_uring, AF_INET},
	    {"echo_uring_fixed_inet", serve_uring_fixed, AF_INET},
	    {"echo_uring_mshot_inet", serve_uring_mshot, AF_INET},
	    {"echo_uring_mshot_fixed_inet", serve_uring_mshot_fixed, AF_INET},
	    {"echo_async_inet", serve_async, AF_INET},
	};
	/* A kernel without the call is n/a, not a failure. */
	bool no_uring = syscall(__NR_io_uring_setup, 0, NULL) < 0 && errno == ENOSYS;
	bool no_async = syscall(__NR_sysind_queue, -1) < 0 && errno == ENOSYS;

	bench_begin("bench_echo", "echo_epoll_unix,echo_uring_unix,echo_uring_fixed_unix,"
				  "echo_uring_mshot_unix,echo_uring_mshot_fixed_unix,"
				  "echo_async_unix,echo_epoll_inet,echo_uring_inet,"
				  "echo_uring_fixed_inet,echo_uring_mshot_inet,"
				  "echo_uring_mshot_fixed_inet,echo_async_inet");
	signal(SIGPIPE, SIG_IGN); /* a server that ended is a failed row, not a dead bench */
	for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		bool uring = rows[k].serve != serve_epoll && rows[k].serve != serve_async;
		if ((uring && no_uring) || (rows[k].serve == serve_async && no_async))
			bench_skip(rows[k].name, "%s: ENOSYS",
				   no_async && rows[k].serve == serve_async ? "sysind_queue"
									    : "io_uring_setup");
		else
			echo_row(rows[k].name, rows[k].serve, rows[k].family);
	}
	return bench_end();
}
