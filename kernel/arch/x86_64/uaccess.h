/*
 * The only way the kernel touches user memory.  Each call checks that the
 * whole range lies in the user half, then copies with instructions covered
 * by the exception table: an unmapped or protected user page gives -EFAULT,
 * never a kernel fault.
 */
#ifndef ARCH_UACCESS_H
#define ARCH_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/lockdep.h"
#include "mm/layout.h"
#include <uapi/errno.h>

/* True if [uaddr, uaddr+len) lies entirely in the user half. */
static inline bool user_range_ok(uint64_t uaddr, size_t len)
{
	return uaddr < USER_END && len <= USER_END - uaddr;
}

/* The copy itself (usercopy.asm): 0, or -EFAULT at the first fault. */
long __user_copy(void *dst, const void *src, size_t len);

/* 0 on success, -EFAULT if any byte could not be copied.  Inline: most
 * system calls copy something, and the check is two compares. */
static inline int copy_from_user(void *dst, const void *usrc, size_t len)
{
	might_sleep(); /* a fault on a user page may sleep: no spinlock held */
	if (!user_range_ok((uint64_t)usrc, len))
		return -EFAULT;
	return (int)__user_copy(dst, usrc, len);
}

static inline int copy_to_user(void *udst, const void *src, size_t len)
{
	might_sleep();
	if (!user_range_ok((uint64_t)udst, len))
		return -EFAULT;
	return (int)__user_copy(udst, src, len);
}
/* Zeroes user memory; 0 or -EFAULT. */
int clear_user(void *udst, size_t len);
/*
 * Copies a NUL-terminated string of at most max-1 characters.  Returns its
 * length, -EFAULT on a bad address, or -ENAMETOOLONG if no NUL was found in
 * max bytes (the caller picks E2BIG or ENAMETOOLONG as fits).
 */
long strncpy_from_user(char *dst, const char *usrc, size_t max);
/*
 * Copies a structure that grows by versions (clone3's clone_args,
 * openat2's open_how) of usize bytes into dst, which holds ksize (Linux's
 * copy_struct_from_user): a shorter one is zero-extended, a longer one
 * must have only zero bytes past ksize.  0, -E2BIG (a non-zero byte
 * there) or -EFAULT.  The caller bounds usize (version 0, a page).
 */
int copy_struct_from_user(void *dst, size_t ksize, const void *usrc, size_t usize);

#endif
