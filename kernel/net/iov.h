/*
 * A cursor over a user iovec array: sockets copy message data straight
 * between user buffers and their queues through it, piece by piece.
 */
#ifndef NET_IOV_H
#define NET_IOV_H

#include <stddef.h>
#include <uapi/uio.h>

struct iov_iter {
	const struct iovec *iov; /* kernel copy of the user's array (not owned) */
	size_t nr;		 /* entries in iov */
	size_t idx;		 /* current entry */
	size_t off;		 /* bytes used of the current entry */
	size_t left;		 /* bytes left in all entries */
};

void iov_iter_init(struct iov_iter *it, const struct iovec *iov, size_t nr, size_t total);
/* Copies n bytes (n <= it->left) from the user buffers to kdst: 0 or -EFAULT. */
int iov_copy_from_user(struct iov_iter *it, void *kdst, size_t n);
/* Copies n bytes (n <= it->left) from ksrc to the user buffers: 0 or -EFAULT. */
int iov_copy_to_user(struct iov_iter *it, const void *ksrc, size_t n);

#endif
