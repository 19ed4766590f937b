/*
 * Extended attributes: the ramfs keeps none, and answers as a Linux file
 * system without xattr handlers does, after the same checks: the name
 * (EFAULT, ERANGE for an empty one or one past XATTR_NAME_MAX), the
 * flags of a set (EINVAL), then the path or fd (lookup errors, EBADF, an
 * O_PATH fd included); then get, set and remove are EOPNOTSUPP and a
 * list is empty (0).  cp -a and tar take EOPNOTSUPP as "no xattrs here".
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fd/fdtable.h"
#include "fs/upath.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define XATTR_NAME_MAX 255
#define XATTR_CREATE   1
#define XATTR_REPLACE  2

/* The attribute name: 0, -EFAULT, -ERANGE (empty or too long). */
static long check_name(const char *uname)
{
	char name[XATTR_NAME_MAX + 1];
	long n = strncpy_from_user(name, uname, sizeof(name));

	if (n == -ENAMETOOLONG || n == 0)
		return -ERANGE;
	return n < 0 ? n : 0;
}

/* The object: a path (nofollow: a final link itself) or, for fd >= 0
 * with no path, an open file.  0 or the lookup's errors; for a change
 * (set, remove), -EPERM on an immutable or append-only inode (Linux's
 * xattr_permission, before the file system is asked). */
static long check_object(const char *upath, bool nofollow, int fd, bool change)
{
	struct inode *ip = NULL;
	struct file *f = NULL;
	long err = 0;

	if (!upath) {
		if (!(f = files_lookup(current()->files, fd)))
			return -EBADF;
		ip = f->inode;
	} else if ((err = upath_lookup(AT_FDCWD, upath, nofollow, &ip))) {
		return err;
	}
	if (change && ip)
		err = inode_may_setattr(ip);
	if (f)
		file_put(f);
	else
		inode_put(ip);
	return err;
}

/* get, set and remove: the name, then the object, then no support. */
static long xattr_op(const char *upath, bool nofollow, int fd, const char *uname, bool change)
{
	long err = check_name(uname);

	if (!err)
		err = check_object(upath, nofollow, fd, change);
	return err ? err : -EOPNOTSUPP;
}

static long xattr_set(const char *upath, bool nofollow, int fd, const char *uname, int flags)
{
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	return xattr_op(upath, nofollow, fd, uname, true);
}

/* An empty list: no attribute, and no security label either. */
static long xattr_list(const char *upath, bool nofollow, int fd)
{
	return check_object(upath, nofollow, fd, false);
}

SYSCALL_DEFINE5(setxattr, const char *, path, const char *, name, const void *, value, size_t, size,
		int, flags)
{
	(void)value, (void)size;
	return xattr_set(path, false, -1, name, flags);
}

SYSCALL_DEFINE5(lsetxattr, const char *, path, const char *, name, const void *, value, size_t,
		size, int, flags)
{
	(void)value, (void)size;
	return xattr_set(path, true, -1, name, flags);
}

SYSCALL_DEFINE5(fsetxattr, int, fd, const char *, name, const void *, value, size_t, size, int,
		flags)
{
	(void)value, (void)size;
	return xattr_set(NULL, false, fd, name, flags);
}

SYSCALL_DEFINE4(getxattr, const char *, path, const char *, name, void *, value, size_t, size)
{
	(void)value, (void)size;
	return xattr_op(path, false, -1, name, false);
}

SYSCALL_DEFINE4(lgetxattr, const char *, path, const char *, name, void *, value, size_t, size)
{
	(void)value, (void)size;
	return xattr_op(path, true, -1, name, false);
}

SYSCALL_DEFINE4(fgetxattr, int, fd, const char *, name, void *, value, size_t, size)
{
	(void)value, (void)size;
	return xattr_op(NULL, false, fd, name, false);
}

SYSCALL_DEFINE3(listxattr, const char *, path, char *, list, size_t, size)
{
	(void)list, (void)size;
	return xattr_list(path, false, -1);
}

SYSCALL_DEFINE3(llistxattr, const char *, path, char *, list, size_t, size)
{
	(void)list, (void)size;
	return xattr_list(path, true, -1);
}

SYSCALL_DEFINE3(flistxattr, int, fd, char *, list, size_t, size)
{
	(void)list, (void)size;
	return xattr_list(NULL, false, fd);
}

SYSCALL_DEFINE2(removexattr, const char *, path, const char *, name)
{
	return xattr_op(path, false, -1, name, true);
}

SYSCALL_DEFINE2(lremovexattr, const char *, path, const char *, name)
{
	return xattr_op(path, true, -1, name, true);
}

SYSCALL_DEFINE2(fremovexattr, int, fd, const char *, name)
{
	return xattr_op(NULL, false, fd, name, true);
}
