/* Provided buffers and multishot RECV on Debian's liburing, as Linux:
 * PROVIDE_BUFFERS gives a group buffers (ids from off), a RECV with
 * IOSQE_BUFFER_SELECT fills the group's next one and names it in its CQE
 * (IORING_CQE_F_BUFFER, the id in flags >> 16), an empty group is
 * ENOBUFS; a multishot RECV posts a CQE with F_MORE per receive, each
 * into a buffer (SQE's len, if any, a cap on each), and ends with
 * ENOBUFS once the group is empty and data comes, or 0 at
 * the end of stream, or ECANCELED (on a direct descriptor too; on an fd,
 * the file it named when armed, the fd closed or not);
 * REMOVE_BUFFERS takes them back; bad
 * fields fail in the CQE; a ring closed with a multishot RECV armed and
 * buffers provided leaves nothing. */
#define _GNU_SOURCE
#include <liburing.h>
#include <sys/socket.h>

#include "robust.h"
#include "testutil.h"
#include "uring_child.h"
#include "uring_run1.h"
#include "uring_select.h"

#define BLEN 16
#define NBUF 4

static struct io_uring r;
static char bufs[NBUF][BLEN];

static int provide(struct io_uring *ring, int nr, int bgid, int bid)
{
	io_uring_prep_provide_buffers(io_uring_get_sqe(ring), bufs, BLEN, nr, bgid, bid);
	return run1(ring);
}

static struct io_uring_sqe *recv_select(int fd, int bgid, bool multi, uint64_t data)
{
	return recv_select_on(&r, fd, bgid, multi, data);
}

static void check_oneshot(int sv[2])
{
	struct io_uring_cqe c = {0};

	is_int(provide(&r, NBUF, 7, 10), 0,
	       "PROVIDE_BUFFERS: 4 buffers of 16 bytes, group 7, ids 10-13");
	is_int(write(sv[1], "hello", 5), 5, "the peer sends 5 bytes");
	recv_select(sv[0], 7, false, 1);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.res == 5 && fl(&c) == IORING_CQE_F_BUFFER && bid_of(&c) == 10 &&
	       !memcmp(bufs[0], "hello", 5),
	   "a RECV with BUFFER_SELECT: 5 bytes in the first buffer, F_BUFFER, id 10 (%d %x)", c.res,
	   c.flags);
	recv_select(sv[0], 8, false, 2);
	is_int(run1(&r), -ENOBUFS, "a RECV from a group never provided: ENOBUFS");
	io_uring_prep_remove_buffers(io_uring_get_sqe(&r), 8, 7);
	is_int(run1(&r), 3, "REMOVE_BUFFERS of 8: the 3 left");
	recv_select(sv[0], 7, false, 3);
	is_int(run1(&r), -ENOBUFS, "a RECV from the emptied group: ENOBUFS");
	io_uring_prep_remove_buffers(io_uring_get_sqe(&r), 1, 9);
	is_int(run1(&r), -ENOENT, "REMOVE_BUFFERS of a group that never was: ENOENT");
}

/* A multishot RECV waits; three sends, three CQEs with F_MORE, each in
 * the next buffer; the fourth finds none: ENOBUFS, the end.  Then one
 * ended by the peer's close (0) and one by ASYNC_CANCEL (ECANCELED). */
static void check_multishot(int sv[2])
{
	static const char *msg[3] = {"a", "bb", "ccc"};
	struct io_uring_cqe c = {0}, *cp;
	int good = 0;

	provide(&r, 3, 1, 0);
	recv_select(sv[0], 1, true, 5);
	io_uring_submit(&r);
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "a multishot RECV waits");
	for (int i = 0; i < 3; i++) {
		int n = (int)strlen(msg[i]);

		if (write(sv[1], msg[i], (size_t)n) != n || next_cqe(&r, &c))
			break;
		good += c.user_data == 5 && c.res == n &&
			fl(&c) == (IORING_CQE_F_BUFFER | IORING_CQE_F_MORE) &&
			bid_of(&c) == (unsigned)i && !memcmp(bufs[i], msg[i], (size_t)n);
	}
	is_int(good, 3, "three sends: three CQEs with F_MORE and F_BUFFER, ids 0, 1, 2");
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "the group empty, it still waits");
	is_int(write(sv[1], "d", 1), 1, "a fourth send");
	next_cqe(&r, &c);
	ok(c.user_data == 5 && c.res == -ENOBUFS && !fl(&c),
	   "no buffer left: ENOBUFS ends it, no F_MORE (%d %x)", c.res, c.flags);

	provide(&r, 2, 1, 20);
	recv_select(sv[0], 1, true, 6);
	io_uring_submit(&r);
	next_cqe(&r, &c);
	ok(c.user_data == 6 && c.res == 1 && bid_of(&c) == 20 && (c.flags & IORING_CQE_F_MORE),
	   "armed with data waiting: it takes it at once (id 20)");
	io_uring_prep_cancel64(io_uring_get_sqe(&r), 6, 0);
	io_uring_submit(&r);
	int res[2] = {1, 1};
	for (int k = 0; k < 2 && !next_cqe(&r, &c); k++)
		res[c.user_data == 6] = fl(&c) ? 1 : c.res;
	ok(res[0] == 0 && res[1] == -ECANCELED, "ASYNC_CANCEL: 0, and it ends ECANCELED");

	recv_select(sv[0], 1, true, 7);
	io_uring_submit(&r);
	close(sv[1]);
	next_cqe(&r, &c);
	ok(c.user_data == 7 && c.res == 0 && !fl(&c),
	   "the peer's close: it ends with 0, no buffer used (%d %x)", c.res, c.flags);
	io_uring_prep_remove_buffers(io_uring_get_sqe(&r), 8, 1);
	is_int(run1(&r), 1, "the buffer not used is still there");
}

/* The next CQE within 10 s (a lost wake-up fails, not hangs): 0 or -1. */
static int cqe_within(struct io_uring_cqe *out)
{
	struct __kernel_timespec ts = {.tv_sec = 10};
	struct io_uring_cqe *c;

	if (io_uring_wait_cqe_timeout(&r, &c, &ts))
		return -1;
	*out = *c;
	io_uring_cqe_seen(&r, c);
	return 0;
}

/* A multishot RECV on a direct descriptor, whose receive tells whether
 * it left the socket empty: one send of 40 bytes fills three 16-byte
 * buffers, a CQE with F_MORE each (none lost to the last one being
 * taken for the end); a byte and the peer's shutdown, both before the
 * ring retries it: the byte, then the end (0). */
static void check_multishot_direct(void)
{
	static char dbufs[8][BLEN];
	struct io_uring_cqe c = {0};
	struct io_uring_sqe *s;
	char big[40];
	int sv[2], got = 0;

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	is_int(io_uring_register_files(&r, &sv[0], 1), 0,
	       "its end registered: direct descriptor 0");
	io_uring_prep_provide_buffers(io_uring_get_sqe(&r), dbufs, BLEN, 8, 2, 0);
	run1(&r);
	s = recv_select(0, 2, true, 9);
	io_uring_sqe_set_flags(s, IOSQE_BUFFER_SELECT | IOSQE_FIXED_FILE);
	io_uring_submit(&r);
	memset(big, 'z', sizeof(big));
	if (write(sv[1], big, sizeof(big)) == (ssize_t)sizeof(big))
		for (int k = 0; k < 3 && !cqe_within(&c); k++)
			got += c.user_data == 9 && c.res == (k < 2 ? BLEN : 8) &&
			       fl(&c) == (IORING_CQE_F_BUFFER | IORING_CQE_F_MORE);
	is_int(got, 3, "one send of 40 bytes: CQEs of 16, 16 and 8 bytes, each with F_MORE");
	got = write(sv[1], "y", 1) == 1 && !shutdown(sv[1], SHUT_WR) && !cqe_within(&c) &&
	      c.res == 1 && (c.flags & IORING_CQE_F_MORE);
	got = got && !cqe_within(&c) && c.user_data == 9 && c.res == 0 && !fl(&c);
	ok(got, "a byte, then the peer's shutdown: the byte with F_MORE, then 0 ends it (%d %x)",
	   c.res, c.flags);
	is_int(io_uring_unregister_files(&r), 0, "unregistered");
	close(sv[0]);
	close(sv[1]);
}

/* A multishot RECV keeps the file its fd named (as Linux's request
 * holds its file): the fd closed and its number reused by another
 * socket with data of its own, the RECV still receives what its own
 * peer sends; that peer's close ends it (0). */
static void check_multishot_closed(void)
{
	static char cbufs[4][BLEN];
	struct io_uring_cqe c = {0};
	int sv[2], nv[2], got;

	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	io_uring_prep_provide_buffers(io_uring_get_sqe(&r), cbufs, BLEN, 4, 3, 0);
	run1(&r);
	recv_select(sv[0], 3, true, 11);
	io_uring_submit(&r);
	close(sv[0]);
	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, nv),
		"another pair (its end takes the number)");
	got = write(nv[1], "zz", 2) == 2 && write(sv[1], "abc", 3) == 3 && !cqe_within(&c) &&
	      c.user_data == 11 && c.res == 3 && (c.flags & IORING_CQE_F_MORE) &&
	      !memcmp(cbufs[bid_of(&c) & 3], "abc", 3);
	ok(got, "its fd closed and reused: the RECV still reads its own socket (%d %x)", c.res,
	   c.flags);
	close(sv[1]);
	got = !cqe_within(&c) && c.user_data == 11 && c.res == 0 && !fl(&c);
	ok(got, "its peer's close ends it: 0 (%d %x)", c.res, c.flags);
	close(nv[0]);
	close(nv[1]);
}

static int submit1(struct io_uring_sqe *s, uint64_t data)
{
	io_uring_sqe_set_data64(s, data);
	return run1(&r);
}

static void check_bad(int fd)
{
	struct io_uring_sqe *s;

	io_uring_prep_provide_buffers(s = io_uring_get_sqe(&r), bufs, BLEN, 0, 1, 0);
	is_int(submit1(s, 30), -E2BIG, "PROVIDE_BUFFERS of 0 buffers: E2BIG");
	io_uring_prep_provide_buffers(s = io_uring_get_sqe(&r), bufs, BLEN, 65537, 1, 0);
	is_int(submit1(s, 31), -E2BIG, "of 65537: E2BIG");
	io_uring_prep_provide_buffers(s = io_uring_get_sqe(&r), bufs, 0, 1, 1, 0);
	is_int(submit1(s, 32), -EINVAL, "of 0 bytes each: EINVAL");
	io_uring_prep_provide_buffers(s = io_uring_get_sqe(&r), bufs, BLEN, 1, 1, 65536);
	is_int(submit1(s, 33), -E2BIG, "with a first id past 65535: E2BIG");
	io_uring_prep_provide_buffers(s = io_uring_get_sqe(&r), bufs, BLEN, 2, 1, 65535);
	is_int(submit1(s, 34), -EINVAL, "with ids past 65535: EINVAL");
	io_uring_prep_provide_buffers(s = io_uring_get_sqe(&r), (void *)-4096L, BLEN, 1, 1, 0);
	is_int(submit1(s, 35), -EFAULT, "at a kernel address: EFAULT");
	io_uring_prep_remove_buffers(s = io_uring_get_sqe(&r), 0, 1);
	is_int(submit1(s, 36), -EINVAL, "REMOVE_BUFFERS of 0: EINVAL");
	io_uring_prep_remove_buffers(s = io_uring_get_sqe(&r), 1, 1);
	s->addr = 8;
	is_int(submit1(s, 37), -EINVAL, "REMOVE_BUFFERS with an address: EINVAL");
	io_uring_prep_recv_multishot(s = io_uring_get_sqe(&r), fd, NULL, 0, 0);
	is_int(submit1(s, 38), -EINVAL, "a multishot RECV without BUFFER_SELECT: EINVAL");
	s = recv_select(fd, 1, true, 39);
	s->len = 8;
	is_int(run1(&r), -ENOBUFS, "a multishot RECV with a length (a cap per receive): ENOBUFS");
	s = recv_select(fd, 1, true, 40);
	s->msg_flags = MSG_WAITALL;
	is_int(run1(&r), -EINVAL, "a multishot RECV with MSG_WAITALL: EINVAL");
	s = recv_select(fd, 1, false, 41);
	s->ioprio = 1U << 7;
	is_int(run1(&r), -EINVAL, "a RECV with an unknown ioprio flag: EINVAL");
	io_uring_prep_nop(s = io_uring_get_sqe(&r));
	io_uring_sqe_set_flags(s, IOSQE_BUFFER_SELECT);
	is_int(submit1(s, 42), -EOPNOTSUPP, "a NOP with BUFFER_SELECT: EOPNOTSUPP");
}

/* The teardown child's: buffers provided, a multishot RECV of a socket
 * pair of its own prepared. */
static int arm_recv(struct io_uring *c, int unused)
{
	int sv[2];

	(void)unused;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || provide(c, NBUF, 3, 0))
		return -1;
	recv_select_on(c, sv[0], 3, true, 1);
	return 1;
}

int main(void)
{
	struct kstat before;
	int sv[2];
	bool have;

	plan(39);
	require(!io_uring_queue_init(16, &r, 0), "a ring");
	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	check_oneshot(sv);
	check_multishot(sv);
	close(sv[0]);
	check_multishot_direct();
	check_multishot_closed();
	require(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "a socket pair");
	check_bad(sv[0]);
	io_uring_queue_exit(&r);
	uring_child_n(8, false, arm_recv, 0); /* warm-up: slab pages */
	have = kstat_read(&before);
	is_int(uring_child_n(8, true, arm_recv, 0), 0,
	       "a ring closed with a multishot RECV armed, buffers provided");
	kstat_unchanged(&before, have, "and nothing of it is left");
	have = kstat_read(&before);
	is_int(uring_child_n(8, false, arm_recv, 0), 0,
	       "an exit with a multishot RECV armed, buffers provided");
	kstat_unchanged(&before, have, "and nothing of it is left");
	return done();
}
