/*
 * Metadata system calls: umask, the chmod, chown and utimes families.
 * Argument checking, lookup and Linux's permission rules (the owner,
 * CAP_CHOWN, CAP_FOWNER, CAP_FSETID: docs/security.md); the inode changes
 * are the file system's (inode.h's setattr).
 */
#include "arch/x86_64/uaccess.h"
#include "fs/root_cwd.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/notify/fsnotify.h"
#include "fs/super.h"
#include "fs/mount.h"
#include "fs/permission.h"
#include "proc/cred.h"
#include "proc/user_namespace.h"
#include "fs/upath.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>

#define NSEC_PER_SEC  1000000000L
#define NSEC_PER_USEC 1000L
/* Latest time stored (2262): ns since the epoch must fit in 63 bits. */
#define TIME_SEC_MAX (INT64_MAX / NSEC_PER_SEC - 1)

struct timespec_u {
	int64_t tv_sec, tv_nsec;
};
struct timeval_u {
	int64_t tv_sec, tv_usec;
};

SYSCALL_DEFINE1(umask, unsigned int, mask)
{
	return fs_set_umask(current()->fs, mask);
}

/* What an attribute call acts on: the inode and the mount it was reached
 * through (both referenced), and where it was found, for the IN_ATTRIB
 * its directory's inotify watches get: the lookup's directory and name,
 * or the open file's (f, referenced). */
struct attr_obj {
	struct inode *ip;
	struct mount *mnt;
	struct path_where where;
	struct file *f;
};

/* Whether the object may change: -EROFS on a read-only mount. */
static int attr_want_write(const struct attr_obj *o)
{
	return path_want_write(&(struct path){o->mnt, o->ip});
}

/* o takes over p's references. */
static long attr_set(struct attr_obj *o, struct path *p, long err)
{
	if (!err) {
		o->ip = p->inode;
		o->mnt = p->mnt;
	}
	return err;
}

/*
 * The object a call acts on: path relative to dirfd or, with a NULL path or
 * AT_EMPTY_PATH and an empty one, the open file dirfd itself (fchmod,
 * futimens).  nofollow: a final link is the object.  o->ip is NULL for a
 * pipe or socket: Linux changes their pseudo inode, fdkernel has none, so
 * the change succeeds and has no effect.
 */
static long attr_target(int dirfd, const char *upath, int flags, bool nofollow, struct attr_obj *o)
{
	struct upath p;
	struct path at;
	long err;

	*o = (struct attr_obj){0};
	if (upath) {
		err = upath_get_flags(dirfd, upath, flags, &p);
		if (err)
			return err;
		if (p.path[0] || !(flags & AT_EMPTY_PATH)) {
			err = path_lookup_where(&p.dir, p.path, lookup_follow_flags(nofollow), &at,
						&o->where);
			upath_put(&p);
			return attr_set(o, &at, err);
		}
		upath_put(&p);
		if (dirfd == AT_FDCWD)
			return attr_set(o, &at, path_lookup_path(NULL, ".", 0, &at));
	}
	/* AT_EMPTY_PATH takes an O_PATH fd, fchmod and futimens do not. */
	o->f = upath ? files_lookup_raw(current()->files, dirfd)
		     : files_lookup(current()->files, dirfd);
	if (!o->f)
		return -EBADF;
	if ((o->ip = o->f->inode)) {
		inode_get(o->ip);
		mnt_get(o->mnt = o->f->mnt);
	}
	return 0;
}

/* Ends a call on o: IN_ATTRIB if the change was made (err 0), then o's
 * references go.  Returns err. */
static long attr_done(struct attr_obj *o, long err)
{
	if (!err && o->ip && o->f)
		fsnotify_file(o->f, IN_ATTRIB);
	else if (!err && o->ip)
		fsnotify_parent(o->ip, o->where.dir, o->where.name, IN_ATTRIB);
	if (o->ip)
		inode_put(o->ip);
	mnt_put(o->mnt);
	path_where_put(&o->where);
	if (o->f)
		file_put(o->f);
	return err;
}

/* Linux's setattr_prepare for a mode: the owner or CAP_FOWNER (EPERM);
 * set-group-ID dropped unless the caller is in the file's group or has
 * CAP_FSETID. */
static int chmod_check(const struct inode *ip, unsigned int *mode)
{
	if (!inode_owner_or_capable(ip))
		return -EPERM;
	if (!cred_in_group(cred_current(), ip->gid) && !capable(CAP_FSETID))
		*mode &= ~S_ISGID;
	return 0;
}

/* Linux: a link's own mode cannot change (fchmodat2 with AT_SYMLINK_NOFOLLOW). */
static long do_chmod(int dirfd, const char *upath, unsigned int mode, int flags)
{
	struct attr_obj o;
	long err;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = attr_target(dirfd, upath, flags, flags & AT_SYMLINK_NOFOLLOW, &o);
	if (err || !o.ip)
		return attr_done(&o, err);
	if (inode_is_link(o.ip))
		err = -EOPNOTSUPP;
	else if (!(err = attr_want_write(&o)) && !(err = inode_may_setattr(o.ip)) &&
		 !(err = chmod_check(o.ip, &mode)))
		err = inode_chmod(o.ip, mode);
	return attr_done(&o, err);
}

SYSCALL_DEFINE2(chmod, const char *, path, unsigned int, mode)
{
	return path ? do_chmod(AT_FDCWD, path, mode, 0) : -EFAULT;
}

SYSCALL_DEFINE2(fchmod, int, fd, unsigned int, mode)
{
	return do_chmod(fd, NULL, mode, 0);
}

SYSCALL_DEFINE3(fchmodat, int, dirfd, const char *, path, unsigned int, mode)
{
	return path ? do_chmod(dirfd, path, mode, 0) : -EFAULT;
}

SYSCALL_DEFINE4(fchmodat2, int, dirfd, const char *, path, unsigned int, mode, int, flags)
{
	return path ? do_chmod(dirfd, path, mode, flags) : -EFAULT;
}

/* Linux's chown_ok and chgrp_ok: CAP_CHOWN changes anything; the owner
 * may keep the owner and give the file one of its own groups.  -1 leaves
 * an id as it is.  0 or -EPERM. */
static int chown_check(const struct inode *ip, uint32_t uid, uint32_t gid)
{
	const struct cred *c = cred_current();
	bool owner = c->fsuid == ip->uid;

	if (capable(CAP_CHOWN))
		return 0;
	if (uid != ID_UNCHANGED && !(owner && uid == ip->uid))
		return -EPERM;
	if (gid != ID_UNCHANGED && !(owner && (gid == ip->gid || cred_in_group(c, gid))))
		return -EPERM;
	return 0;
}

/* uid/gid (uint32_t)-1: unchanged; others the caller's user namespace's
 * (EINVAL when it does not map them, first, as Linux). */
static long do_chown(int dirfd, const char *upath, uint32_t user, uint32_t group, int flags)
{
	struct user_namespace *ns = current_user_ns();
	uint32_t uid = user == ID_UNCHANGED ? user : make_kuid(ns, user);
	uint32_t gid = group == ID_UNCHANGED ? group : make_kgid(ns, group);
	struct attr_obj o;
	long err;

	if (uid == INVALID_ID && user != ID_UNCHANGED)
		return -EINVAL;
	if (gid == INVALID_ID && group != ID_UNCHANGED)
		return -EINVAL;
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	err = attr_target(dirfd, upath, flags, flags & AT_SYMLINK_NOFOLLOW, &o);
	if (!err && o.ip && !(err = attr_want_write(&o)) && !(err = inode_may_setattr(o.ip)) &&
	    !(err = chown_check(o.ip, uid, gid)))
		inode_chown(o.ip, uid, gid);
	return attr_done(&o, err);
}

SYSCALL_DEFINE3(chown, const char *, path, uint32_t, uid, uint32_t, gid)
{
	return path ? do_chown(AT_FDCWD, path, uid, gid, 0) : -EFAULT;
}

SYSCALL_DEFINE3(lchown, const char *, path, uint32_t, uid, uint32_t, gid)
{
	return path ? do_chown(AT_FDCWD, path, uid, gid, AT_SYMLINK_NOFOLLOW) : -EFAULT;
}

SYSCALL_DEFINE3(fchown, int, fd, uint32_t, uid, uint32_t, gid)
{
	return do_chown(fd, NULL, uid, gid, 0);
}

SYSCALL_DEFINE5(fchownat, int, dirfd, const char *, path, uint32_t, uid, uint32_t, gid, int, flags)
{
	return path ? do_chown(dirfd, path, uid, gid, flags) : -EFAULT;
}

/* One utimensat time as the inode takes it: -EINVAL for a bad tv_nsec. */
static long time_from_user(const struct timespec_u *ts, uint64_t *ns)
{
	if (ts->tv_nsec == UAPI_UTIME_NOW)
		*ns = INODE_TIME_NOW;
	else if (ts->tv_nsec == UAPI_UTIME_OMIT)
		*ns = INODE_TIME_OMIT;
	else if (ts->tv_nsec < 0 || ts->tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	else if (ts->tv_sec < 0)
		*ns = 0; /* before 1970: not representable here, clamped */
	else
		*ns = (ts->tv_sec > TIME_SEC_MAX ? TIME_SEC_MAX : ts->tv_sec) * NSEC_PER_SEC +
		      ts->tv_nsec;
	return 0;
}

/* Linux's rule for times: "now" (NULL, or both UTIME_NOW) needs the owner
 * or write permission (EACCES), other times the owner or CAP_FOWNER
 * (EPERM); both UTIME_OMIT asks nothing.  First notify_change's: no time
 * of an immutable inode, only "now" for an append-only one (EPERM). */
static int utimes_check(const struct inode *ip, const struct timespec_u *times, uint64_t atime,
			uint64_t mtime)
{
	bool now = !times || (atime == INODE_TIME_NOW && mtime == INODE_TIME_NOW);

	if (atime == INODE_TIME_OMIT && mtime == INODE_TIME_OMIT)
		return 0;
	if (now ? inode_immutable(ip) : inode_may_setattr(ip) != 0)
		return -EPERM;
	if (inode_owner_or_capable(ip))
		return 0;
	return now ? inode_permission(ip, MAY_WRITE) : -EPERM;
}

/*
 * times: kernel copy of the two timespecs, or NULL for "now".  A NULL path
 * with a dirfd is the file itself (futimens).  Linux's do_utimes order:
 * flags, the lookup, then the times' validity.
 */
static long do_utimes(int dirfd, const char *upath, const struct timespec_u *times, int flags)
{
	uint64_t atime = INODE_TIME_NOW, mtime = INODE_TIME_NOW;
	struct attr_obj o;
	long err;

	if (!upath && dirfd != AT_FDCWD ? flags : flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (!upath && dirfd == AT_FDCWD)
		return -EFAULT;
	err = attr_target(dirfd, upath, flags, flags & AT_SYMLINK_NOFOLLOW, &o);
	if (err || !o.ip)
		return attr_done(&o, err);
	if (times && ((err = time_from_user(&times[0], &atime)) ||
		      (err = time_from_user(&times[1], &mtime))))
		return attr_done(&o, err);
	if (!(err = attr_want_write(&o)) && !(err = utimes_check(o.ip, times, atime, mtime)))
		inode_set_times(o.ip, atime, mtime);
	return attr_done(&o, err);
}

/* Both times UTIME_OMIT: nothing to do, and Linux does not even look the path up. */
SYSCALL_DEFINE4(utimensat, int, dirfd, const char *, path, const struct timespec_u *, utimes, int,
		flags)
{
	struct timespec_u ts[2];

	if (utimes && copy_from_user(ts, utimes, sizeof(ts)))
		return -EFAULT;
	if (utimes && ts[0].tv_nsec == UAPI_UTIME_OMIT && ts[1].tv_nsec == UAPI_UTIME_OMIT)
		return 0;
	return do_utimes(dirfd, path, utimes ? ts : NULL, flags);
}

/* utimes/futimesat: microseconds, no UTIME_NOW or UTIME_OMIT (EINVAL out of range). */
static long do_futimesat(int dirfd, const char *path, const struct timeval_u *utv)
{
	struct timeval_u tv[2];
	struct timespec_u ts[2];

	if (!utv)
		return do_utimes(dirfd, path, NULL, 0);
	if (copy_from_user(tv, utv, sizeof(tv)))
		return -EFAULT;
	for (int i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= NSEC_PER_SEC / NSEC_PER_USEC)
			return -EINVAL;
		ts[i] = (struct timespec_u){tv[i].tv_sec, tv[i].tv_usec * NSEC_PER_USEC};
	}
	return do_utimes(dirfd, path, ts, 0);
}

SYSCALL_DEFINE2(utimes, const char *, path, const struct timeval_u *, tv)
{
	return path ? do_futimesat(AT_FDCWD, path, tv) : -EFAULT;
}

SYSCALL_DEFINE3(futimesat, int, dirfd, const char *, path, const struct timeval_u *, tv)
{
	return do_futimesat(dirfd, path, tv);
}
