/* fd creation with per-call flags (see fd_install.h). */
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "proc/task.h"
#include <uapi/fcntl.h>
#include <uapi/syscall_indirect.h>

#define FD_OFLAGS (O_NONSEQFD | O_CLOEXEC | O_CLOFORK) /* the O_* flags an fd carries */

/* The O_* equivalents of the current syscall_indirect() flags. */
static unsigned int percall_oflags(void)
{
	unsigned long f = current()->indirect_flags;

	return (f & SYSIND_NONSEQFD ? O_NONSEQFD : 0) | (f & SYSIND_CLOEXEC ? O_CLOEXEC : 0) |
	       (f & SYSIND_CLOFORK ? O_CLOFORK : 0);
}

/* oflags' fd flags merged with the per-call ones (none, nearly always). */
static unsigned int with_percall(unsigned int oflags)
{
	if (__builtin_expect(!current()->indirect_flags, 1))
		return oflags & FD_OFLAGS;
	return (oflags | percall_oflags()) & FD_OFLAGS;
}

unsigned int fd_percall_fdflags(void)
{
	unsigned int o = percall_oflags();

	return (o & O_CLOEXEC ? FD_CLOEXEC : 0) | (o & O_CLOFORK ? FD_CLOFORK : 0);
}

int fd_reserve(unsigned int oflags, int minfd)
{
	return files_alloc_fd(current()->files, minfd, with_percall(oflags));
}

void fd_install(int fd, struct file *f)
{
	if (current()->indirect_flags & SYSIND_NONBLOCK)
		__atomic_or_fetch(&f->flags, O_NONBLOCK, __ATOMIC_RELAXED);
	files_install(current()->files, fd, f);
}

void fd_unreserve(int fd)
{
	files_unreserve_fd(current()->files, fd);
}

int fd_dup_file(struct file *f, unsigned int oflags, int minfd)
{
	int fd = fd_reserve(oflags, minfd);

	if (fd >= 0) {
		file_get(f);
		fd_install(fd, f);
	}
	return fd;
}

/* fd_dup with a per-call O_NONBLOCK, which changes the file before its new
 * fd shows it.  Out of line, so the common path saves no registers. */
static __attribute__((noinline)) int fd_dup_nonblock(int oldfd, unsigned int oflags, int minfd)
{
	struct file *f = files_lookup_raw(current()->files, oldfd); /* dup: O_PATH too */
	int fd;

	if (!f)
		return -EBADF;
	fd = fd_dup_file(f, oflags, minfd);
	file_put(f);
	return fd;
}

long fd_dup(int oldfd, unsigned int oflags, int minfd)
{
	struct task *t = current();

	/* Common case, outside syscall_indirect: one pass under the files lock. */
	if (__builtin_expect(!t->indirect_flags, 1))
		return files_dup(t->files, oldfd, minfd, oflags & FD_OFLAGS);
	if (t->indirect_flags & SYSIND_NONBLOCK)
		return fd_dup_nonblock(oldfd, oflags, minfd);
	return files_dup(t->files, oldfd, minfd, with_percall(oflags));
}

int fd_install_new(struct file *f, unsigned int oflags)
{
	int fd = fd_reserve(oflags, 0);

	if (fd >= 0)
		fd_install(fd, f);
	return fd;
}
