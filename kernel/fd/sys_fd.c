/*
 * Descriptor system calls: the dup family, fcntl, pipes, close_range and
 * resource limits.  Argument checking and translation into the files table
 * (fdtable.c), fd creation (fd_install.c) and pipes (pipe.c).  docs/fds.md.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/notify/dnotify.h"
#include "fs/fasync.h"
#include "fs/locks/fcntl_lock.h"
#include "fs/locks/lease.h"
#include "fd/fd_install.h"
#include "fs/ramfs/memfd.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/permission.h"
#include "fd/fdtable.h"
#include "fs/pipe/pipe.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/resource.h>

#define DUP3_FLAGS  (O_CLOEXEC | O_CLOFORK)
#define PIPE2_FLAGS (O_CLOEXEC | O_CLOFORK | O_NONBLOCK | O_NONSEQFD | O_DIRECT)
#define SETFL_FLAGS (O_APPEND | O_NONBLOCK | O_ASYNC | O_NOATIME)
/* An O_PATH file keeps O_PATH and the O_DIRECTORY/O_NOFOLLOW it was
 * opened with, as Linux shows them; other files have neither. */
#define GETFL_FLAGS (O_ACCMODE | SETFL_FLAGS | O_DIRECT | O_PATH | O_DIRECTORY | O_NOFOLLOW)

static struct files_table *files(void)
{
	return current()->files;
}

/* The fd flags dup2 and dup3 give newfd: those of dup3's O_* flags, plus
 * syscall_indirect's (newfd names the area: no FDF_NONSEQ). */
static fdflags_t dup_to_flags(unsigned int oflags)
{
	return (fdflags_from_open(oflags) | fd_percall_flags()) & FDF_KEPT;
}

SYSCALL_DEFINE1(dup, int, fd)
{
	return fd_dup(fd, 0, 0);
}

/* dup2 clears the new fd's flags; oldfd == newfd checks oldfd and returns it. */
SYSCALL_DEFINE2(dup2, int, oldfd, int, newfd)
{
	return files_dup_to(files(), oldfd, newfd, dup_to_flags(0));
}

/* dup3 onto newfd; out of line, so the non-sequential route saves no registers. */
static __attribute__((noinline)) long dup3_to(int oldfd, int newfd, unsigned int flags)
{
	if (oldfd == newfd)
		return -EINVAL;
	return files_dup_to(files(), oldfd, newfd, dup_to_flags(flags));
}

/*
 * dup3(oldfd, -1, O_NONSEQFD | ...) is fdkernel's direct route to a dup in
 * the non-sequential area (docs/fds.md); O_NONSEQFD with any other newfd is
 * EINVAL.  Linux rejects the flag with EINVAL, so nothing that works there
 * changes meaning here.
 */
SYSCALL_DEFINE3(dup3, int, oldfd, int, newfd, unsigned int, flags)
{
	if (flags & ~(DUP3_FLAGS | O_NONSEQFD))
		return -EINVAL;
	if (flags & O_NONSEQFD)
		return newfd == -1 ? fd_dup(oldfd, fdflags_from_open(flags), 0) : -EINVAL;
	return dup3_to(oldfd, newfd, flags);
}

/* F_DUPFD*: like Linux, a minimum at or above RLIMIT_NOFILE is EINVAL. */
static long fcntl_dupfd(struct file *f, unsigned long arg, fdflags_t flags)
{
	unsigned int minfd = (unsigned int)arg; /* Linux reads an int */

	if (minfd >= files_get_nofile(files()))
		return -EINVAL;
	return fd_dup_file(f, flags, (int)minfd);
}

/* F_SETFL: only O_APPEND, O_NONBLOCK, O_ASYNC and O_NOATIME change, and
 * O_DIRECT on a pipe (packet mode, fs/pipe/pipe_packet.h); other bits are
 * ignored.  O_ASYNC arms signal-driven I/O (fs/fasync.c). */
static long fcntl_setfl(struct file *f, int fd, unsigned long arg)
{
	unsigned int mask = SETFL_FLAGS | (pipe_of(f) ? O_DIRECT : 0);
	unsigned int old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);

	/* An append-only file's O_APPEND stays (Linux's setfl: EPERM). */
	if (((arg ^ old) & O_APPEND) && f->inode && inode_append_only(f->inode))
		return -EPERM;
	/* Only the owner may leave atime alone, as open's (vfs.c). */
	if ((arg & ~old & O_NOATIME) && f->inode && !inode_owner_or_capable(f->inode))
		return -EPERM;

	return fasync_setfl(f, fd, (unsigned int)arg & mask, mask);
}

/* F_SETPIPE_SZ, F_GETPIPE_SZ: EBADF on anything but a pipe or a FIFO. */
static long fcntl_pipe_size(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct pipe *p = pipe_of(f); /* f's reference keeps it */

	if (!p)
		return -EBADF;
	return cmd == F_GETPIPE_SZ ? (long)pipe_get_size(p) : pipe_set_size(p, (unsigned int)arg);
}

static long do_fcntl(struct file *f, int fd, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case F_DUPFD:
		return fcntl_dupfd(f, arg, 0);
	case F_DUPFD_CLOEXEC:
		return fcntl_dupfd(f, arg, FDF_CLOEXEC);
	case F_DUPFD_CLOFORK:
		return fcntl_dupfd(f, arg, FDF_CLOFORK);
	case F_GETFD:
		return files_get_fdflags(files(), fd);
	case F_SETFD: /* replaces both bits; unknown bits are EINVAL (docs/fds.md) */
		/* Linux reads an int; FD_* are fd flags (fdflags.h) */
		return files_set_fdflags(files(), fd, (fdflags_t)arg);
	case F_GETFL:
		return __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & GETFL_FLAGS;
	case F_SETFL:
		return fcntl_setfl(f, fd, arg);
	case F_ADD_SEALS:
	case F_GET_SEALS:
		return memfd_fcntl(f, cmd, arg);
	case F_GETLK:
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		return fcntl_lock(f, fd, cmd, (void *)arg);
	case F_SETLEASE:
		return lease_setlease(f, fd, arg);
	case F_GETLEASE:
		return lease_getlease(f);
	case F_SETPIPE_SZ:
	case F_GETPIPE_SZ:
		return fcntl_pipe_size(f, cmd, arg);
	case F_NOTIFY:
		return dnotify_fcntl(f, fd, (unsigned int)arg); /* Linux reads an int */
	case F_SETOWN:
	case F_GETOWN:
	case F_SETOWN_EX:
	case F_GETOWN_EX:
	case F_SETSIG:
	case F_GETSIG:
		return fasync_fcntl(f, cmd, arg);
	}
	return -EINVAL;
}

/* What an O_PATH fd may do (Linux's check_fcntl_cmd): the fd itself. */
static bool fcntl_path_cmd(unsigned int cmd)
{
	return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC || cmd == F_DUPFD_CLOFORK ||
	       cmd == F_GETFD || cmd == F_SETFD || cmd == F_GETFL;
}

/* A bad fd is EBADF whatever cmd is, as on Linux. */
SYSCALL_DEFINE3(fcntl, int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = files_lookup_raw(files(), fd);
	long ret;

	if (!f)
		return -EBADF;
	if (file_is_path(f) && !fcntl_path_cmd(cmd))
		ret = -EBADF;
	else
		ret = do_fcntl(f, fd, cmd, arg);
	file_put(f);
	return ret;
}

/*
 * Both fds are reserved first, so a full table fails before any work, and
 * installed only after ufds was written: a fault leaves nothing open.
 */
static long do_pipe2(int *ufds, unsigned int flags)
{
	struct file *rd, *wr;
	int fds[2] = {-1, -1};
	long err;

	fds[0] = fd_reserve(flags, 0);
	if (fds[0] < 0)
		return fds[0];
	fds[1] = fd_reserve(flags, 0);
	err = fds[1] < 0 ? fds[1] : pipe_create(flags, &rd, &wr);
	if (err)
		goto bad;
	err = copy_to_user(ufds, fds, sizeof(fds));
	if (err) {
		file_put(rd);
		file_put(wr);
		goto bad;
	}
	fd_install(fds[0], rd);
	fd_install(fds[1], wr);
	return 0;
bad:
	fd_unreserve(fds[0]);
	if (fds[1] >= 0)
		fd_unreserve(fds[1]);
	return err;
}

SYSCALL_DEFINE1(pipe, int *, ufds)
{
	return do_pipe2(ufds, 0);
}

SYSCALL_DEFINE2(pipe2, int *, ufds, unsigned int, flags)
{
	if (flags & ~PIPE2_FLAGS)
		return -EINVAL;
	return do_pipe2(ufds, flags);
}

/* CLOSE_RANGE_UNSHARE: the caller gets a table of its own first, so the
 * range closes only there (the flags are checked before, as Linux). */
SYSCALL_DEFINE3(close_range, unsigned int, first, unsigned int, last, unsigned int, flags)
{
	int err = files_close_range_check(first, last, flags);

	if (!err && (flags & CLOSE_RANGE_UNSHARE))
		err = task_unshare_files(current());
	return err ? err : files_close_range(files(), first, last, flags);
}
