/* IORING_FEAT_POLL_32BITS (Linux 5.9): POLL_ADD reads 32 bits of
 * events, whose EPOLLEXCLUSIVE makes the polls of one file wake one of
 * them (the others stay armed), and an update of the events keeps it;
 * the other high bits change nothing.  And what a ring with that feature
 * does with the CQE counts of TIMEOUTs (liburing's timeout-overflow,
 * which skips on such a kernel): the count is of the CQEs posted after
 * the TIMEOUT's issue, and the TIMEOUTs a submission's CQEs satisfy post
 * after them.  Neither depends on speed: which polls the one write woke
 * is known once io_uring_enter returned (the wake-ups are retried before
 * the return to user mode), and a TIMEOUT's count is met or not when its
 * submission ends. */
#define _GNU_SOURCE
#include <limits.h>
#include <liburing.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "testutil.h"
#include "uring_run1.h"

static struct io_uring r;
static int p[2];

static void poll_add(uint32_t events, uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_poll_add(s, p[0], 0);
	s->poll32_events = events;
	io_uring_sqe_set_data64(s, data);
}

static void poll_remove(uint64_t key, uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_poll_remove(s, key);
	io_uring_sqe_set_data64(s, data);
}

/* Reaps n CQEs: res[user_data] (user_data below 8). */
static void reap(int n, int *res)
{
	struct io_uring_cqe c;

	for (int i = 0; i < n && !next_cqe(&r, &c); i++)
		if (c.user_data < 8)
			res[c.user_data] = c.res;
}

/* Two EPOLLEXCLUSIVE polls (1 and 2) and a plain one (3) of the pipe;
 * one byte written: the plain one and one exclusive one end POLLIN, the
 * other stays armed (its removal finds it: 0, and it ends -ECANCELED). */
static void check_exclusive(void)
{
	int res[8] = {0};

	poll_add(POLLIN | EPOLLEXCLUSIVE, 1);
	poll_add(POLLIN | EPOLLEXCLUSIVE, 2);
	poll_add(POLLIN, 3);
	is_int(io_uring_submit(&r), 3, "three POLL_ADDs of an empty pipe submitted");
	require(write(p[1], "x", 1) == 1, "write");
	reap(2, res);
	is_int(res[3], POLLIN, "the plain poll: POLLIN");
	poll_remove(1, 4);
	poll_remove(2, 5);
	io_uring_submit(&r);
	reap(3, res);
	ok((res[1] == POLLIN) != (res[2] == POLLIN), "one exclusive poll woke, not both (%d, %d)",
	   res[1], res[2]);
	ok((res[1] == -ECANCELED) != (res[2] == -ECANCELED),
	   "the other stayed armed until removed: ECANCELED (%d, %d)", res[1], res[2]);
	ok((res[4] == 0 && res[5] == -ENOENT) || (res[4] == -ENOENT && res[5] == 0),
	   "its removal 0, the woken one's ENOENT (%d, %d)", res[4], res[5]);
	require(read(p[0], res, 1) == 1, "read");
}

/* An exclusive poll (1) on POLLPRI, updated to POLLIN, stays exclusive:
 * with another exclusive one (2), one write wakes one. */
static void check_update_keeps_exclusive(void)
{
	struct io_uring_sqe *s;
	int res[8] = {0};

	poll_add(POLLPRI | EPOLLEXCLUSIVE, 1);
	poll_add(POLLIN | EPOLLEXCLUSIVE, 2);
	io_uring_submit(&r);
	s = io_uring_get_sqe(&r);
	io_uring_prep_poll_update(s, 1, 0, POLLIN, IORING_POLL_UPDATE_EVENTS);
	io_uring_sqe_set_data64(s, 3);
	is_int(run1(&r), 0, "the update of poll 1's events to POLLIN: 0");
	require(write(p[1], "x", 1) == 1, "write");
	reap(1, res);
	poll_remove(1, 4);
	poll_remove(2, 5);
	io_uring_submit(&r);
	reap(3, res);
	ok((res[1] == POLLIN) != (res[2] == POLLIN),
	   "the updated poll is exclusive still: one of two woke (%d, %d)", res[1], res[2]);
	require(read(p[0], res, 1) == 1, "read");
}

/* EPOLLWAKEUP, EPOLLONESHOT and EPOLLET in a POLL_ADD's events: its
 * result is the event, no more. */
static void check_high_bits(void)
{
	require(write(p[1], "x", 1) == 1, "write");
	poll_add(POLLIN | EPOLLWAKEUP | EPOLLONESHOT | EPOLLET, 1);
	is_int(run1(&r), POLLIN, "POLL_ADD with EPOLLWAKEUP|ONESHOT|ET of a readable pipe: POLLIN");
	require(read(p[0], &(char){0}, 1) == 1, "read");
}

/* liburing's timeout-overflow, as a POLL_32BITS kernel runs it: TIMEOUTs
 * counting 1, 1, 2 and UINT_MAX CQEs, then two NOPs, in one submission.
 * The NOPs post first; the first three, met by them, end 0 after them;
 * the last goes off: ETIME.  A TIMEOUT's own CQE counts for none. */
static void check_timeout_counts(void)
{
	static const unsigned counts[] = {1, 1, 2, UINT_MAX};
	struct __kernel_timespec long_ts = {5, 0}, short_ts = {0, 20000000};
	struct io_uring_cqe c[6];
	int n = 0, zero = 0;

	for (int i = 0; i < 4; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(&r);

		io_uring_prep_timeout(s, i < 3 ? &long_ts : &short_ts, counts[i], 0);
		io_uring_sqe_set_data64(s, 10 + i);
	}
	for (int i = 0; i < 2; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(&r);

		io_uring_prep_nop(s);
		io_uring_sqe_set_data64(s, 1);
	}
	is_int(io_uring_submit(&r), 6, "four TIMEOUTs and two NOPs submitted");
	while (n < 6 && !next_cqe(&r, &c[n]))
		n++;
	is_int(n, 6, "six CQEs");
	ok(c[0].user_data == 1 && c[1].user_data == 1, "the two NOPs first (%llu, %llu)",
	   (unsigned long long)c[0].user_data, (unsigned long long)c[1].user_data);
	for (int i = 2; i < 5; i++)
		zero += c[i].user_data >= 10 && c[i].user_data < 13 && c[i].res == 0;
	is_int(zero, 3, "then the TIMEOUTs counting 1, 1 and 2: 0");
	ok(c[5].user_data == 13 && c[5].res == -ETIME, "the one counting UINT_MAX last: ETIME (%d)",
	   c[5].res);
}

int main(void)
{
	struct io_uring_params params = {0};

	plan(14);
	require(io_uring_queue_init_params(16, &r, &params) == 0, "io_uring_queue_init");
	require(pipe(p) == 0, "pipe");
	ok(params.features & IORING_FEAT_POLL_32BITS, "IORING_FEAT_POLL_32BITS");
	check_exclusive();
	check_update_keeps_exclusive();
	check_high_bits();
	check_timeout_counts();
	io_uring_queue_exit(&r);
	return done();
}
