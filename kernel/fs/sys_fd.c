/*
 * Descriptor system calls: the dup family, fcntl, pipes, close_range and
 * resource limits.  Argument checking and translation into the files table
 * (files.c), fd creation (fd.c) and pipes (pipe.c).  docs/fds.md.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/fd.h"
#include "fs/memfd.h"
#include "fs/file.h"
#include "fs/files.h"
#include "fs/pipe.h"
#include "fs/proc_sys.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/resource.h>

#define DUP3_FLAGS  (O_CLOEXEC | O_CLOFORK)
#define PIPE2_FLAGS (O_CLOEXEC | O_CLOFORK | O_NONBLOCK | O_NONSEQFD)
#define SETFL_FLAGS (O_APPEND | O_NONBLOCK)
/* An O_PATH file keeps O_PATH and the O_DIRECTORY/O_NOFOLLOW it was
 * opened with, as Linux shows them; other files have neither. */
#define GETFL_FLAGS (O_ACCMODE | SETFL_FLAGS | O_PATH | O_DIRECTORY | O_NOFOLLOW)

static struct files_table *files(void)
{
	return current()->files;
}

/* FD_CLOEXEC | FD_CLOFORK for O_CLOEXEC | O_CLOFORK, plus syscall_indirect's. */
static unsigned int fdflags_of(unsigned int oflags)
{
	return (oflags & O_CLOEXEC ? FD_CLOEXEC : 0) | (oflags & O_CLOFORK ? FD_CLOFORK : 0) |
	       fd_percall_fdflags();
}

SYSCALL_DEFINE1(dup, int, fd)
{
	return fd_dup(fd, 0, 0);
}

/* dup2 clears the new fd's flags; oldfd == newfd checks oldfd and returns it. */
SYSCALL_DEFINE2(dup2, int, oldfd, int, newfd)
{
	return files_dup_to(files(), oldfd, newfd, fdflags_of(0));
}

/* dup3 onto newfd; out of line, so the non-sequential route saves no registers. */
static __attribute__((noinline)) long dup3_to(int oldfd, int newfd, unsigned int flags)
{
	if (oldfd == newfd)
		return -EINVAL;
	return files_dup_to(files(), oldfd, newfd, fdflags_of(flags));
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
		return newfd == -1 ? fd_dup_nonseq(oldfd, flags) : -EINVAL;
	return dup3_to(oldfd, newfd, flags);
}

/* F_DUPFD*: like Linux, a minimum at or above RLIMIT_NOFILE is EINVAL. */
static long fcntl_dupfd(struct file *f, unsigned long arg, unsigned int oflags)
{
	unsigned int minfd = (unsigned int)arg; /* Linux reads an int */

	if (minfd >= files_get_nofile(files()))
		return -EINVAL;
	return fd_dup_file(f, oflags, (int)minfd);
}

/* F_SETFL: only O_APPEND and O_NONBLOCK change; other bits are ignored. */
static long fcntl_setfl(struct file *f, unsigned long arg)
{
	unsigned int old = __atomic_load_n(&f->flags, __ATOMIC_RELAXED), new;

	do
		new = (old & ~SETFL_FLAGS) | ((unsigned int)arg & SETFL_FLAGS);
	while (!__atomic_compare_exchange_n(&f->flags, &old, new, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	return 0;
}

static long do_fcntl(struct file *f, int fd, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case F_DUPFD:
		return fcntl_dupfd(f, arg, 0);
	case F_DUPFD_CLOEXEC:
		return fcntl_dupfd(f, arg, O_CLOEXEC);
	case F_DUPFD_CLOFORK:
		return fcntl_dupfd(f, arg, O_CLOFORK);
	case F_GETFD:
		return files_get_fdflags(files(), fd);
	case F_SETFD: /* replaces both bits; unknown bits are EINVAL (docs/fds.md) */
		return files_set_fdflags(files(), fd, (unsigned int)arg); /* Linux reads an int */
	case F_GETFL:
		return __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & GETFL_FLAGS;
	case F_SETFL:
		return fcntl_setfl(f, arg);
	case F_ADD_SEALS:
	case F_GET_SEALS:
		return memfd_fcntl(f, cmd, arg);
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

/* ---- Resource limits ---- */

#define STACK_SOFT (8UL << 20) /* what Linux reports; the stack may grow that far */

/*
 * Limits other than RLIMIT_NOFILE are reported, not enforced or stored:
 * a set within the hard limit succeeds and changes nothing (docs/fds.md).
 */
static struct rlimit fixed_rlimit(unsigned int res)
{
	switch (res) {
	case RLIMIT_STACK:
		return (struct rlimit){STACK_SOFT, RLIM_INFINITY};
	case RLIMIT_CORE:
		return (struct rlimit){0, RLIM_INFINITY};
	case RLIMIT_NPROC:
		return (struct rlimit){TASK_MAX, TASK_MAX};
	}
	return (struct rlimit){RLIM_INFINITY, RLIM_INFINITY};
}

void rlimit_of(struct files_table *files, unsigned int res, struct rlimit *r)
{
	if (res == RLIMIT_NOFILE)
		files_get_nofile_limits(files, &r->rlim_cur, &r->rlim_max);
	else
		*r = fixed_rlimit(res);
}

static void rlimit_get(unsigned int res, struct rlimit *r)
{
	rlimit_of(files(), res, r);
}

/*
 * /proc/sys/fs/nr_open: the most RLIMIT_NOFILE's hard limit may be
 * (setrlimit: EPERM above it).  Linux's default and least (the bits of a
 * word); at most NR_OPEN_MAX, the most the sequential area can hold
 * (Linux's own ceiling, near 2^31, cannot be honoured: EINVAL).  Atomic.
 */
static int nr_open = NR_OPEN_MAX;
PROC_SYS_ROW(nr_open_row, .path = "fs/nr_open", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &nr_open, .min = 64, .max = NR_OPEN_MAX);

/* res < RLIM_NLIMITS.  0, -EINVAL (soft > hard), -EPERM (hard too high). */
static long rlimit_set(unsigned int res, const struct rlimit *r)
{
	if (r->rlim_cur > r->rlim_max)
		return -EINVAL;
	if (res == RLIMIT_NOFILE &&
	    r->rlim_max > (uint64_t)__atomic_load_n(&nr_open, __ATOMIC_RELAXED))
		return -EPERM;
	if (res == RLIMIT_NOFILE)
		return files_set_nofile_limits(files(), r->rlim_cur, r->rlim_max);
	return r->rlim_max > fixed_rlimit(res).rlim_max ? -EPERM : 0;
}

SYSCALL_DEFINE2(getrlimit, unsigned int, res, struct rlimit *, urlim)
{
	struct rlimit r;

	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	rlimit_get(res, &r);
	return copy_to_user(urlim, &r, sizeof(r));
}

SYSCALL_DEFINE2(setrlimit, unsigned int, res, const struct rlimit *, urlim)
{
	struct rlimit r;

	if (copy_from_user(&r, urlim, sizeof(r)))
		return -EFAULT;
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	return rlimit_set(res, &r);
}

/* Only the caller's own limits (pid 0 or its pid): others are ESRCH. */
SYSCALL_DEFINE4(prlimit64, int, pid, unsigned int, res, const struct rlimit *, unew,
		struct rlimit *, uold)
{
	struct rlimit new, old;
	long err;

	if (unew && copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	if (pid != 0 && pid != current()->pid)
		return -ESRCH;
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	rlimit_get(res, &old);
	err = unew ? rlimit_set(res, &new) : 0;
	if (!err && uold)
		err = copy_to_user(uold, &old, sizeof(old));
	return err;
}
