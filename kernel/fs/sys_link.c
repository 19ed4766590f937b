/*
 * Link and rename system calls: symlink, readlink, link, rename and their
 * *at forms.  Argument checking here; the name-space work is link.c's.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/root_cwd.h"
#include "fs/mount.h"
#include "fs/upath.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

static long do_symlink(const char *utarget, int dirfd, const char *upath)
{
	struct upath target, p;
	long err = upath_get(AT_FDCWD, utarget, &target); /* only copies: absolute or not */

	if (err)
		return err;
	err = upath_get(dirfd, upath, &p);
	if (!err) {
		err = vfs_symlink(&p.dir, p.path, target.path);
		upath_put(&p);
	}
	upath_put(&target);
	return err;
}

SYSCALL_DEFINE2(symlink, const char *, target, const char *, path)
{
	return do_symlink(target, AT_FDCWD, path);
}

SYSCALL_DEFINE3(symlinkat, const char *, target, int, dirfd, const char *, path)
{
	return do_symlink(target, dirfd, path);
}

/* The target, truncated to size bytes and without a NUL (Linux); EINVAL
 * if the path names no link, ENOENT if an empty one (dirfd's own file)
 * is none. */
static long do_readlink(int dirfd, const char *upath, char *ubuf, int size)
{
	struct path lp;
	struct inode *ip;
	const char *target;
	struct upath p;
	long err;

	if (size <= 0)
		return -EINVAL;
	err = upath_get_flags(dirfd, upath, AT_EMPTY_PATH, &p);
	if (err)
		return err;
	err = p.path[0] ? path_lookup_path(&p.dir, p.path, lookup_follow_flags(true), &lp)
			: upath_empty(dirfd, &lp);
	if (err) {
		upath_put(&p);
		return err;
	}
	ip = lp.inode;
	if (!inode_is_link(ip)) {
		err = p.path[0] ? -EINVAL : -ENOENT;
	} else if (ip->link.denied) {
		err = -EACCES;
	} else {
		/* The target stays while we hold the inode. */
		size_t len = strlen(target = ip->link.target);
		if (len > (size_t)size)
			len = size;
		err = copy_to_user(ubuf, target, len) ? -EFAULT : (long)len;
	}
	path_put(&lp);
	upath_put(&p);
	return err;
}

SYSCALL_DEFINE3(readlink, const char *, path, char *, buf, int, size)
{
	return do_readlink(AT_FDCWD, path, buf, size);
}

SYSCALL_DEFINE4(readlinkat, int, dirfd, const char *, path, char *, buf, int, size)
{
	return do_readlink(dirfd, path, buf, size);
}

/* Both paths copied in with their directories, or an error and nothing
 * held; oldflags: AT_EMPTY_PATH lets the old path be empty. */
static long upath_get_two(int olddirfd, const char *uold, int oldflags, int newdirfd,
			  const char *unew, struct upath *old, struct upath *new)
{
	long err = upath_get_flags(olddirfd, uold, oldflags, old);

	if (err)
		return err;
	err = upath_get(newdirfd, unew, new);
	if (err)
		upath_put(old);
	return err;
}

/* linkat's AT_EMPTY_PATH: a new name for the file on fd (an O_PATH one
 * too, or an O_TMPFILE file's first), the cwd for AT_FDCWD (EPERM: a
 * directory); EBADF, ENOENT for a file with no inode. */
static long link_fd(int fd, struct upath *new)
{
	struct path old;
	long err = upath_empty(fd, &old);

	if (err)
		return err;
	err = vfs_link_inode(&old, &new->dir, new->path);
	path_put(&old);
	return err;
}

/* SYSIND_NOFOLLOW is link's default; with AT_SYMLINK_FOLLOW it contradicts: EINVAL. */
static long do_link(int olddirfd, const char *uold, int newdirfd, const char *unew, int flags)
{
	struct upath old, new;
	long err;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((flags & AT_SYMLINK_FOLLOW) && sysind_nofollow())
		return -EINVAL;
	err = upath_get_two(olddirfd, uold, flags & AT_EMPTY_PATH, newdirfd, unew, &old, &new);
	if (err)
		return err;
	if (!old.path[0]) /* AT_EMPTY_PATH and "" */
		err = link_fd(olddirfd, &new);
	else
		err = vfs_link(&old.dir, old.path, &new.dir, new.path, flags & AT_SYMLINK_FOLLOW);
	upath_put(&new);
	upath_put(&old);
	return err;
}

SYSCALL_DEFINE2(link, const char *, oldpath, const char *, newpath)
{
	return do_link(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

SYSCALL_DEFINE5(linkat, int, olddirfd, const char *, oldpath, int, newdirfd, const char *, newpath,
		int, flags)
{
	return do_link(olddirfd, oldpath, newdirfd, newpath, flags);
}

/* RENAME_WHITEOUT (overlay file systems' business) is not supported: EINVAL. */
static long do_rename(int olddirfd, const char *uold, int newdirfd, const char *unew,
		      unsigned int flags)
{
	struct upath old, new;
	long err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	err = upath_get_two(olddirfd, uold, 0, newdirfd, unew, &old, &new);
	if (err)
		return err;
	err = vfs_rename(&old.dir, old.path, &new.dir, new.path, flags);
	upath_put(&new);
	upath_put(&old);
	return err;
}

SYSCALL_DEFINE2(rename, const char *, oldpath, const char *, newpath)
{
	return do_rename(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0);
}

SYSCALL_DEFINE4(renameat, int, olddirfd, const char *, oldpath, int, newdirfd, const char *,
		newpath)
{
	return do_rename(olddirfd, oldpath, newdirfd, newpath, 0);
}

SYSCALL_DEFINE5(renameat2, int, olddirfd, const char *, oldpath, int, newdirfd, const char *,
		newpath, unsigned int, flags)
{
	return do_rename(olddirfd, oldpath, newdirfd, newpath, flags);
}
