/*
 * What the file-system system calls share (sys_file.c, sys_attr.c,
 * sys_link.c): a user path copied in with the directory it is relative
 * to, and the per-call "don't follow" of syscall_indirect.
 */
#ifndef FS_UPATH_H
#define FS_UPATH_H

#include "fs/vfs.h"
#include "proc/task.h"
#include <uapi/syscall_indirect.h>

/* Paths this long or shorter are copied into the upath itself (most
 * are: Linux's getname embeds short names the same way); longer ones
 * into a kmalloc'd PATH_MAX buffer. */
#define UPATH_INLINE 256

/* A path from user space and the directory it is relative to.  Lives on
 * its caller's stack (or, its dir empty, in the io_uring request that
 * copied its path: upath_name) and is never copied (path may point into
 * it). */
struct upath {
	char *path;	 /* iname, or a kmalloc'd copy */
	struct path dir; /* referenced, or empty for the cwd */
	char iname[UPATH_INLINE];
};

/*
 * Copies the path in and resolves dirfd (AT_FDCWD, or an open directory;
 * ignored for absolute paths unless UPATH_ROOTED and, with AT_EMPTY_PATH,
 * for an empty one).  0, -EFAULT, -ENAMETOOLONG, -ENOENT (empty), -EBADF,
 * -ENOTDIR, -ENOMEM.
 */
int upath_get_flags(int dirfd, const char *upath, int flags, struct upath *p);
/* Its two halves.  upath_name: the path copied in (Linux's getname), p's
 * dir empty: 0 (upath_put then), -EFAULT, -ENAMETOOLONG, -ENOMEM, or
 * -ENOENT for an empty one without AT_EMPTY_PATH in flags.  kpath_dir:
 * the directory a path already copied in (kpath) is relative to, into
 * *dir (referenced, or empty for the cwd, an absolute or empty path):
 * 0, -EBADF, -ENOTDIR.  io_uring copies at submission and resolves when
 * its request runs. */
int upath_name(struct upath *p, const char *upath, int flags);
int kpath_dir(int dirfd, const char *kpath, int flags, struct path *dir);
/* A flag of upath_get_flags beside the AT_* ones: dirfd is the root of
 * absolute paths too (openat2's RESOLVE_IN_ROOT). */
#define UPATH_ROOTED (1 << 30)
int upath_get(int dirfd, const char *upath, struct upath *p);
void upath_put(struct upath *p);

/*
 * True inside syscall_indirect(SYSIND_NOFOLLOW, ...): the call must not
 * follow a symbolic link in the last component of its paths
 * (docs/syscall_indirect.md says how each call applies it).
 */
static inline bool sysind_nofollow(void)
{
	return current()->indirect_flags & SYSIND_NOFOLLOW;
}

/* LOOKUP_NOFOLLOW when the call's flags or syscall_indirect ask for it. */
static inline unsigned int lookup_follow_flags(bool nofollow)
{
	return nofollow || sysind_nofollow() ? LOOKUP_NOFOLLOW : 0;
}

/* openat(2) of a path already copied in (kpath), with lookup the walk's
 * LOOKUP_* restrictions: the new fd or -errno (sys_file.c). */
long open_kpath(int dirfd, const char *kpath, unsigned int flags, uint32_t mode,
		unsigned int lookup);
struct open_how;
/* openat2's open_how of size bytes at uhow into *how (EINVAL below
 * version 0, E2BIG for a non-zero byte past it, EFAULT), and its checks
 * (EINVAL, EAGAIN), *lookup the walk's restrictions. */
int open_how_get(struct open_how *how, const struct open_how *uhow, size_t size);
int open_how_check(const struct open_how *how, unsigned int *lookup);
/* mkdirat, unlinkat (flags: AT_REMOVEDIR, checked by the caller),
 * symlinkat, linkat and renameat2 of paths already copied in (their
 * system calls after upath_name; io_uring's path ops, which copy at
 * submission): each resolves its directories then, as Linux's do_*at
 * on a getname'd name.  0 or -errno (sys_file.c, sys_link.c). */
long mkdir_kpath(int dirfd, const char *kpath, unsigned int mode);
long unlink_kpath(int dirfd, const char *kpath, int flags);
long symlink_kpath(const char *ktarget, int dirfd, const char *kpath);
long link_kpath(int olddirfd, const char *kold, int newdirfd, const char *knew, int flags);
long rename_kpath(int olddirfd, const char *kold, int newdirfd, const char *knew,
		  unsigned int flags);
/* statx(2) of a path already copied in (sys_stat.c). */
struct uapi_statx;
long statx_kpath(int dirfd, const char *kpath, int flags, unsigned int mask,
		 struct uapi_statx *ubuf);

/* Fills *st for upath from dirfd (fd itself for "" with AT_EMPTY_PATH,
 * a final link with AT_SYMLINK_NOFOLLOW); flags are checked by the
 * caller.  0 or -errno (sys_stat.c). */
long upath_stat(int dirfd, const char *upath, int flags, struct uapi_stat *st);
/* The inode a user path (dirfd-relative) names: lookup flags as above. */
int upath_lookup(int dirfd, const char *upath, bool nofollow, struct inode **out);
/* The path of an empty path (Linux's LOOKUP_EMPTY): the file on dirfd
 * itself (an O_PATH|O_NOFOLLOW one may be a link), the cwd for
 * AT_FDCWD; -EBADF, or -ENOENT for a file with no inode. */
long upath_empty(int dirfd, struct path *out);
/* What an *at call with AT_EMPTY_PATH and AT_SYMLINK_NOFOLLOW in flags
 * names: "" dirfd's own file (upath_empty), else the lookup. */
long upath_lookup_at(int dirfd, const char *upath, int flags, struct path *out);
/* upath_lookup with the mount it was reached through. */
int upath_lookup_path(int dirfd, const char *upath, bool nofollow, struct path *out);
/* The same, with where it was found (vfs.h's path_where; inotify's names). */
int upath_lookup_where(int dirfd, const char *upath, bool nofollow, struct path *out,
		       struct path_where *where);

#endif
