/*
 * The kernel's one I/O iterator: a cursor over the segments of a transfer
 * (Linux's iov_iter).  read/write/readv/writev/pread/pwrite/preadv/pwritev
 * build one and hand it to the file's read_iter/write_iter; sendmsg and
 * recvmsg carry one in their struct kmsg.  So every file type sees a whole
 * vector in one call, and copies straight between its own memory and the
 * segments, piece by piece.
 *
 * Segments are user addresses (system calls; copies go through
 * copy_to_user/copy_from_user, so a fault is reported, never taken), or
 * kernel addresses for the kernel's own reads and writes (execve, the
 * initrd).  An iterator belongs to one call on one task: no lock.
 */
#ifndef LIB_IOV_ITER_H
#define LIB_IOV_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <uapi/uio.h>

/* Largest single transfer, as Linux's MAX_RW_COUNT: longer ones are short. */
#define MAX_RW_COUNT (0x7fffffffUL & ~0xfffUL)
/* Segments iovec_import() checks in the caller's array before allocating. */
#define UIO_FASTIOV 8

struct iov_iter {
	const struct iovec *iov; /* the segments (not owned: outlive the iterator) */
	size_t nr;		 /* entries in iov */
	size_t idx;		 /* current entry */
	size_t off;		 /* bytes used of the current entry */
	size_t left;		 /* bytes left in all entries */
	bool kernel;		 /* segments are kernel addresses */
	bool append;		 /* RWF_APPEND: a regular file's write goes to its end */
};

/* A cursor over nr user segments whose lengths add up to total. */
void iov_iter_init(struct iov_iter *it, const struct iovec *iov, size_t nr, size_t total);
/* A cursor over one kernel buffer; *v (the caller's) describes it. */
void iov_iter_kernel(struct iov_iter *it, struct iovec *v, void *kbuf, size_t len);
/* A cursor over nr kernel segments whose lengths add up to total (a pipe's
 * ring, which wraps). */
void iov_iter_kernel_vec(struct iov_iter *it, const struct iovec *iov, size_t nr, size_t total);

static inline size_t iov_iter_count(const struct iov_iter *it)
{
	return it->left;
}

/* Bytes left in the current segment: what a Linux file with only a .write
 * operation sees of each write of a writev (eventfd). */
static inline size_t iov_iter_segment_count(const struct iov_iter *it)
{
	return it->left ? it->iov[it->idx].iov_len - it->off : 0;
}

/*
 * Copy n bytes (n <= iov_iter_count) to or from the segments and move the
 * cursor past what was copied.  Return the bytes copied: fewer than n only
 * when a user page faulted, and then exactly the bytes before that page, so
 * a file type can report partial progress as Linux does.
 */
size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it);
size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it);
/* Zeroes n bytes of the segments (holes, /dev/zero); same result. */
size_t zero_to_iter(size_t n, struct iov_iter *it);
/* Moves the cursor past n bytes (at most iov_iter_count), touching none:
 * a transfer resumed after its first part (io_uring's MSG_WAITALL). */
void iov_iter_advance(struct iov_iter *it, size_t n);

/*
 * All or nothing, for callers that fail the whole transfer on a fault
 * (a datagram, a socket ring chunk): 0, or -EFAULT with the cursor
 * somewhere inside the n bytes (the caller drops the iterator).
 */
int copy_to_iter_full(const void *src, size_t n, struct iov_iter *it);
int copy_from_iter_full(void *dst, size_t n, struct iov_iter *it);

/*
 * Copies the user iovec array uvec of nr entries and checks it, as Linux's
 * import_iovec: nr > UIO_MAXIOV or a length above SSIZE_MAX is -EINVAL (all
 * lengths are checked first), the array or a segment outside user memory
 * -EFAULT, -ENOMEM; a total above MAX_RW_COUNT is shortened to it.
 * [in,out] *iov: the caller's array of UIO_FASTIOV entries, used when nr
 * fits; otherwise replaced by a kmalloc'd one.  Either way the caller
 * kfree()s *iov afterwards: it is NULL when the caller's array was used.
 * On success *it walks the segments.
 */
int iovec_import(const struct iovec *uvec, unsigned long nr, struct iovec **iov,
		 struct iov_iter *it);

#endif
