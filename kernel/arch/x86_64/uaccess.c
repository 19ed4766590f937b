/*
 * Range checks around the fault-recovering copies of usercopy.asm.  The
 * checks keep user pointers out of the kernel half; the exception table
 * handles unmapped and protected user pages.
 */
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include <uapi/errno.h>

long __user_clear(void *dst, size_t len);
long __user_strncpy(char *dst, const char *src, size_t max);

int clear_user(void *udst, size_t len)
{
	might_sleep();
	if (!user_range_ok((uint64_t)udst, len))
		return -EFAULT;
	return (int)__user_clear(udst, len);
}

int copy_struct_from_user(void *dst, size_t ksize, const void *usrc, size_t usize)
{
	const char *tail = (const char *)usrc + ksize;
	char chunk[64];

	/* Linux checks the bytes it does not know before copying the rest. */
	for (size_t off = ksize; off < usize; off += sizeof(chunk)) {
		size_t n = usize - off < sizeof(chunk) ? usize - off : sizeof(chunk);

		if (copy_from_user(chunk, tail + (off - ksize), n))
			return -EFAULT;
		for (size_t i = 0; i < n; i++)
			if (chunk[i])
				return -E2BIG;
	}
	if (usize < ksize)
		memset((char *)dst + usize, 0, ksize - usize);
	return copy_from_user(dst, usrc, usize < ksize ? usize : ksize);
}

long strncpy_from_user(char *dst, const char *usrc, size_t max)
{
	uint64_t u = (uint64_t)usrc;
	size_t span;
	long n;

	might_sleep();
	if (!max || u >= USER_END)
		return -EFAULT;
	/* Never read past the user half, even looking for the NUL. */
	span = USER_END - u < max ? USER_END - u : max;
	n = __user_strncpy(dst, usrc, span);
	if (n < 0)
		return n;
	if ((size_t)n == span) {
		if (span < max)
			return -EFAULT; /* ran into the kernel half */
		dst[max - 1] = '\0';
		return -ENAMETOOLONG;
	}
	return n;
}
