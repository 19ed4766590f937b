/* For the liburing tests: one submission and its first CQE; the next
 * CQE. */
#ifndef URING_RUN1_H
#define URING_RUN1_H

#include <liburing.h>

/* Submits what is queued and returns the first CQE's res (-9999 if
 * none could be had). */
static inline int run1(struct io_uring *r)
{
	struct io_uring_cqe *c;
	int res;

	if (io_uring_submit(r) < 0 || io_uring_wait_cqe(r, &c))
		return -9999;
	res = c->res;
	io_uring_cqe_seen(r, c);
	return res;
}

/* The next CQE, consumed, into *out: 0 or -1. */
static inline int next_cqe(struct io_uring *r, struct io_uring_cqe *out)
{
	struct io_uring_cqe *c;

	if (io_uring_wait_cqe(r, &c))
		return -1;
	*out = *c;
	io_uring_cqe_seen(r, c);
	return 0;
}

#endif
