/*
 * The I/O iterator (see iov_iter.h): walks the segments, moving each piece
 * with copy_to_user/copy_from_user/clear_user, or plain memory operations
 * for kernel segments; and iovec_import, the one check of user iovecs.
 */
#include "lib/iov_iter.h"
#include <stdint.h>
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>

#define SSIZE_MAX ((size_t)__LONG_MAX__)

enum iter_op { TO_ITER, FROM_ITER, ZERO_ITER, SKIP_ITER };

void iov_iter_init(struct iov_iter *it, const struct iovec *iov, size_t nr, size_t total)
{
	*it = (struct iov_iter){.iov = iov, .nr = nr, .left = total};
}

void iov_iter_kernel(struct iov_iter *it, struct iovec *v, void *kbuf, size_t len)
{
	*v = (struct iovec){kbuf, len};
	*it = (struct iov_iter){.iov = v, .nr = 1, .left = len, .kernel = true};
}

void iov_iter_kernel_vec(struct iov_iter *it, const struct iovec *iov, size_t nr, size_t total)
{
	*it = (struct iov_iter){.iov = iov, .nr = nr, .left = total, .kernel = true};
}

/* Moves n bytes between segment memory seg and kernel memory k: 0 or -EFAULT. */
static int move(bool kernel, enum iter_op op, char *seg, char *k, size_t n)
{
	if (op == SKIP_ITER)
		return 0;
	if (kernel) {
		if (op == TO_ITER)
			memcpy(seg, k, n);
		else if (op == FROM_ITER)
			memcpy(k, seg, n);
		else
			memset(seg, 0, n);
		return 0;
	}
	if (op == TO_ITER)
		return copy_to_user(seg, k, n);
	if (op == FROM_ITER)
		return copy_from_user(k, seg, n);
	return clear_user(seg, n);
}

/*
 * Moves one piece lying inside one segment: the bytes moved.  User memory
 * faults a page at a time, so after a failed copy the piece is moved again
 * page by page to find how much of it was reachable (slow path: faults only).
 */
static size_t move_piece(const struct iov_iter *it, enum iter_op op, char *seg, char *k, size_t n)
{
	size_t done = 0;

	if (!move(it->kernel, op, seg, k, n))
		return n;
	while (done < n) {
		size_t chunk = PAGE_SIZE - ((uintptr_t)(seg + done) & PAGE_MASK);

		if (chunk > n - done)
			chunk = n - done;
		if (move(it->kernel, op, seg + done, k ? k + done : NULL, chunk))
			break;
		done += chunk;
	}
	return done;
}

/* Runs op over the next n bytes, segment by segment: bytes moved (short at a fault). */
static size_t iter_move(struct iov_iter *it, enum iter_op op, char *k, size_t n)
{
	size_t total = 0;

	if (n > it->left)
		n = it->left;
	while (n) {
		const struct iovec *v = &it->iov[it->idx];
		size_t chunk = v->iov_len - it->off, done = 0;

		if (chunk > n)
			chunk = n;
		if (chunk)
			done = move_piece(it, op, (char *)v->iov_base + it->off,
					  k ? k + total : NULL, chunk);
		total += done;
		n -= done;
		it->left -= done;
		it->off += done;
		if (done < chunk)
			break;
		if (it->off == v->iov_len && it->idx + 1 < it->nr) {
			it->idx++;
			it->off = 0;
		}
	}
	return total;
}

size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it)
{
	return iter_move(it, TO_ITER, (char *)src, n);
}

size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it)
{
	return iter_move(it, FROM_ITER, dst, n);
}

size_t zero_to_iter(size_t n, struct iov_iter *it)
{
	return iter_move(it, ZERO_ITER, NULL, n);
}

void iov_iter_advance(struct iov_iter *it, size_t n)
{
	iter_move(it, SKIP_ITER, NULL, n);
}

int copy_to_iter_full(const void *src, size_t n, struct iov_iter *it)
{
	return copy_to_iter(src, n, it) == n ? 0 : -EFAULT;
}

int copy_from_iter_full(void *dst, size_t n, struct iov_iter *it)
{
	return copy_from_iter(dst, n, it) == n ? 0 : -EFAULT;
}

/* Checks the copied array: lengths first (-EINVAL), then ranges (-EFAULT); the total. */
static long iovec_check(struct iovec *v, unsigned long nr)
{
	size_t total = 0;

	for (unsigned long i = 0; i < nr; i++)
		if (v[i].iov_len > SSIZE_MAX)
			return -EINVAL;
	for (unsigned long i = 0; i < nr; i++) {
		if (!user_range_ok((uint64_t)v[i].iov_base, v[i].iov_len))
			return -EFAULT;
		if (v[i].iov_len > MAX_RW_COUNT - total)
			v[i].iov_len = MAX_RW_COUNT - total;
		total += v[i].iov_len;
	}
	return (long)total;
}

int iovec_import(const struct iovec *uvec, unsigned long nr, struct iovec **iov,
		 struct iov_iter *it)
{
	struct iovec *v = *iov;
	long total;

	*iov = NULL;
	if (nr > UIO_MAXIOV)
		return -EINVAL;
	if (nr > UIO_FASTIOV) {
		v = *iov = kmalloc(nr * sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	if (copy_from_user(v, uvec, nr * sizeof(*v)))
		return -EFAULT;
	total = iovec_check(v, nr);
	if (total < 0)
		return (int)total;
	iov_iter_init(it, v, nr, total);
	return 0;
}
