/* io_uring's LINK_TIMEOUT and IOSQE_IO_DRAIN on Debian's liburing.
 * A link timeout that fires cancels the request before it (that one
 * -ECANCELED, the timeout -ETIME, the rest of the chain -ECANCELED); one
 * whose request completes first ends -ECANCELED and the chain goes on;
 * its preparation errors (alone, after another, off set) fail in their
 * CQEs; TIMEOUT_REMOVE's LINK_TIMEOUT_UPDATE moves a waiting one's
 * deadline, and finds none that went off or never started (ENOENT).  A drained SQE starts only once
 * every earlier one has completed, and later ones only once it has: the CQEs come in submission
 * order; a ring that saw CQE_SKIP_SUCCESS refuses DRAIN (EOPNOTSUPP); rings closed and processes
 * exiting with drained requests waiting leave nothing. */
#define _GNU_SOURCE
#include <liburing.h>
#include <poll.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_child.h"

static struct io_uring r;
static char buf[8];

/* Sets the user_data and flags of s, prepared already. */
static struct io_uring_sqe *mark(struct io_uring_sqe *s, uint64_t data, unsigned flags)
{
	io_uring_sqe_set_data64(s, data);
	io_uring_sqe_set_flags(s, flags);
	return s;
}

static void nop(uint64_t data, unsigned flags)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_nop(s);
	mark(s, data, flags);
}

static void read1(uint64_t data, unsigned flags, int fd)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_read(s, fd, buf, 1, -1);
	mark(s, data, flags);
}

/* A LINK_TIMEOUT of ns nanoseconds (the timespec is read at submission). */
static struct io_uring_sqe *link_timeout(uint64_t data, long long ns, unsigned flags)
{
	static struct __kernel_timespec ts[4];
	static int next;
	struct __kernel_timespec *t = &ts[next++ % 4];
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	t->tv_sec = ns / 1000000000;
	t->tv_nsec = ns % 1000000000;
	io_uring_prep_link_timeout(s, t, 0);
	return mark(s, data, flags);
}

/* Waits for n CQEs, each one's res stored at its user_data (< max), the
 * order they came in in order[] (if not NULL): 0 or -1. */
static int reap(int n, int max, int *res, int *order)
{
	struct io_uring_cqe *c;

	for (int i = 0; i < n; i++) {
		if (io_uring_wait_cqe(&r, &c) || c->user_data >= (uint64_t)max)
			return -1;
		res[c->user_data] = c->res;
		if (order)
			order[i] = (int)c->user_data;
		io_uring_cqe_seen(&r, c);
	}
	return 0;
}

static void check_fires(int p0)
{
	int res[3];

	read1(0, IOSQE_IO_LINK, p0);
	link_timeout(1, 20000000, 0);
	io_uring_submit(&r);
	require(!reap(2, 2, res, NULL), "2 CQEs");
	ok(res[0] == -ECANCELED && res[1] == -ETIME,
	   "a READ of an empty pipe timed out by its link: ECANCELED, the timeout ETIME (%d, %d)",
	   res[0], res[1]);

	read1(0, IOSQE_IO_LINK, p0);
	link_timeout(1, 20000000, IOSQE_IO_LINK);
	nop(2, 0);
	io_uring_submit(&r);
	require(!reap(3, 3, res, NULL), "3 CQEs");
	ok(res[0] == -ECANCELED && res[1] == -ETIME && res[2] == -ECANCELED,
	   "READ -> LINK_TIMEOUT -> NOP timed out: the NOP ECANCELED too (%d, %d, %d)", res[0],
	   res[1], res[2]);
}

static void check_not_fired(int p0, int p1)
{
	int res[3];

	nop(0, IOSQE_IO_LINK);
	link_timeout(1, 10000000000LL, 0);
	io_uring_submit(&r);
	require(!reap(2, 2, res, NULL), "2 CQEs");
	ok(res[0] == 0 && res[1] == -ECANCELED, "a NOP before its link timeout: 0, ECANCELED");

	read1(0, IOSQE_IO_LINK, p0);
	link_timeout(1, 10000000000LL, IOSQE_IO_LINK);
	nop(2, 0);
	io_uring_submit(&r);
	is_int(write(p1, "a", 1), 1, "the pipe written after the READ waits");
	require(!reap(3, 3, res, NULL), "3 CQEs");
	ok(res[0] == 1 && res[1] == -ECANCELED && res[2] == 0,
	   "a READ done before its link timeout: 1, ECANCELED, the NOP after it 0 (%d, %d, %d)",
	   res[0], res[1], res[2]);

	is_int(write(p1, "b", 1), 1, "data in the pipe");
	read1(0, IOSQE_IO_LINK, p0);
	link_timeout(1, 10000000000LL, 0);
	io_uring_submit(&r);
	require(!reap(2, 2, res, NULL), "2 CQEs");
	ok(res[0] == 1 && res[1] == -ECANCELED, "a READ with data ready: 1, ECANCELED");

	read1(0, IOSQE_IO_LINK, 999);
	link_timeout(1, 10000000000LL, IOSQE_IO_LINK);
	nop(2, 0);
	io_uring_submit(&r);
	require(!reap(3, 3, res, NULL), "3 CQEs");
	ok(res[0] == -EBADF && res[1] == -ECANCELED && res[2] == -ECANCELED,
	   "a READ failing (EBADF) before its link timeout: the timeout and the NOP ECANCELED");
}

/* A TIMEOUT_REMOVE with LINK_TIMEOUT_UPDATE of key to ns from now. */
static void ltimeout_update(uint64_t data, uint64_t key, long long ns)
{
	static struct __kernel_timespec t;
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	t.tv_sec = ns / 1000000000;
	t.tv_nsec = ns % 1000000000;
	io_uring_prep_timeout_update(s, &t, key, IORING_LINK_TIMEOUT_UPDATE); /* liburing 2.3 */
	mark(s, data, 0);
}

/* A READ that waits with a 10 s link timeout, brought to 20 ms by an
 * update: the update 0, then the READ ECANCELED and the timeout ETIME;
 * an update of that timeout now (it went off and is gone) or of an
 * unknown key: ENOENT. */
static void check_update(int p0)
{
	int res[3];

	read1(0, IOSQE_IO_LINK, p0);
	link_timeout(1, 10000000000LL, 0);
	io_uring_submit(&r);
	ltimeout_update(2, 1, 20000000);
	io_uring_submit(&r);
	require(!reap(3, 3, res, NULL), "3 CQEs");
	ok(res[2] == 0 && res[0] == -ECANCELED && res[1] == -ETIME,
	   "LINK_TIMEOUT_UPDATE to 20 ms: 0, the READ ECANCELED, the timeout ETIME (%d, %d, %d)",
	   res[2], res[0], res[1]);
	ltimeout_update(2, 1, 20000000);
	io_uring_submit(&r);
	require(!reap(1, 3, res, NULL), "1 CQE");
	is_int(res[2], -ENOENT, "an update of the timeout that went off: ENOENT");
	ltimeout_update(2, 77, 20000000);
	io_uring_submit(&r);
	require(!reap(1, 3, res, NULL), "1 CQE");
	is_int(res[2], -ENOENT, "an update of an unknown key: ENOENT");
}

/* A TIMEOUT with a count, linked after a READ that waits: its count
 * starts when it is issued, after the READ's CQE, so the next CQE (a
 * NOP's) ends it with 0; it never sleeps its 10 s. */
static void check_counted_in_chain(int p0, int p1)
{
	static struct __kernel_timespec ten = {10, 0};
	struct io_uring_sqe *s;
	int res[3];

	read1(0, IOSQE_IO_LINK, p0);
	io_uring_prep_timeout(s = io_uring_get_sqe(&r), &ten, 1, 0);
	mark(s, 1, 0);
	io_uring_submit(&r);
	is_int(write(p1, "e", 1), 1, "the READ's data written");
	require(!reap(1, 3, res, NULL), "the READ's CQE");
	nop(2, 0);
	io_uring_submit(&r);
	require(!reap(2, 3, res, NULL), "2 CQEs");
	ok(res[1] == 0 && res[2] == 0,
	   "a counted TIMEOUT after a READ in a chain: 0 after one CQE");
}

static void check_bad(void)
{
	int res[3];

	link_timeout(0, 1000000, 0);
	io_uring_submit(&r);
	require(!reap(1, 1, res, NULL), "1 CQE");
	is_int(res[0], -EINVAL, "a LINK_TIMEOUT not linked to: EINVAL");

	nop(0, IOSQE_IO_LINK);
	link_timeout(1, 1000000, IOSQE_IO_LINK);
	link_timeout(2, 1000000, 0);
	io_uring_submit(&r);
	require(!reap(3, 3, res, NULL), "3 CQEs");
	ok(res[0] == -ECANCELED && res[1] == -ECANCELED && res[2] == -EINVAL,
	   "a LINK_TIMEOUT after a LINK_TIMEOUT: EINVAL, the chain ECANCELED");

	nop(0, IOSQE_IO_LINK);
	link_timeout(1, 1000000, 0)->off = 1;
	io_uring_submit(&r);
	require(!reap(2, 2, res, NULL), "2 CQEs");
	ok(res[0] == -ECANCELED && res[1] == -EINVAL, "a LINK_TIMEOUT with a count: EINVAL");

	nop(0, IOSQE_IO_LINK);
	link_timeout(1, 1000000, 0)->len = 2;
	io_uring_submit(&r);
	require(!reap(2, 2, res, NULL), "2 CQEs");
	ok(res[0] == -ECANCELED && res[1] == -EINVAL, "a LINK_TIMEOUT with len 2: EINVAL");
}

static bool in_order(const int *order, int n)
{
	for (int i = 0; i < n; i++)
		if (order[i] != i)
			return false;
	return true;
}

/* Submits what is prepared, checks that nothing completes (what), then
 * writes the waiting READ's byte and reaps n CQEs: 0 or -1. */
static int held_then_released(int p1, const char *what, int n, int *res, int *order)
{
	struct io_uring_cqe *c;

	io_uring_submit(&r);
	is_int(io_uring_peek_cqe(&r, &c), -EAGAIN, "%s", what);
	if (write(p1, "c", 1) != 1)
		return -1;
	return reap(n, 4, res, order);
}

static void check_drain(int p0, int p1)
{
	int res[4], order[4];

	nop(0, IOSQE_IO_DRAIN);
	io_uring_submit(&r);
	require(!reap(1, 1, res, NULL), "1 CQE");
	is_int(res[0], 0, "a drained NOP with nothing before it: 0");

	read1(0, 0, p0);
	nop(1, 0);
	io_uring_submit(&r);
	require(!reap(1, 4, res, order), "1 CQE");
	is_int(order[0], 1, "without DRAIN a NOP completes while a READ waits");
	nop(2, IOSQE_IO_DRAIN);
	nop(3, 0);
	require(!held_then_released(p1, "a drained NOP and the NOP after it wait", 3, res, order),
		"3 CQEs");
	ok(order[0] == 0 && order[1] == 2 && order[2] == 3 && res[0] == 1 && !res[2] && !res[3],
	   "the READ, the drained NOP, the NOP: in that order");

	read1(0, 0, p0);
	nop(1, IOSQE_IO_LINK);
	nop(2, IOSQE_IO_DRAIN);
	nop(3, 0);
	require(!held_then_released(p1, "DRAIN in a link drains the whole chain", 4, res, order),
		"4 CQEs");
	ok(in_order(order, 4) && res[0] == 1 && !res[1] && !res[2] && !res[3],
	   "the READ, the chain, the NOP after it: in that order");
}

static void check_drain_skip(void)
{
	struct io_uring s;
	struct io_uring_cqe *c;
	struct io_uring_sqe *e;

	require(!io_uring_queue_init(4, &s, 0), "a second ring");
	io_uring_prep_nop(e = io_uring_get_sqe(&s));
	io_uring_sqe_set_flags(e, IOSQE_CQE_SKIP_SUCCESS);
	io_uring_prep_nop(e = io_uring_get_sqe(&s));
	io_uring_sqe_set_flags(e, IOSQE_IO_DRAIN);
	int n = io_uring_submit_and_wait(&s, 1), err = io_uring_wait_cqe(&s, &c);
	ok(n == 2 && !err && c->res == -EOPNOTSUPP,
	   "DRAIN on a ring that saw CQE_SKIP_SUCCESS: EOPNOTSUPP (%d, %d, %d)", n, err,
	   err ? 0 : c->res);
	io_uring_queue_exit(&s);
}

/* The teardown child's requests: a READ of a pipe nobody writes, a
 * drained NOP and a NOP behind it. */
static int arm_drain(struct io_uring *c, int unused)
{
	struct io_uring_sqe *e;
	int p[2];

	(void)unused;
	if (pipe(p))
		return -1;
	io_uring_prep_read(io_uring_get_sqe(c), p[0], buf, 1, -1);
	io_uring_prep_nop(e = io_uring_get_sqe(c));
	io_uring_sqe_set_flags(e, IOSQE_IO_DRAIN);
	io_uring_prep_nop(io_uring_get_sqe(c));
	return 3;
}

int main(void)
{
	int p[2];

	plan(27);
	require(!pipe(p), "a pipe");
	is_int(io_uring_queue_init(16, &r, 0), 0, "io_uring_queue_init");
	check_fires(p[0]);
	check_not_fired(p[0], p[1]);
	check_update(p[0]);
	check_counted_in_chain(p[0], p[1]);
	check_bad();
	check_drain(p[0], p[1]);
	check_drain_skip();
	is_int(uring_child(true, arm_drain, 0), 0, "a ring closed with drained requests waiting");
	is_int(uring_child(false, arm_drain, 0), 0, "an exit with drained requests waiting");
	io_uring_queue_exit(&r);
	return done();
}
