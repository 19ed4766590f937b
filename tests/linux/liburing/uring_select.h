/* For the liburing tests of provided buffers and buffer rings: a RECV
 * that selects its buffer, and what its CQE says of it. */
#ifndef URING_SELECT_H
#define URING_SELECT_H

#include <liburing.h>
#include <stdbool.h>

static inline unsigned int bid_of(const struct io_uring_cqe *c)
{
	return c->flags >> IORING_CQE_BUFFER_SHIFT;
}

/* The flags a test looks at: Linux may add IORING_CQE_F_SOCK_NONEMPTY. */
static inline unsigned int fl(const struct io_uring_cqe *c)
{
	return c->flags & (IORING_CQE_F_BUFFER | IORING_CQE_F_MORE);
}

/* A RECV of fd into group bgid (multishot or not; len 0: a whole
 * buffer), user_data data. */
static inline struct io_uring_sqe *recv_select_on(struct io_uring *ring, int fd, int bgid,
						  bool multi, uint64_t data)
{
	struct io_uring_sqe *s = io_uring_get_sqe(ring);

	if (multi)
		io_uring_prep_recv_multishot(s, fd, NULL, 0, 0);
	else
		io_uring_prep_recv(s, fd, NULL, 0, 0);
	io_uring_sqe_set_flags(s, IOSQE_BUFFER_SELECT);
	s->buf_group = (uint16_t)bgid;
	io_uring_sqe_set_data64(s, data);
	return s;
}

#endif
