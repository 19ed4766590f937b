/*
 * iovec cursor (see iov.h): walks the entries, copying each piece with
 * copy_from_user/copy_to_user, so a fault in any piece is -EFAULT.
 */
#include "net/iov.h"
#include <stdbool.h>
#include "arch/x86_64/uaccess.h"
#include <uapi/errno.h>

void iov_iter_init(struct iov_iter *it, const struct iovec *iov, size_t nr, size_t total)
{
	*it = (struct iov_iter){.iov = iov, .nr = nr, .left = total};
}

/* Runs copy over the next n bytes, entry by entry. */
static int iov_walk(struct iov_iter *it, char *kbuf, size_t n, bool to_user)
{
	while (n) {
		const struct iovec *v = &it->iov[it->idx];
		size_t chunk = v->iov_len - it->off;
		char *u = (char *)v->iov_base + it->off;

		if (chunk > n)
			chunk = n;
		if (chunk) {
			int err =
			    to_user ? copy_to_user(u, kbuf, chunk) : copy_from_user(kbuf, u, chunk);
			if (err)
				return err;
		}
		kbuf += chunk;
		n -= chunk;
		it->left -= chunk;
		it->off += chunk;
		if (it->off == v->iov_len && it->idx + 1 < it->nr) {
			it->idx++;
			it->off = 0;
		}
	}
	return 0;
}

int iov_copy_from_user(struct iov_iter *it, void *kdst, size_t n)
{
	return iov_walk(it, kdst, n, false);
}

int iov_copy_to_user(struct iov_iter *it, const void *ksrc, size_t n)
{
	return iov_walk(it, (char *)ksrc, n, true);
}
