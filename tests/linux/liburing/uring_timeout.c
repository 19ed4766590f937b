/* io_uring's TIMEOUT flags through Debian's liburing: the clocks
 * (BOOTTIME, REALTIME, relative and absolute), ETIME_SUCCESS (its -ETIME
 * does not break a link), MULTISHOT (a CQE with F_MORE per firing, a
 * count of firings or for ever until removed), TIMEOUT_REMOVE's
 * IORING_TIMEOUT_UPDATE (a new deadline, relative or absolute, and the
 * CQE count dropped), and Linux's EINVAL for the bad combinations.  No
 * assertion depends on speed: results, and that an absolute timeout did
 * not end before its time. */
#define _GNU_SOURCE
#include <liburing.h>
#include <time.h>

#include "testutil.h"
#include "uring_run1.h"

#ifndef IORING_TIMEOUT_MULTISHOT
#define IORING_TIMEOUT_MULTISHOT (1U << 6) /* Linux 6.4's; older headers lack it */
#endif

#define MS	1000000LL
#define AN_HOUR 3600

static struct io_uring r;

static struct io_uring_sqe *timeout(struct __kernel_timespec *ts, unsigned count, unsigned flags,
				    uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_timeout(s, ts, count, flags);
	io_uring_sqe_set_data64(s, data);
	return s;
}

/* TIMEOUT_REMOVE of key, or with UPDATE in flags its update to ts. */
static void remove_or_update(struct __kernel_timespec *ts, uint64_t key, unsigned flags,
			     uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	if (flags & IORING_TIMEOUT_UPDATE)
		io_uring_prep_timeout_update(s, ts, key, flags & ~IORING_TIMEOUT_UPDATE);
	else
		io_uring_prep_timeout_remove(s, key, flags);
	io_uring_sqe_set_data64(s, data);
}

static void nop(uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&r);

	io_uring_prep_nop(s);
	io_uring_sqe_set_data64(s, data);
}

/* Submits and reaps n CQEs; res[i] is user_data i's last result (the
 * user_data are 0..n-1). */
static void run_n(int n, int *res)
{
	struct io_uring_cqe c;

	io_uring_submit(&r);
	for (int i = 0; i < n && !next_cqe(&r, &c); i++)
		if (c.user_data < (uint64_t)n)
			res[c.user_data] = c.res;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct __kernel_timespec ts_of(int64_t ns)
{
	return (struct __kernel_timespec){ns / 1000000000LL, ns % 1000000000LL};
}

static void check_bad(void)
{
	struct __kernel_timespec ts = {0, MS};
	struct io_uring_sqe *s;

	timeout(&ts, 0, IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_REALTIME, 1);
	is_int(run1(&r), -EINVAL, "TIMEOUT on two clocks: EINVAL");
	timeout(&ts, 0, 1U << 7, 1);
	is_int(run1(&r), -EINVAL, "TIMEOUT with an unknown flag: EINVAL");
	timeout(&ts, 0, IORING_TIMEOUT_UPDATE, 1);
	is_int(run1(&r), -EINVAL, "TIMEOUT with UPDATE (TIMEOUT_REMOVE's flag): EINVAL");
	timeout(&ts, 0, IORING_TIMEOUT_MULTISHOT | IORING_TIMEOUT_ABS, 1);
	is_int(run1(&r), -EINVAL, "MULTISHOT with ABS: EINVAL");
	io_uring_prep_timeout_remove(io_uring_get_sqe(&r), 1, IORING_TIMEOUT_ABS);
	is_int(run1(&r), -EINVAL, "TIMEOUT_REMOVE with ABS but no UPDATE: EINVAL");
	io_uring_prep_timeout_update(io_uring_get_sqe(&r), &ts, 1,
				     IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_REALTIME);
	is_int(run1(&r), -EINVAL, "an update on two clocks: EINVAL");
	io_uring_prep_timeout_update(io_uring_get_sqe(&r), &ts, 1, IORING_TIMEOUT_REALTIME);
	is_int(run1(&r), -EINVAL, "an update naming a clock: EINVAL (it keeps the timeout's)");
	io_uring_prep_timeout_update(s = io_uring_get_sqe(&r), &ts, 1, 0);
	s->addr2 = 8;
	is_int(run1(&r), -EFAULT, "an update with a bad timespec: EFAULT");
	io_uring_prep_timeout_update(io_uring_get_sqe(&r), &ts, 12345, 0);
	is_int(run1(&r), -ENOENT, "an update of no timeout: ENOENT");
}

static void check_clocks(void)
{
	struct __kernel_timespec rel = {0, MS}, abs;
	int64_t at;

	timeout(&rel, 0, IORING_TIMEOUT_BOOTTIME, 1);
	is_int(run1(&r), -ETIME, "a relative BOOTTIME timeout: ETIME");
	timeout(&rel, 0, IORING_TIMEOUT_REALTIME, 1);
	is_int(run1(&r), -ETIME, "a relative REALTIME timeout: ETIME");
	at = now_ns(CLOCK_REALTIME) + 20 * MS;
	abs = ts_of(at);
	timeout(&abs, 0, IORING_TIMEOUT_REALTIME | IORING_TIMEOUT_ABS, 1);
	is_int(run1(&r), -ETIME, "an absolute REALTIME timeout: ETIME");
	ok(now_ns(CLOCK_REALTIME) >= at, "not before its time on CLOCK_REALTIME");
	at = now_ns(CLOCK_BOOTTIME) + 20 * MS;
	abs = ts_of(at);
	timeout(&abs, 0, IORING_TIMEOUT_BOOTTIME | IORING_TIMEOUT_ABS, 1);
	is_int(run1(&r), -ETIME, "an absolute BOOTTIME timeout: ETIME");
	ok(now_ns(CLOCK_BOOTTIME) >= at, "not before its time on CLOCK_BOOTTIME");
	abs = ts_of(MS); /* 1970 */
	timeout(&abs, 0, IORING_TIMEOUT_REALTIME | IORING_TIMEOUT_ABS, 1);
	is_int(run1(&r), -ETIME, "an absolute REALTIME time long past: ETIME at once");
}

/* A TIMEOUT linked to a NOP: the NOP's result. */
static int linked_nop(unsigned flags)
{
	struct __kernel_timespec ts = {0, MS};
	int res[2] = {-9999, -9999};

	io_uring_sqe_set_flags(timeout(&ts, 0, flags, 0), IOSQE_IO_LINK);
	nop(1);
	run_n(2, res);
	return res[0] == -ETIME ? res[1] : -9999;
}

static void check_etime_success(void)
{
	is_int(linked_nop(0), -ECANCELED, "a TIMEOUT's ETIME breaks its link: the NOP ECANCELED");
	is_int(linked_nop(IORING_TIMEOUT_ETIME_SUCCESS), 0,
	       "with ETIME_SUCCESS (its CQE still ETIME) the linked NOP runs: 0");
}

static void check_multishot(void)
{
	struct __kernel_timespec ts = {0, 2 * MS};
	struct io_uring_cqe c;
	int more = 0, last = -9999, n = 0;

	timeout(&ts, 3, IORING_TIMEOUT_MULTISHOT, 7);
	io_uring_submit(&r);
	while (n++ < 3 && !next_cqe(&r, &c) && c.user_data == 7) {
		if (c.flags & IORING_CQE_F_MORE)
			more += c.res == -ETIME;
		else
			last = c.res;
	}
	ok(more == 2 && last == -ETIME,
	   "MULTISHOT with a count of 3: two ETIME with F_MORE, then ETIME without (%d, %d)", more,
	   last);

	timeout(&ts, 0, IORING_TIMEOUT_MULTISHOT, 8);
	io_uring_submit(&r);
	more = 0;
	while (more < 2 && !next_cqe(&r, &c) && c.user_data == 8 && (c.flags & IORING_CQE_F_MORE))
		more++;
	is_int(more, 2, "MULTISHOT for ever: CQEs with F_MORE");
	remove_or_update(NULL, 8, 0, 9);
	io_uring_submit(&r);
	int removed = -9999;
	last = -9999;
	for (n = 0; n < 16 && (removed == -9999 || last == -9999) && !next_cqe(&r, &c); n++) {
		if (c.user_data == 9)
			removed = c.res;
		else if (c.user_data == 8 && !(c.flags & IORING_CQE_F_MORE))
			last = c.res;
	}
	is_int(removed, 0, "TIMEOUT_REMOVE of it: 0");
	is_int(last, -ECANCELED, "it ends ECANCELED, without F_MORE");
}

static void check_update(void)
{
	struct __kernel_timespec hour = {AN_HOUR, 0}, soon = {0, MS}, abs;
	int res[3] = {-9999, -9999, -9999};
	int64_t at;

	timeout(&hour, 0, 0, 0);
	io_uring_submit(&r);
	remove_or_update(&soon, 0, IORING_TIMEOUT_UPDATE, 1);
	run_n(2, res);
	ok(res[1] == 0 && res[0] == -ETIME,
	   "an hour's timeout updated to 1 ms: the update 0, the timeout ETIME (%d %d)", res[1],
	   res[0]);

	res[0] = res[1] = -9999;
	timeout(&hour, 0, 0, 0);
	io_uring_submit(&r);
	at = now_ns(CLOCK_MONOTONIC) + 20 * MS;
	abs = ts_of(at);
	remove_or_update(&abs, 0, IORING_TIMEOUT_UPDATE | IORING_TIMEOUT_ABS, 1);
	run_n(2, res);
	ok(res[1] == 0 && res[0] == -ETIME, "updated to an absolute time: 0, then ETIME (%d %d)",
	   res[1], res[0]);
	ok(now_ns(CLOCK_MONOTONIC) >= at, "not before that time");

	/* A timeout waiting for 1 CQE, updated: it counts none any more. */
	res[0] = res[1] = res[2] = -9999;
	timeout(&hour, 1, 0, 0);
	io_uring_submit(&r);
	remove_or_update(&(struct __kernel_timespec){0, 30 * MS}, 0, IORING_TIMEOUT_UPDATE, 1);
	io_uring_submit(&r);
	nop(2);
	run_n(3, res);
	ok(res[1] == 0 && res[2] == 0 && res[0] == -ETIME,
	   "a counting timeout updated ignores the NOP's CQE: ETIME, not 0 (%d %d %d)", res[1],
	   res[2], res[0]);
}

int main(void)
{
	plan(27);
	is_int(io_uring_queue_init(16, &r, 0), 0, "io_uring_queue_init");
	check_bad();
	check_clocks();
	check_etime_success();
	check_multishot();
	check_update();
	io_uring_queue_exit(&r);
	return done();
}
