/*
 * Extended attributes' arguments copied in (Linux's kernel_xattr_ctx):
 * by the xattr system calls (fs/sys_xattr.c) before they look the object
 * up, and by io_uring's xattr ops at their preparation
 * (IORING_FEAT_SUBMIT_STABLE), which run later on the copy through
 * xattr_kget and xattr_kset.
 */
#ifndef FS_XATTR_H
#define FS_XATTR_H

#include <stdbool.h>
#include <stddef.h>

#define XATTR_NAME_MAX 255
#define XATTR_SIZE_MAX 65536

struct xattr_kargs {
	char name[XATTR_NAME_MAX + 1];
	void *value; /* a set's value, size bytes, kmalloc'd: NULL for none */
	size_t size;
	int flags;
};

/* A get's arguments (the value is the caller's to fill): 0, -EFAULT,
 * -ERANGE (a name empty or past XATTR_NAME_MAX). */
int xattr_get_args(struct xattr_kargs *x, const char *uname, size_t size);
/* A set's, in Linux's order (setxattr_copy): the flags (-EINVAL), the
 * name, the size (-E2BIG past XATTR_SIZE_MAX), the value (-EFAULT,
 * -ENOMEM).  On success xattr_args_put frees the value. */
int xattr_set_args(struct xattr_kargs *x, const char *uname, const void *uvalue, size_t size,
		   int flags);
void xattr_args_put(struct xattr_kargs *x);
/* Get and set on a path already copied in (kpath, from the cwd; a final
 * link itself if nofollow) or, kpath NULL, on the open file fd: the
 * object's errors (lookup, -EBADF; -EPERM to set on an immutable or
 * append-only inode), then -EOPNOTSUPP: no file system here keeps
 * extended attributes. */
long xattr_kget(const char *kpath, bool nofollow, int fd, const struct xattr_kargs *x);
long xattr_kset(const char *kpath, bool nofollow, int fd, const struct xattr_kargs *x);

#endif
