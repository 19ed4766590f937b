/*
 * File-system system calls.  Mostly argument checking, since we don't trust
 * user code, and calls into the VFS (vfs.h), the files table and file ops.
 */
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/atime.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/notify/fsnotify.h"
#include "fs/upath.h"
#include "fs/root_cwd.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/permission.h"
#include "proc/cred.h"
#include "fs/vfs.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/cred.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>
#include <uapi/ioctl.h>
#include <uapi/stat.h>

/* access() modes: Linux values. */
#define ACCESS_MODES 7 /* R_OK | W_OK | X_OK */

static struct files_table *files(void)
{
	return current()->files;
}

void upath_put(struct upath *p)
{
	if (p->path != p->iname)
		kfree(p->path);
	if (p->dir.inode)
		path_put(&p->dir);
}

/* Copies the user's path into p: its length, -ENAMETOOLONG (PATH_MAX
 * bytes or more), -EFAULT or -ENOMEM.  A short one stays in p->iname,
 * a longer one is copied again into a PATH_MAX buffer. */
static long upath_copy(struct upath *p, const char *upath)
{
	long n = strncpy_from_user(p->iname, upath, UPATH_INLINE);

	p->path = p->iname;
	if (n != -ENAMETOOLONG) /* it fit, or a fault */
		return n;
	if (!(p->path = kmalloc(PATH_MAX))) {
		p->path = p->iname;
		return -ENOMEM;
	}
	return strncpy_from_user(p->path, upath, PATH_MAX);
}

int upath_name(struct upath *p, const char *upath, int flags)
{
	long n = upath_copy(p, upath);

	p->dir = (struct path){NULL, NULL};
	if (n == 0 && !(flags & AT_EMPTY_PATH))
		n = -ENOENT; /* as Linux's getname */
	if (n < 0)
		upath_put(p);
	return n < 0 ? (int)n : 0;
}

int kpath_dir(int dirfd, const char *kpath, int flags, struct path *dir)
{
	struct file *f;
	int err;

	*dir = (struct path){NULL, NULL};
	if (!kpath[0] || (kpath[0] == '/' && !(flags & UPATH_ROOTED)) || dirfd == AT_FDCWD)
		return 0;
	f = files_lookup_raw(files(), dirfd); /* O_PATH dirfds too */
	err = !f ? -EBADF : !f->inode || !inode_is_dir(f->inode) ? -ENOTDIR : 0;
	if (!err) {
		*dir = (struct path){f->mnt, f->inode};
		path_get(dir);
	}
	if (f)
		file_put(f);
	return err;
}

int upath_get_flags(int dirfd, const char *upath, int flags, struct upath *p)
{
	int err = upath_name(p, upath, flags);

	if (err)
		return err;
	if ((err = kpath_dir(dirfd, p->path, flags, &p->dir)))
		upath_put(p);
	return err;
}

int upath_get(int dirfd, const char *upath, struct upath *p)
{
	return upath_get_flags(dirfd, upath, 0, p);
}

int upath_lookup_where(int dirfd, const char *upath, bool nofollow, struct path *out,
		       struct path_where *where)
{
	struct upath p;
	int err = upath_get(dirfd, upath, &p);

	if (err)
		return err;
	err = path_lookup_where(&p.dir, p.path, lookup_follow_flags(nofollow), out, where);
	upath_put(&p);
	return err;
}

long upath_empty(int dirfd, struct path *out)
{
	struct file *f;

	if (dirfd == AT_FDCWD) {
		fs_get_cwd(current()->fs, out);
		return 0;
	}
	f = files_lookup_raw(files(), dirfd);
	if (!f)
		return -EBADF;
	*out = (struct path){f->mnt, f->inode};
	if (out->inode)
		path_get(out);
	file_put(f);
	return out->inode ? 0 : -ENOENT;
}

long upath_lookup_at(int dirfd, const char *upath, int flags, struct path *out)
{
	struct upath p;
	long err = upath_get_flags(dirfd, upath, flags & AT_EMPTY_PATH, &p);

	if (err)
		return err;
	err = p.path[0]
		  ? path_lookup_where(&p.dir, p.path,
				      lookup_follow_flags(flags & AT_SYMLINK_NOFOLLOW), out, NULL)
		  : upath_empty(dirfd, out);
	upath_put(&p);
	return err;
}

int upath_lookup_path(int dirfd, const char *upath, bool nofollow, struct path *out)
{
	return upath_lookup_where(dirfd, upath, nofollow, out, NULL);
}

int upath_lookup(int dirfd, const char *upath, bool nofollow, struct inode **out)
{
	struct path p;
	int err = upath_lookup_path(dirfd, upath, nofollow, &p);

	if (!err) {
		*out = p.inode;
		mnt_put(p.mnt);
	}
	return err;
}

long open_kpath(int dirfd, const char *kpath, unsigned int flags, uint32_t mode,
		unsigned int lookup)
{
	struct path dir;
	struct file *f;
	int fd, err = kpath_dir(dirfd, kpath, lookup & LOOKUP_IN_ROOT ? UPATH_ROOTED : 0, &dir);

	if (err)
		return err;
	fd = fd_reserve(flags, 0);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	if (sysind_nofollow())
		flags |= O_NOFOLLOW;
	err = vfs_open_at(&dir, kpath, flags, mode & ~fs_umask(current()->fs), lookup, &f);
	if (err) {
		fd_unreserve(fd);
		goto out;
	}
	fd_install(fd, f);
	err = fd;
out:
	if (dir.inode)
		path_put(&dir);
	return err;
}

/* lookup: the walk's LOOKUP_* restrictions (openat2's). */
static long do_open(int dirfd, const char *upath, unsigned int flags, uint32_t mode,
		    unsigned int lookup)
{
	struct upath p;
	long err = upath_name(&p, upath, 0);

	if (err)
		return err;
	err = open_kpath(dirfd, p.path, flags, mode, lookup);
	upath_put(&p);
	return err;
}

/* Unknown flag bits are ignored, as Linux does. */
SYSCALL_DEFINE3(open, const char *, path, unsigned int, flags, unsigned int, mode)
{
	return do_open(AT_FDCWD, path, flags, mode, 0);
}

SYSCALL_DEFINE4(openat, int, dirfd, const char *, path, unsigned int, flags, unsigned int, mode)
{
	return do_open(dirfd, path, flags, mode, 0);
}

/* What openat2 accepts: Linux's VALID_OPEN_FLAGS and fdkernel's fd flags. */
#define OPENAT2_FLAGS                                                                              \
	(O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_SYNC |      \
	 O_DSYNC | FASYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME |        \
	 O_CLOEXEC | O_PATH | __O_TMPFILE | O_CLOFORK | O_NONSEQFD)
#define RESOLVE_ALL                                                                                \
	(RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH |         \
	 RESOLVE_IN_ROOT | RESOLVE_CACHED)

/*
 * Linux's checks of an open_how (build_open_flags), in its order: unknown
 * bits are EINVAL here, where open ignores them; *lookup gets the walk's
 * restrictions.  RESOLVE_CACHED (complete from the cache or EAGAIN) always
 * completes, the ramfs being all cache, but not for a call that would
 * create or truncate, as on Linux.
 */
int open_how_check(const struct open_how *how, unsigned int *lookup)
{
	static const struct {
		unsigned int resolve, lookup;
	} map[] = {
	    {RESOLVE_NO_XDEV, LOOKUP_NO_XDEV},
	    {RESOLVE_NO_MAGICLINKS, LOOKUP_NO_MAGICLINKS},
	    {RESOLVE_NO_SYMLINKS, LOOKUP_NO_SYMLINKS},
	    {RESOLVE_BENEATH, LOOKUP_BENEATH},
	    {RESOLVE_IN_ROOT, LOOKUP_IN_ROOT},
	};
	unsigned long long flags = how->flags;

	if ((flags & ~(unsigned long long)OPENAT2_FLAGS) || (how->resolve & ~RESOLVE_ALL))
		return -EINVAL;
	if ((how->resolve & RESOLVE_BENEATH) && (how->resolve & RESOLVE_IN_ROOT))
		return -EINVAL;
	if ((flags & (O_CREAT | __O_TMPFILE)) ? how->mode & ~07777ULL : how->mode)
		return -EINVAL;
	if ((flags & O_PATH) && (flags & ~(unsigned long long)(O_PATH | O_DIRECTORY | O_NOFOLLOW |
							       O_CLOEXEC | O_CLOFORK | O_NONSEQFD)))
		return -EINVAL;
	if ((how->resolve & RESOLVE_CACHED) && (flags & (O_TRUNC | O_CREAT | __O_TMPFILE)))
		return -EAGAIN;
	*lookup = 0;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (how->resolve & map[i].resolve)
			*lookup |= map[i].lookup;
	return 0;
}

int open_how_get(struct open_how *how, const struct open_how *uhow, size_t size)
{
	if (size < OPEN_HOW_SIZE_VER0)
		return -EINVAL;
	return copy_struct_from_user(how, sizeof(*how), uhow, size);
}

/* openat(2) with every argument checked and the walk restricted. */
SYSCALL_DEFINE4(openat2, int, dirfd, const char *, path, const struct open_how *, uhow, size_t,
		size)
{
	struct open_how how;
	unsigned int lookup;
	int err;

	if (size > PAGE_SIZE)
		return -E2BIG;
	if ((err = open_how_get(&how, uhow, size)) || (err = open_how_check(&how, &lookup)))
		return err;
	return do_open(dirfd, path, how.flags, how.mode, lookup);
}

/* The oldest way to make a file: open's O_CREAT | O_WRONLY | O_TRUNC. */
SYSCALL_DEFINE2(creat, const char *, path, unsigned int, mode)
{
	return do_open(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, 0);
}

SYSCALL_DEFINE1(close, int, fd)
{
	return files_close(files(), fd);
}

SYSCALL_DEFINE3(getdents64, int, fd, void *, buf, unsigned int, count)
{
	struct file *f = files_lookup(files(), fd);
	long n;

	if (!f)
		return -EBADF;
	if (!f->ops->getdents)
		n = -ENOTDIR;
	else if (!user_range_ok((uint64_t)buf, count))
		n = -EFAULT;
	else
		n = f->ops->getdents(f, buf, count);
	if (n >= 0 && f->inode) { /* as Linux's iterate_dir */
		fsnotify_file(f, IN_ACCESS);
		file_accessed(f);
	}
	file_put(f);
	return n;
}

/* unlink and rmdir of a path copied in already: its directory resolved,
 * then op. */
static long kpath_op(int dirfd, const char *kpath, int (*op)(const struct path *, const char *))
{
	struct path dir;
	long err = kpath_dir(dirfd, kpath, 0, &dir);

	if (err)
		return err;
	err = op(&dir, kpath);
	if (dir.inode)
		path_put(&dir);
	return err;
}

long unlink_kpath(int dirfd, const char *kpath, int flags)
{
	return kpath_op(dirfd, kpath, flags & AT_REMOVEDIR ? vfs_rmdir : vfs_unlink);
}

/* mkdir, unlink and rmdir: the user path copied in (Linux's getname),
 * then the operation on it. */
static long path_op(int dirfd, const char *upath, int (*op)(const struct path *, const char *))
{
	struct upath p;
	long err = upath_name(&p, upath, 0);

	if (err)
		return err;
	err = kpath_op(dirfd, p.path, op);
	upath_put(&p);
	return err;
}

long mkdir_kpath(int dirfd, const char *kpath, unsigned int mode)
{
	struct path dir;
	long err = kpath_dir(dirfd, kpath, 0, &dir);

	if (err)
		return err;
	err = vfs_mkdir(&dir, kpath, mode & ~fs_umask(current()->fs));
	if (dir.inode)
		path_put(&dir);
	return err;
}

static long do_mkdir(int dirfd, const char *upath, unsigned int mode)
{
	struct upath p;
	long err = upath_name(&p, upath, 0);

	if (err)
		return err;
	err = mkdir_kpath(dirfd, p.path, mode);
	upath_put(&p);
	return err;
}

SYSCALL_DEFINE2(mkdir, const char *, path, unsigned int, mode)
{
	return do_mkdir(AT_FDCWD, path, mode);
}

SYSCALL_DEFINE3(mkdirat, int, dirfd, const char *, path, unsigned int, mode)
{
	return do_mkdir(dirfd, path, mode);
}

/*
 * mknod: a regular file (type 0 too), a FIFO, a device or socket node
 * (a device needs CAP_MKNOD: vfs_mknod; opening one with no driver here
 * is ENXIO).  The type is checked before the path, as
 * Linux's may_mknod: a directory is EPERM, anything else EINVAL.  dev is
 * kept for devices only, as st_rdev shows it.
 */
static long do_mknod(int dirfd, const char *upath, unsigned int mode, unsigned int dev)
{
	uint32_t type = mode & S_IFMT, perm = mode & 07777 & ~fs_umask(current()->fs);
	struct upath p;
	long err;

	if (type == S_IFDIR)
		return -EPERM;
	if (type && type != S_IFREG && type != S_IFIFO && type != S_IFCHR && type != S_IFBLK &&
	    type != S_IFSOCK)
		return -EINVAL;
	if ((err = upath_get(dirfd, upath, &p)))
		return err;
	err = vfs_mknod(&p.dir, p.path, (type ? type : S_IFREG) | perm,
			type == S_IFCHR || type == S_IFBLK ? dev : 0);
	upath_put(&p);
	return err;
}

SYSCALL_DEFINE3(mknod, const char *, path, unsigned int, mode, unsigned int, dev)
{
	return do_mknod(AT_FDCWD, path, mode, dev);
}

SYSCALL_DEFINE4(mknodat, int, dirfd, const char *, path, unsigned int, mode, unsigned int, dev)
{
	return do_mknod(dirfd, path, mode, dev);
}

SYSCALL_DEFINE1(unlink, const char *, path)
{
	return path_op(AT_FDCWD, path, vfs_unlink);
}

SYSCALL_DEFINE1(rmdir, const char *, path)
{
	return path_op(AT_FDCWD, path, vfs_rmdir);
}

SYSCALL_DEFINE3(unlinkat, int, dirfd, const char *, path, int, flags)
{
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return path_op(dirfd, path, flags ? vfs_rmdir : vfs_unlink);
}

/*
 * The credentials access() checks with (Linux's access_override_creds):
 * the real ids as the fs ids and, for anyone but root, no capabilities;
 * AT_EACCESS keeps the caller's own.
 */
static const struct cred *access_cred(struct cred *buf, int flags)
{
	const struct cred *c = cred_current();

	if (flags & AT_EACCESS)
		return c;
	*buf = *c;
	buf->fsuid = c->uid;
	buf->fsgid = c->gid;
	buf->cap_effective = c->uid ? 0 : c->cap_permitted;
	return buf;
}

/*
 * access/faccessat/faccessat2: mode's bits (R_OK 4, W_OK 2, X_OK 1, or
 * F_OK 0: existence) checked as an open would, with the real ids
 * (access_cred), on what stat would describe: flags AT_SYMLINK_NOFOLLOW
 * (a final link itself), AT_EMPTY_PATH (dirfd's own file, a pipe's
 * 0600 too), AT_EACCESS.
 */
static long do_access(int dirfd, const char *upath, int mode, int flags)
{
	struct uapi_stat st;
	struct cred buf;
	struct path p;
	long err;

	if (mode & ~ACCESS_MODES)
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((err = upath_stat(dirfd, upath, flags & ~AT_EACCESS, &st)))
		return err;
	if (!(mode & MAY_WRITE) ||
	    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
		return cred_mode_permission(access_cred(&buf, flags), st.st_mode, st.st_uid,
					    st.st_gid, mode);
	/* A write: a read-only instance first, the mode, then a read-only
	 * mount (Linux's sb_permission, inode_permission, __mnt_is_readonly). */
	if (!(err = upath_lookup_at(dirfd, upath, flags, &p))) {
		err = sb_want_write(p.inode->sb);
		if (!err && inode_immutable(p.inode))
			err = -EPERM; /* Linux's inode_permission */
		if (!err)
			err = cred_mode_permission(access_cred(&buf, flags), st.st_mode, st.st_uid,
						   st.st_gid, mode);
		if (!err)
			err = path_want_write(&p);
		path_put(&p);
	}
	return err;
}

SYSCALL_DEFINE2(access, const char *, path, int, mode)
{
	return do_access(AT_FDCWD, path, mode, 0);
}

SYSCALL_DEFINE3(faccessat, int, dirfd, const char *, path, int, mode)
{
	return do_access(dirfd, path, mode, 0);
}

SYSCALL_DEFINE4(faccessat2, int, dirfd, const char *, path, int, mode, int, flags)
{
	return do_access(dirfd, path, mode, flags);
}

SYSCALL_DEFINE2(getcwd, char *, buf, size_t, size)
{
	char *kbuf = kmalloc(PATH_MAX);
	struct path cwd, root;
	long n;

	if (!kbuf)
		return -ENOMEM;
	fs_get_cwd(current()->fs, &cwd);
	fs_get_root(current()->fs, &root);
	n = vfs_getcwd_at(&root, &cwd, kbuf, size < PATH_MAX ? size : PATH_MAX);
	path_put(&root);
	path_put(&cwd);
	if (n == -ERANGE && size >= PATH_MAX)
		n = -ENAMETOOLONG;
	if (n > 0 && copy_to_user(buf, kbuf, n))
		n = -EFAULT;
	kfree(kbuf);
	return n;
}

/* chroot(2): "/" and the stop of ".." become path's directory for this
 * process and those sharing its fs_struct (CLONE_FS); the working
 * directory stays where it is (docs/vfs.md, "chroot"). */
SYSCALL_DEFINE1(chroot, const char *, upath)
{
	struct path p;
	long err = upath_lookup_path(AT_FDCWD, upath, false, &p);

	if (err)
		return err;
	/* Linux's order: ENOTDIR, search permission, then privilege. */
	err = !inode_is_dir(p.inode)		    ? -ENOTDIR
	      : inode_permission(p.inode, MAY_EXEC) ? -EACCES
	      : !capable(CAP_SYS_CHROOT)	    ? -EPERM
						    : 0;
	if (err) {
		path_put(&p);
		return err;
	}
	fs_set_root(current()->fs, &p);
	return 0;
}

/* Takes over p's references (CLONE_FS threads see the change): a
 * directory the caller may search. */
static long set_cwd(struct path *p)
{
	long err = !inode_is_dir(p->inode) ? -ENOTDIR : inode_permission(p->inode, MAY_EXEC);

	if (err) {
		path_put(p);
		return err;
	}
	fs_set_cwd(current()->fs, p);
	return 0;
}

/* With SYSIND_NOFOLLOW a final link is not a directory: ENOTDIR, as
 * open(O_DIRECTORY | O_NOFOLLOW). */
SYSCALL_DEFINE1(chdir, const char *, upath)
{
	struct path p;
	long err = upath_lookup_path(AT_FDCWD, upath, false, &p);

	return err ? err : set_cwd(&p);
}

SYSCALL_DEFINE1(fchdir, int, fd)
{
	struct file *f = files_lookup_raw(files(), fd); /* O_PATH too */
	struct path p;
	long err = -ENOTDIR;

	if (!f)
		return -EBADF;
	if (f->inode) {
		p = (struct path){f->mnt, f->inode};
		path_get(&p);
		err = set_cwd(&p);
	}
	file_put(f);
	return err;
}

/* FIONBIO is generic (it sets O_NONBLOCK); everything else is the file's.
 * cmd is 32 bits, as Linux's: musl passes an int, sign-extended. */
SYSCALL_DEFINE2(ftruncate, int, fd, long, length)
{
	struct file *f;
	long err = -EINVAL;

	if (length < 0)
		return -EINVAL;
	f = files_lookup(files(), fd);
	if (!f)
		return -EBADF;
	if (f->inode && inode_is_reg(f->inode) && file_can_write(f))
		err = inode_append_only(f->inode) ? -EPERM : inode_truncate(f->inode, length);
	if (!err)
		fsnotify_file(f, IN_MODIFY);
	file_put(f);
	return err;
}

/* With SYSIND_NOFOLLOW a final link is ELOOP, as open(O_NOFOLLOW). */
SYSCALL_DEFINE2(truncate, const char *, upath, long, length)
{
	struct path_where where = {NULL, NULL};
	struct path p;
	struct inode *ip;
	long err;

	if (length < 0)
		return -EINVAL;
	err = upath_lookup_where(AT_FDCWD, upath, false, &p, &where);
	if (err)
		return err;
	ip = p.inode;
	err = inode_is_dir(ip)	  ? -EISDIR
	      : inode_is_link(ip) ? -ELOOP
	      : !inode_is_reg(ip) ? -EINVAL
				  : vfs_truncate(&p, length);
	if (!err)
		fsnotify_parent(ip, where.dir, where.name, IN_MODIFY);
	path_put(&p);
	path_where_put(&where);
	return err;
}
