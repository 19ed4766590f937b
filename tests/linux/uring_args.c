/* io_uring's argument checks beyond uring_setup's, with Linux's errno in
 * Linux's order: io_uring_register's unknown opcodes (EINVAL before the
 * fd is looked up), its nr_args and arg checks per opcode, PROBE's
 * limits, the registered-ring bit of enter and register; enter's
 * unknown flags and signal mask size; setup's unknown flags and CQSIZE
 * clamping; and in the CQE: every opcode past the probe's last
 * (EINVAL), every op the probe calls unsupported (EOPNOTSUPP), the
 * unknown SQE flag, BUFFER_SELECT where an op takes none, and every
 * op that takes an fd given one no table holds (EBADF), a plain fd or
 * a direct descriptor; sqe->ioprio on an op that takes none (EINVAL),
 * and a read's I/O priority (a class past IDLE EINVAL). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "testutil.h"
#include "uring_raw.h"

#define REGISTER_USE_REGISTERED_RING (1U << 31)
#define RINGFD_REG_MAX		     16 /* Linux's IO_RINGFD_REG_MAX */

static struct io_uring_probe *probe;

static void check_register(struct uring *r)
{
	static union {
		struct io_uring_probe p;
		char b[sizeof(struct io_uring_probe) + 257 * sizeof(struct io_uring_probe_op)];
	} pb;
	int efd = eventfd(0, 0);
	struct iovec iov = {pb.b, 64};

	is_int(uring_register_raw(-1, 200, NULL, 0), -EINVAL,
	       "unknown opcode 200 on fd -1: EINVAL (the opcode first)");
	is_int(uring_register_raw(r->fd, 255, NULL, 0), -EINVAL, "opcode 255: EINVAL");
	is_int(uring_register_raw(r->fd, 0x7fffffff, NULL, 0), -EINVAL, "opcode 2^31-1: EINVAL");
	is_int(uring_register_raw(9999, IORING_REGISTER_PROBE, pb.b, 4), -EBADF,
	       "a known opcode on fd 9999: EBADF");
	is_int(uring_register_raw(RINGFD_REG_MAX,
				  IORING_REGISTER_PROBE | REGISTER_USE_REGISTERED_RING, pb.b, 4),
	       -EINVAL, "a registered ring index past the table: EINVAL");
	is_int(uring_register_raw(0, IORING_REGISTER_PROBE | REGISTER_USE_REGISTERED_RING, pb.b, 4),
	       -EBADF, "a registered ring index never registered: EBADF");
	is_int(uring_register_raw(RINGFD_REG_MAX, 200 | REGISTER_USE_REGISTERED_RING, NULL, 0),
	       -EINVAL, "an unknown opcode with the registered-ring bit: EINVAL");

	is_int(uring_register_raw(r->fd, IORING_REGISTER_PROBE, NULL, 4), -EINVAL,
	       "PROBE with a NULL array: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_PROBE, pb.b, 257), -EINVAL,
	       "PROBE of 257 ops: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_PROBE, (void *)8, 4), -EFAULT,
	       "PROBE into an unmapped array: EFAULT");
	pb.p.ops[1].resv2 = 1;
	is_int(uring_register_raw(r->fd, IORING_REGISTER_PROBE, pb.b, 4), -EINVAL,
	       "PROBE into an array not zeroed: EINVAL");
	memset(&pb, 0, sizeof(pb));
	is_int(uring_register_raw(r->fd, IORING_REGISTER_PROBE, pb.b, 256), 0, "PROBE of 256 ops");
	ok(pb.p.last_op >= IORING_OP_SOCKET && pb.p.ops_len == pb.p.last_op + 1 &&
	       pb.p.ops[IORING_OP_NOP].flags == IO_URING_OP_SUPPORTED &&
	       pb.p.ops[pb.p.last_op].op == pb.p.last_op,
	   "it names the ops up to its last (%u), each by number", pb.p.last_op);
	probe = &pb.p;

	is_int(uring_register_raw(r->fd, IORING_REGISTER_EVENTFD, &efd, 0), -EINVAL,
	       "EVENTFD with nr 0: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_EVENTFD_ASYNC, &efd, 2), -EINVAL,
	       "EVENTFD_ASYNC with nr 2: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_UNREGISTER_EVENTFD, NULL, 1), -EINVAL,
	       "UNREGISTER_EVENTFD with nr 1: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_UNREGISTER_BUFFERS, &iov, 0), -EINVAL,
	       "UNREGISTER_BUFFERS with an arg: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_UNREGISTER_FILES, NULL, 1), -EINVAL,
	       "UNREGISTER_FILES with nr 1: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_BUFFERS, NULL, 1), -EFAULT,
	       "BUFFERS with a NULL array: EFAULT");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_BUFFERS, &iov, 0), -EINVAL,
	       "BUFFERS with nr 0: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_BUFFERS, &iov, (1U << 14) + 1), -EINVAL,
	       "BUFFERS with nr past 16384: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_FILES, &efd, 0), -EINVAL,
	       "FILES with nr 0: EINVAL");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_FILES, &efd, (1U << 20) + 1), -EMFILE,
	       "FILES with nr past 2^20: EMFILE");
	is_int(uring_register_raw(r->fd, IORING_REGISTER_FILE_ALLOC_RANGE, NULL, 0), -EINVAL,
	       "FILE_ALLOC_RANGE with a NULL range: EINVAL");
	close(efd);
}

static void check_enter(struct uring *r)
{
	uint64_t mask = 0;
	int bad = 0;

	for (int bit = 16; bit < 32; bit++)
		bad += uring_enter_raw(r->fd, 0, 0, 1U << bit, NULL, 0) != -EINVAL;
	is_int(bad, 0, "enter with each unknown flag bit 16..31: EINVAL");
	is_int(uring_enter_raw(RINGFD_REG_MAX, 0, 0, IORING_ENTER_REGISTERED_RING, NULL, 0),
	       -EINVAL, "REGISTERED_RING with an index past the table: EINVAL");
	is_int(uring_enter_raw(0, 0, 0, IORING_ENTER_REGISTERED_RING, NULL, 0), -EBADF,
	       "REGISTERED_RING with an index never registered: EBADF");
	is_int(uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS, &mask, 4), -EINVAL,
	       "GETEVENTS with a 4-byte signal mask: EINVAL");
	is_int(uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS, (void *)8, 8), -EFAULT,
	       "GETEVENTS with an unmapped signal mask: EFAULT");
	is_int(uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
			       (void *)8, sizeof(struct io_uring_getevents_arg)),
	       -EFAULT, "EXT_ARG at an unmapped address: EFAULT");
	struct {
		int64_t s, ns;
	} ts = {0, 1000000000};
	struct io_uring_getevents_arg ea = {.ts = (uint64_t)&ts};
	is_int(uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ea,
			       sizeof(ea)),
	       -ETIME, "EXT_ARG's timespec is not checked: tv_nsec 10^9 is 1 s, ETIME");
	ts.s = -1;
	ts.ns = -1;
	is_int(uring_enter_raw(r->fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ea,
			       sizeof(ea)),
	       -ETIME, "nor is a negative one: ETIME at once");
}

static void check_setup(void)
{
	struct io_uring_params p;
	long fd;
	int bad = 0;

	for (int bit = 24; bit < 32; bit++) {
		memset(&p, 0, sizeof(p));
		p.flags = 1U << bit;
		bad += uring_setup_raw(4, &p) != -EINVAL;
	}
	is_int(bad, 0, "setup with each unknown flag bit 24..31: EINVAL");
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
	p.cq_entries = IORING_MAX_CQ_ENTRIES * 2;
	fd = uring_setup_raw(IORING_MAX_ENTRIES * 2, &p);
	ok(fd >= 0 && p.sq_entries == IORING_MAX_ENTRIES && p.cq_entries == IORING_MAX_CQ_ENTRIES,
	   "CQSIZE and SQ past their maxima with CLAMP: both clamped (%u %u)", p.sq_entries,
	   p.cq_entries);
	close((int)fd);
	memset(&p, 0, sizeof(p));
	fd = uring_setup_raw(IORING_MAX_ENTRIES, &p);
	ok(fd >= 0 && p.sq_entries == IORING_MAX_ENTRIES, "exactly the maximum: accepted");
	close((int)fd);

	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int next = dup(0);
	close(next);
	is_int(uring_setup_raw(4, ro), -EFAULT, "params in a read-only page: EFAULT");
	fd = dup(0);
	close((int)fd);
	ok(fd == next, "and no fd was taken (%d %d)", (int)fd, next);
	munmap(ro, 4096);
}

/* One SQE alone: its CQE's res. */
static int32_t run_sqe(struct uring *r, const struct io_uring_sqe *s)
{
	struct io_uring_sqe *e = uring_sqe(r);

	*e = *s;
	return uring_run1(r);
}

static void check_opcodes(struct uring *r)
{
	int bad = 0, unsupported = 0, n = 0;
	int32_t res;

	for (unsigned op = probe->last_op + 1U; op < 256; op++, n++)
		if ((res = run_sqe(r, &(struct io_uring_sqe){.opcode = (uint8_t)op, .fd = -1})) !=
		    -EINVAL) {
			diag("opcode %u: %d", op, res);
			bad++;
		}
	is_int(bad, 0, "each of the %d opcodes past the last: EINVAL in its CQE", n);
	bad = 0;
	for (unsigned op = 0; op <= probe->last_op; op++) {
		if (probe->ops[op].flags & IO_URING_OP_SUPPORTED)
			continue;
		unsupported++;
		if ((res = run_sqe(r, &(struct io_uring_sqe){.opcode = (uint8_t)op, .fd = -1})) !=
		    -EOPNOTSUPP) {
			diag("opcode %u (unsupported): %d", op, res);
			bad++;
		}
	}
	is_int(bad, 0, "each of the %d opcodes the probe calls unsupported: EOPNOTSUPP",
	       unsupported);
	is_int(run_sqe(r, &(struct io_uring_sqe){.opcode = IORING_OP_NOP, .flags = 0x80}), -EINVAL,
	       "the unknown SQE flag 0x80: EINVAL");
	uring_prep(r, IORING_OP_NOP, -1, 0, 0, 0, 0);
	uring_prep(r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	__atomic_store_n(r->sq_tail, r->sq_local, __ATOMIC_RELEASE);
	is_int(uring_enter_raw(r->fd, 100, 2, IORING_ENTER_GETEVENTS, NULL, 0), 2,
	       "to_submit 100 with 2 SQEs queued: 2 submitted");
	struct io_uring_cqe c;
	ok(uring_peek(r, &c) && uring_peek(r, &c), "and their 2 CQEs");
	is_int(run_sqe(r, &(struct io_uring_sqe){.opcode = IORING_OP_FSYNC,
						 .fd = 0,
						 .flags = IOSQE_BUFFER_SELECT}),
	       -EOPNOTSUPP, "BUFFER_SELECT on FSYNC: EOPNOTSUPP");
}

/* Every op that takes an fd, given fd: how many CQEs were not EBADF. */
static int bad_fd_ops(struct uring *r, int fd, uint8_t flags)
{
	static char buf[256];
	static struct iovec iov = {buf, sizeof(buf)};
	static struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	static struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = 1};
	static const struct {
		uint8_t op;
		uint64_t addr;
		uint32_t len;
		const char *name;
	} ops[] = {
	    {IORING_OP_READ, (uint64_t)buf, sizeof(buf), "READ"},
	    {IORING_OP_WRITE, (uint64_t)buf, sizeof(buf), "WRITE"},
	    {IORING_OP_READV, (uint64_t)&iov, 1, "READV"},
	    {IORING_OP_WRITEV, (uint64_t)&iov, 1, "WRITEV"},
	    {IORING_OP_FSYNC, 0, 0, "FSYNC"},
	    {IORING_OP_POLL_ADD, 0, 0, "POLL_ADD"},
	    {IORING_OP_SENDMSG, (uint64_t)&m, 0, "SENDMSG"},
	    {IORING_OP_RECVMSG, (uint64_t)&m, 0, "RECVMSG"},
	    {IORING_OP_SEND, (uint64_t)buf, sizeof(buf), "SEND"},
	    {IORING_OP_RECV, (uint64_t)buf, sizeof(buf), "RECV"},
	    {IORING_OP_ACCEPT, 0, 0, "ACCEPT"},
	    {IORING_OP_CONNECT, (uint64_t)&sin, 0, "CONNECT"},
	};
	int bad = 0;
	int32_t res;

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct io_uring_sqe s = {.opcode = ops[i].op,
					 .fd = fd,
					 .flags = flags,
					 .addr = ops[i].addr,
					 .len = ops[i].len};
		if (ops[i].op == IORING_OP_CONNECT)
			s.off = sizeof(sin); /* addr2's place: the address length */
		if (ops[i].op == IORING_OP_POLL_ADD)
			s.poll32_events = POLLIN;
		if ((res = run_sqe(r, &s)) != -EBADF) {
			diag("%s on fd %d (flags %#x): %d", ops[i].name, fd, flags, res);
			bad++;
		}
	}
	if (flags)
		return bad;
	/* The path ops, on a relative path from the dirfd; CLOSE. */
	res = run_sqe(r, &(struct io_uring_sqe){
			     .opcode = IORING_OP_OPENAT, .fd = fd, .addr = (uint64_t) "x"});
	bad += res != -EBADF;
	res = run_sqe(r, &(struct io_uring_sqe){.opcode = IORING_OP_STATX,
						.fd = fd,
						.addr = (uint64_t) "x",
						.len = 0x7ff,
						.off = (uint64_t)buf});
	bad += res != -EBADF;
	res = run_sqe(r, &(struct io_uring_sqe){.opcode = IORING_OP_CLOSE, .fd = fd});
	bad += res != -EBADF;
	return bad;
}

static void check_fds(struct uring *r)
{
	static const int fds[] = {-1, 9999, (1 << 30) - 1, (1 << 30) + 5, INT_MAX};
	int bad = 0, sp[2] = {-1, -1};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		bad += bad_fd_ops(r, fds[i], 0);
	is_int(bad, 0, "every fd op on fds -1, 9999, 2^30-1, 2^30+5, 2^31-1: EBADF in the CQE");
	is_int(bad_fd_ops(r, 0, IOSQE_FIXED_FILE), 0, "FIXED_FILE with no table: EBADF");
	require(!uring_register_raw(
		    r->fd, IORING_REGISTER_FILES,
		    (int32_t[]){-1, socketpair(AF_UNIX, SOCK_STREAM, 0, sp) ? -1 : sp[0]}, 2),
		"a table of two slots, the first empty");
	bad = bad_fd_ops(r, 0, IOSQE_FIXED_FILE);
	bad += bad_fd_ops(r, 2, IOSQE_FIXED_FILE);
	bad += bad_fd_ops(r, -1, IOSQE_FIXED_FILE);
	is_int(bad, 0, "FIXED_FILE of an empty slot, one past the table, -1: EBADF");
	uring_register_raw(r->fd, IORING_UNREGISTER_FILES, NULL, 0);
	close(sp[0]);
	close(sp[1]);
}

static void check_ioprio(struct uring *r)
{
	static const uint8_t ops[] = {IORING_OP_NOP,	 IORING_OP_FSYNC,   IORING_OP_POLL_ADD,
				      IORING_OP_TIMEOUT, IORING_OP_CONNECT, IORING_OP_CLOSE};
	int p[2], bad = 0;
	char buf[4];
	int32_t res;

	require(!pipe(p), "a pipe");
	for (unsigned i = 0; i < sizeof(ops); i++) {
		uring_prep(r, ops[i], p[0], 0, 0, 0, 0)->ioprio = 1;
		if ((res = uring_run1(r)) != -EINVAL)
			bad++, diag("op %u with ioprio 1: %d", ops[i], res);
	}
	is_int(bad, 0, "ioprio on NOP, FSYNC, POLL_ADD, TIMEOUT, CONNECT, CLOSE: EINVAL");
	uring_prep(r, IORING_OP_LINK_TIMEOUT, -1, 0, 0, 0, 0)->ioprio = 89;
	is_int(uring_run1(r), -EINVAL, "a LINK_TIMEOUT with ioprio 89: EINVAL");
	uring_prep(r, IORING_OP_READ, p[0], (uint64_t)buf, 1, 0, 0)->ioprio = 0xffff;
	is_int(uring_run1(r), -EINVAL, "a READ with I/O priority class 7: EINVAL");
	uring_prep(r, IORING_OP_WRITE, p[1], (uint64_t) "ab", 2, 0, 0)->ioprio = 2 << 13 | 7;
	is_int(uring_run1(r), 2, "a WRITE in class BE, level 7: done");
	uring_prep(r, IORING_OP_READ, p[0], (uint64_t)buf, 2, 0, 0)->ioprio = 3 << 13;
	is_int(uring_run1(r), 2, "a READ in class IDLE: done");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	struct uring r;

	plan(51);
	require(!uring_init(&r, 8, 0), "a ring");
	check_register(&r);
	check_enter(&r);
	check_setup();
	check_opcodes(&r);
	check_fds(&r);
	check_ioprio(&r);
	uring_exit(&r);
	return done();
}
