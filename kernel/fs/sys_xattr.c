/*
 * Extended attributes: the ramfs keeps none, and answers as a Linux file
 * system without xattr handlers does, after the same checks: the flags
 * of a set (EINVAL), the name (EFAULT, ERANGE for an empty one or one
 * past XATTR_NAME_MAX), a set's size (E2BIG past XATTR_SIZE_MAX) and
 * value (EFAULT), copied in as Linux's setxattr_copy (fs/xattr.h), then
 * the path or fd (lookup errors, EBADF, an O_PATH fd included); then
 * get, set and remove are EOPNOTSUPP and a list is empty (0).  cp -a
 * and tar take EOPNOTSUPP as "no xattrs here".
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/xattr.h"
#include "fd/fdtable.h"
#include "fs/upath.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define XATTR_CREATE  1
#define XATTR_REPLACE 2

static int name_get(struct xattr_kargs *x, const char *uname)
{
	long n = strncpy_from_user(x->name, uname, sizeof(x->name));

	if (n == -ENAMETOOLONG || n == 0)
		return -ERANGE;
	return n < 0 ? (int)n : 0;
}

int xattr_get_args(struct xattr_kargs *x, const char *uname, size_t size)
{
	x->value = NULL;
	x->size = size;
	x->flags = 0;
	return name_get(x, uname);
}

int xattr_set_args(struct xattr_kargs *x, const char *uname, const void *uvalue, size_t size,
		   int flags)
{
	int err;

	x->value = NULL;
	x->size = size;
	x->flags = flags;
	if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
		return -EINVAL;
	if ((err = name_get(x, uname)) || !size)
		return err;
	if (size > XATTR_SIZE_MAX)
		return -E2BIG;
	if (!(x->value = kmalloc(size)))
		return -ENOMEM;
	if (copy_from_user(x->value, uvalue, size)) {
		xattr_args_put(x);
		return -EFAULT;
	}
	return 0;
}

void xattr_args_put(struct xattr_kargs *x)
{
	kfree(x->value);
	x->value = NULL;
}

/* The inode at kpath (copied in; from the cwd), referenced: 0 or the
 * lookup's errors. */
static long kpath_inode(const char *kpath, bool nofollow, struct inode **out)
{
	struct path dir, found;
	long err = kpath_dir(AT_FDCWD, kpath, 0, &dir);

	if (err)
		return err;
	err = path_lookup_path(&dir, kpath, lookup_follow_flags(nofollow), &found);
	if (dir.inode)
		path_put(&dir);
	if (err)
		return err;
	*out = found.inode;
	mnt_put(found.mnt);
	return 0;
}

/* The object: kpath or, with none, the open file fd.  0 or the lookup's
 * errors; for a change (set, remove), -EPERM on an immutable or
 * append-only inode (Linux's xattr_permission, before the file system is
 * asked). */
static long check_object(const char *kpath, bool nofollow, int fd, bool change)
{
	struct inode *ip = NULL;
	struct file *f = NULL;
	long err = 0;

	if (!kpath) {
		if (!(f = files_lookup(current()->files, fd)))
			return -EBADF;
		ip = f->inode;
	} else if ((err = kpath_inode(kpath, nofollow, &ip))) {
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

/* get, set and remove, their arguments checked: the object, then no
 * support. */
static long xattr_kop(const char *kpath, bool nofollow, int fd, bool change)
{
	long err = check_object(kpath, nofollow, fd, change);

	return err ? err : -EOPNOTSUPP;
}

long xattr_kget(const char *kpath, bool nofollow, int fd, const struct xattr_kargs *x)
{
	(void)x; /* no attribute to read, whatever its name */
	return xattr_kop(kpath, nofollow, fd, false);
}

long xattr_kset(const char *kpath, bool nofollow, int fd, const struct xattr_kargs *x)
{
	(void)x; /* nowhere to keep it */
	return xattr_kop(kpath, nofollow, fd, true);
}

/* op on upath copied in (Linux's getname, after the arguments), or on fd
 * with no path. */
static long on_path(long (*op)(const char *, bool, int, const struct xattr_kargs *),
		    const char *upath, bool nofollow, int fd, const struct xattr_kargs *x)
{
	struct upath p;
	long err;

	if (!upath)
		return op(NULL, nofollow, fd, x);
	if ((err = upath_name(&p, upath, 0)))
		return err;
	err = op(p.path, nofollow, fd, x);
	upath_put(&p);
	return err;
}

static long xattr_get(const char *upath, bool nofollow, int fd, const char *uname, size_t size)
{
	struct xattr_kargs x;
	long err = xattr_get_args(&x, uname, size);

	return err ? err : on_path(xattr_kget, upath, nofollow, fd, &x);
}

static long xattr_set(const char *upath, bool nofollow, int fd, const char *uname,
		      const void *uvalue, size_t size, int flags)
{
	struct xattr_kargs x;
	long err = xattr_set_args(&x, uname, uvalue, size, flags);

	if (err)
		return err;
	err = on_path(xattr_kset, upath, nofollow, fd, &x);
	xattr_args_put(&x);
	return err;
}

/* remove: the name, then the object as a set's. */
static long xattr_remove(const char *upath, bool nofollow, int fd, const char *uname)
{
	struct xattr_kargs x;
	long err = xattr_get_args(&x, uname, 0);

	return err ? err : on_path(xattr_kset, upath, nofollow, fd, &x);
}

/* An empty list: no attribute, and no security label either. */
static long list_object(const char *kpath, bool nofollow, int fd, const struct xattr_kargs *x)
{
	(void)x;
	return check_object(kpath, nofollow, fd, false);
}

static long xattr_list(const char *upath, bool nofollow, int fd)
{
	return on_path(list_object, upath, nofollow, fd, NULL);
}

SYSCALL_DEFINE5(setxattr, const char *, path, const char *, name, const void *, value, size_t, size,
		int, flags)
{
	return xattr_set(path, false, -1, name, value, size, flags);
}

SYSCALL_DEFINE5(lsetxattr, const char *, path, const char *, name, const void *, value, size_t,
		size, int, flags)
{
	return xattr_set(path, true, -1, name, value, size, flags);
}

SYSCALL_DEFINE5(fsetxattr, int, fd, const char *, name, const void *, value, size_t, size, int,
		flags)
{
	return xattr_set(NULL, false, fd, name, value, size, flags);
}

SYSCALL_DEFINE4(getxattr, const char *, path, const char *, name, void *, value, size_t, size)
{
	(void)value;
	return xattr_get(path, false, -1, name, size);
}

SYSCALL_DEFINE4(lgetxattr, const char *, path, const char *, name, void *, value, size_t, size)
{
	(void)value;
	return xattr_get(path, true, -1, name, size);
}

SYSCALL_DEFINE4(fgetxattr, int, fd, const char *, name, void *, value, size_t, size)
{
	(void)value;
	return xattr_get(NULL, false, fd, name, size);
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
	return xattr_remove(path, false, -1, name);
}

SYSCALL_DEFINE2(lremovexattr, const char *, path, const char *, name)
{
	return xattr_remove(path, true, -1, name);
}

SYSCALL_DEFINE2(fremovexattr, int, fd, const char *, name)
{
	return xattr_remove(NULL, false, fd, name);
}
