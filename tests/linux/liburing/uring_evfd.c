/* io_uring's registered eventfd on Debian's liburing: REGISTER_EVENTFD's
 * argument checks, the count it gains as CQEs are posted (at least one,
 * at most one per CQE: Linux signals once per batch of completions),
 * IORING_CQ_EVENTFD_DISABLED, REGISTER_EVENTFD_ASYNC (told only of
 * completions posted by an async worker: a NOP run inline is not, one
 * with IOSQE_ASYNC is), UNREGISTER_EVENTFD; and the features the ring
 * reports. */
#define _GNU_SOURCE
#include <liburing.h>
#include <sys/eventfd.h>

#include "testutil.h"

/* The eventfd's count, read without blocking: 0 if nothing is there. */
static uint64_t evcount(int efd)
{
	uint64_t v = 0;

	return read(efd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

/* Submits n NOPs (flags on each) and reaps their n CQEs: 0 or -1. */
static int nops(struct io_uring *r, int n, unsigned flags)
{
	struct io_uring_cqe *c;

	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(r);
		io_uring_prep_nop(s);
		s->flags = flags;
	}
	if (io_uring_submit_and_wait(r, n) != n)
		return -1;
	for (int i = 0; i < n; i++) {
		if (io_uring_wait_cqe(r, &c) || c->res)
			return -1;
		io_uring_cqe_seen(r, c);
	}
	return 0;
}

static void check_register(struct io_uring *r, int efd)
{
	int bad = 999, pfd[2], two[2] = {efd, efd};

	require(!pipe(pfd), "a pipe");
	is_int(io_uring_register(r->ring_fd, IORING_REGISTER_EVENTFD, two, 2), -EINVAL,
	       "REGISTER_EVENTFD with 2 fds: EINVAL");
	is_int(io_uring_register(r->ring_fd, IORING_REGISTER_EVENTFD, NULL, 1), -EFAULT,
	       "REGISTER_EVENTFD of a NULL array: EFAULT");
	is_int(io_uring_register_eventfd(r, bad), -EBADF, "REGISTER_EVENTFD of a closed fd: EBADF");
	is_int(io_uring_register_eventfd(r, pfd[0]), -EINVAL, "REGISTER_EVENTFD of a pipe: EINVAL");
	is_int(io_uring_unregister_eventfd(r), -ENXIO, "UNREGISTER_EVENTFD of none: ENXIO");
	is_int(io_uring_register_eventfd(r, efd), 0, "REGISTER_EVENTFD");
	is_int(io_uring_register_eventfd(r, efd), -EBUSY, "a second REGISTER_EVENTFD: EBUSY");
	is_int(io_uring_register_eventfd_async(r, efd), -EBUSY, "and EVENTFD_ASYNC: EBUSY");
	close(pfd[0]);
	close(pfd[1]);
}

static void check_counts(struct io_uring *r, int efd)
{
	uint64_t n;

	is_int(evcount(efd), 0, "nothing posted: the count is 0");
	is_int(nops(r, 1, 0), 0, "one NOP");
	is_int(evcount(efd), 1, "one CQE: the count is 1");
	is_int(nops(r, 8, 0), 0, "a batch of 8 NOPs");
	n = evcount(efd);
	ok(n >= 1 && n <= 8, "8 CQEs: the count is between 1 and 8 (%llu)", (unsigned long long)n);

	io_uring_cq_eventfd_toggle(r, false);
	ok(!io_uring_cq_eventfd_enabled(r), "IORING_CQ_EVENTFD_DISABLED set");
	is_int(nops(r, 2, 0), 0, "2 NOPs with notifications disabled");
	is_int(evcount(efd), 0, "the count stays 0");
	io_uring_cq_eventfd_toggle(r, true);
	is_int(nops(r, 1, 0), 0, "one NOP, enabled again");
	is_int(evcount(efd), 1, "the count is 1 again");

	is_int(io_uring_unregister_eventfd(r), 0, "UNREGISTER_EVENTFD");
	is_int(nops(r, 1, 0), 0, "one NOP after it");
	is_int(evcount(efd), 0, "the eventfd is no longer told");
}

static void check_async(struct io_uring *r, int efd)
{
	is_int(io_uring_register_eventfd_async(r, efd), 0, "REGISTER_EVENTFD_ASYNC");
	is_int(nops(r, 1, 0), 0, "a NOP run inline");
	is_int(evcount(efd), 0, "EVENTFD_ASYNC: an inline completion is not told");
	is_int(nops(r, 1, IOSQE_ASYNC), 0, "a NOP with IOSQE_ASYNC");
	is_int(evcount(efd), 1, "EVENTFD_ASYNC: the worker's completion is");
	is_int(io_uring_unregister_eventfd(r), 0, "UNREGISTER_EVENTFD of the async one");
}

/* The features this kernel claims: every one that fdkernel reports must
 * hold here too (the host's list is longer). */
static void check_features(const struct io_uring_params *p)
{
	unsigned want = IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_SUBMIT_STABLE |
			IORING_FEAT_RW_CUR_POS | IORING_FEAT_EXT_ARG | IORING_FEAT_NATIVE_WORKERS |
			IORING_FEAT_CQE_SKIP | IORING_FEAT_FAST_POLL;

	is_int(p->features & want, want,
	       "features SINGLE_MMAP, NODROP, SUBMIT_STABLE, RW_CUR_POS, EXT_ARG, "
	       "NATIVE_WORKERS, CQE_SKIP, FAST_POLL");
}

int main(void)
{
	struct io_uring r;
	struct io_uring_params p = {0};
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	plan(29);
	require(efd >= 0, "an eventfd");
	is_int(io_uring_queue_init_params(8, &r, &p), 0, "io_uring_queue_init_params");
	check_features(&p);
	check_register(&r, efd);
	check_counts(&r, efd);
	check_async(&r, efd);
	io_uring_queue_exit(&r);
	close(efd);
	return done();
}
