/*
 * The stat family: stat, lstat, fstat, newfstatat and statx.  One
 * function finds the file and fills the kernel's stat record (upath_stat);
 * each call only checks its flags and lays the record out for the user.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/upath.h"
#include "fs/vfs.h"
#include "proc/task.h"
#include "proc/user_namespace.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/stat.h>

/* The flags every call of the family takes (statx adds its sync ones). */
#define STAT_FLAGS (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH)

/* What statx adds of a file: its inode's chattr flags as STATX_ATTR_*
 * (the same bits as FS_*_FL for these four) and which of them its type
 * keeps, as Linux's tmpfs and ext2 getattr; whether it is the root of its mount
 * (Linux's vfs_statx); and, as Linux's VFS for every file, that the
 * automount and DAX attributes are known (never set here). */
#define STATX_ATTR_FROM_FL    (FS_COMPR_FL | FS_IMMUTABLE_FL | FS_APPEND_FL | FS_NODUMP_FL)
#define STATX_ATTR_AUTOMOUNT  0x1000
#define STATX_ATTR_MOUNT_ROOT 0x2000
#define STATX_ATTR_DAX	      0x200000
struct stat_attrs {
	uint64_t attributes, mask;
};

static void path_attrs(const struct path *p, struct stat_attrs *a)
{
	if (!a)
		return;
	a->mask = STATX_ATTR_AUTOMOUNT | STATX_ATTR_MOUNT_ROOT | STATX_ATTR_DAX;
	if (!p->inode)
		return;
	a->attributes =
	    __atomic_load_n(&p->inode->attr_flags, __ATOMIC_RELAXED) & STATX_ATTR_FROM_FL;
	a->mask |= p->inode->sb->type->attr_flags & STATX_ATTR_FROM_FL;
	if (path_is_mount_root(p))
		a->attributes |= STATX_ATTR_MOUNT_ROOT;
}

/* Fills *st (and *a, if not NULL) for the file on fd: 0 or -EBADF. */
static long fd_stat(int fd, struct uapi_stat *st, struct stat_attrs *a)
{
	struct file *f = files_lookup_raw(current()->files, fd); /* O_PATH too */
	long err = 0;

	if (!f)
		return -EBADF;
	*st = (struct uapi_stat){0};
	if (f->inode)
		inode_stat(f->inode, st);
	else if (f->ops->stat)
		err = f->ops->stat(f, st);
	path_attrs(&(struct path){f->mnt, f->inode}, a);
	file_put(f);
	return err;
}

/* The lookup of a path already copied in (kpath). */
static long stat_kpath(int dirfd, const char *kpath, int flags, struct uapi_stat *st,
		       struct stat_attrs *a)
{
	struct path dir, found;
	bool fd_itself = !kpath[0] && (flags & AT_EMPTY_PATH);
	long err;

	if (fd_itself && dirfd != AT_FDCWD)
		return fd_stat(dirfd, st, a);
	if ((err = kpath_dir(dirfd, kpath, flags, &dir)))
		return err;
	err = path_lookup_path(&dir, fd_itself ? "." : kpath,
			       lookup_follow_flags(flags & AT_SYMLINK_NOFOLLOW), &found);
	if (dir.inode)
		path_put(&dir);
	if (err)
		return err;
	inode_stat(found.inode, st);
	path_attrs(&found, a);
	path_put(&found);
	return 0;
}

static long stat_at(int dirfd, const char *upath, int flags, struct uapi_stat *st,
		    struct stat_attrs *a)
{
	struct upath p;
	long err = upath_name(&p, upath, flags);

	if (err)
		return err;
	err = stat_kpath(dirfd, p.path, flags, st, a);
	upath_put(&p);
	return err;
}

long upath_stat(int dirfd, const char *upath, int flags, struct uapi_stat *st)
{
	return stat_at(dirfd, upath, flags, st, NULL);
}

/* The owner and group as the caller's user namespace names them (65534
 * when it does not map them), at the user boundary only: inside, st
 * holds kernel ids (access checks compare them). */
static void stat_ids_out(struct uapi_stat *st)
{
	struct user_namespace *ns = current_user_ns();

	st->st_uid = from_kuid_munged(ns, st->st_uid);
	st->st_gid = from_kgid_munged(ns, st->st_gid);
}

static long stat_copy_out(long err, struct uapi_stat *st, struct uapi_stat *ust)
{
	if (err)
		return err;
	stat_ids_out(st);
	return copy_to_user(ust, st, sizeof(*st)) ? -EFAULT : 0;
}

/* stat/lstat/newfstatat. */
static long do_stat(int dirfd, const char *upath, struct uapi_stat *ust, int flags)
{
	struct uapi_stat st;

	if (flags & ~STAT_FLAGS)
		return -EINVAL;
	return stat_copy_out(upath_stat(dirfd, upath, flags, &st), &st, ust);
}

SYSCALL_DEFINE2(fstat, int, fd, struct uapi_stat *, ust)
{
	struct uapi_stat st;

	return stat_copy_out(fd_stat(fd, &st, NULL), &st, ust);
}

SYSCALL_DEFINE2(stat, const char *, path, struct uapi_stat *, st)
{
	return do_stat(AT_FDCWD, path, st, 0);
}

SYSCALL_DEFINE2(lstat, const char *, path, struct uapi_stat *, st)
{
	return do_stat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

SYSCALL_DEFINE4(newfstatat, int, dirfd, const char *, path, struct uapi_stat *, st, int, flags)
{
	return do_stat(dirfd, path, st, flags);
}

/* Linux's device number encoding (new_encode_dev), split for statx. */
static uint32_t dev_major(uint64_t dev)
{
	return (uint32_t)((dev & 0xfff00) >> 8);
}

static uint32_t dev_minor(uint64_t dev)
{
	return (uint32_t)((dev & 0xff) | ((dev >> 12) & 0xfff00));
}

static struct uapi_statx_timestamp stx_time(uint64_t sec, uint64_t nsec)
{
	return (struct uapi_statx_timestamp){.tv_sec = (int64_t)sec, .tv_nsec = (uint32_t)nsec};
}

/* The statx record of st.  Whatever the mask asks, every basic field is
 * filled and reported (as Linux, which may give more than asked); there is
 * no birth time nor mount id. */
static void fill_statx(struct uapi_statx *sx, const struct uapi_stat *st)
{
	*sx = (struct uapi_statx){
	    .stx_mask = STATX_BASIC_STATS,
	    .stx_blksize = (uint32_t)st->st_blksize,
	    .stx_nlink = (uint32_t)st->st_nlink,
	    .stx_uid = st->st_uid,
	    .stx_gid = st->st_gid,
	    .stx_mode = (uint16_t)st->st_mode,
	    .stx_ino = st->st_ino,
	    .stx_size = (uint64_t)st->st_size,
	    .stx_blocks = (uint64_t)st->st_blocks,
	    .stx_atime = stx_time(st->atime_sec, st->atime_nsec),
	    .stx_ctime = stx_time(st->ctime_sec, st->ctime_nsec),
	    .stx_mtime = stx_time(st->mtime_sec, st->mtime_nsec),
	    .stx_rdev_major = dev_major(st->st_rdev),
	    .stx_rdev_minor = dev_minor(st->st_rdev),
	    .stx_dev_major = dev_major(st->st_dev),
	    .stx_dev_minor = dev_minor(st->st_dev),
	};
}

/* Linux's order of checks: the mask, the sync type, other flags. */
static long statx_check(int flags, unsigned int mask)
{
	if (mask & STATX__RESERVED)
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
		return -EINVAL;
	if (flags & ~(STAT_FLAGS | AT_STATX_SYNC_TYPE))
		return -EINVAL;
	return 0;
}

long statx_kpath(int dirfd, const char *kpath, int flags, unsigned int mask,
		 struct uapi_statx *ubuf)
{
	struct uapi_stat st;
	struct uapi_statx sx;
	struct stat_attrs a = {0, 0};
	long err = statx_check(flags, mask);

	/* The sync types ask a network file system to (not) revalidate:
	 * nothing to do here. */
	if (err || (err = stat_kpath(dirfd, kpath, flags & STAT_FLAGS, &st, &a)))
		return err;
	stat_ids_out(&st);
	fill_statx(&sx, &st);
	sx.stx_attributes = a.attributes;
	sx.stx_attributes_mask = a.mask;
	return copy_to_user(ubuf, &sx, sizeof(sx)) ? -EFAULT : 0;
}

SYSCALL_DEFINE5(statx, int, dirfd, const char *, path, int, flags, unsigned int, mask,
		struct uapi_statx *, ubuf)
{
	struct upath p;
	long err = statx_check(flags, mask);

	if (err || (err = upath_name(&p, path, flags & STAT_FLAGS)))
		return err;
	err = statx_kpath(dirfd, p.path, flags, mask, ubuf);
	upath_put(&p);
	return err;
}
