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

/* Both user paths copied in (Linux's getname; the old one may be empty
 * with AT_EMPTY_PATH in oldflags): 0, or an error and nothing held. */
static long upath_name_two(const char *uold, int oldflags, const char *unew, struct upath *old,
			   struct upath *new)
{
	long err = upath_name(old, uold, oldflags);

	if (err)
		return err;
	if ((err = upath_name(new, unew, 0)))
		upath_put(old);
	return err;
}

/* The directories two paths copied in are relative to: 0, or an error
 * and nothing held. */
static long kpath_dirs(int olddirfd, const char *kold, int newdirfd, const char *knew,
		       struct path *old, struct path *new)
{
	long err = kpath_dir(olddirfd, kold, 0, old);

	if (err)
		return err;
	if ((err = kpath_dir(newdirfd, knew, 0, new)) && old->inode)
		path_put(old);
	return err;
}

static void put_dirs(struct path *old, struct path *new)
{
	if (new->inode)
		path_put(new);
	if (old->inode)
		path_put(old);
}

long symlink_kpath(const char *ktarget, int dirfd, const char *kpath)
{
	struct path dir;
	long err = kpath_dir(dirfd, kpath, 0, &dir);

	if (err)
		return err;
	err = vfs_symlink(&dir, kpath, ktarget);
	if (dir.inode)
		path_put(&dir);
	return err;
}

static long do_symlink(const char *utarget, int dirfd, const char *upath)
{
	struct upath target, p;
	long err = upath_name_two(utarget, 0, upath, &target, &p);

	if (err)
		return err;
	err = symlink_kpath(target.path, dirfd, p.path);
	upath_put(&p);
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

/* linkat's AT_EMPTY_PATH: a new name for the file on fd (an O_PATH one
 * too, or an O_TMPFILE file's first), the cwd for AT_FDCWD (EPERM: a
 * directory); EBADF, ENOENT for a file with no inode. */
static long link_fd(int fd, const struct path *newdir, const char *knew)
{
	struct path old;
	long err = upath_empty(fd, &old);

	if (err)
		return err;
	err = vfs_link_inode(&old, newdir, knew);
	path_put(&old);
	return err;
}

/* SYSIND_NOFOLLOW is link's default; with AT_SYMLINK_FOLLOW it contradicts: EINVAL. */
long link_kpath(int olddirfd, const char *kold, int newdirfd, const char *knew, int flags)
{
	struct path od, nd;
	long err;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((flags & AT_SYMLINK_FOLLOW) && sysind_nofollow())
		return -EINVAL;
	if ((err = kpath_dirs(olddirfd, kold, newdirfd, knew, &od, &nd)))
		return err;
	if (!kold[0]) /* AT_EMPTY_PATH and "" */
		err = link_fd(olddirfd, &nd, knew);
	else
		err = vfs_link(&od, kold, &nd, knew, flags & AT_SYMLINK_FOLLOW);
	put_dirs(&od, &nd);
	return err;
}

static long do_link(int olddirfd, const char *uold, int newdirfd, const char *unew, int flags)
{
	struct upath old, new;
	long err = upath_name_two(uold, flags & AT_EMPTY_PATH, unew, &old, &new);

	if (err)
		return err;
	err = link_kpath(olddirfd, old.path, newdirfd, new.path, flags);
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
long rename_kpath(int olddirfd, const char *kold, int newdirfd, const char *knew,
		  unsigned int flags)
{
	struct path od, nd;
	long err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	if ((err = kpath_dirs(olddirfd, kold, newdirfd, knew, &od, &nd)))
		return err;
	err = vfs_rename(&od, kold, &nd, knew, flags);
	put_dirs(&od, &nd);
	return err;
}

static long do_rename(int olddirfd, const char *uold, int newdirfd, const char *unew,
		      unsigned int flags)
{
	struct upath old, new;
	long err = upath_name_two(uold, 0, unew, &old, &new);

	if (err)
		return err;
	err = rename_kpath(olddirfd, old.path, newdirfd, new.path, flags);
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
