/*
 * Creating fds in the current process: the one place every fd-creating
 * system call goes through, so the per-call flags of syscall_indirect()
 * (docs/syscall_indirect.md) apply to all of them alike.
 */
#ifndef FS_FD_H
#define FS_FD_H

#include "fd/fdtable.h"
#include "proc/task.h"
#include <uapi/fcntl.h>

struct file;
struct rlimit;

/*
 * Reserves an fd: oflags are O_NONSEQFD | O_CLOEXEC | O_CLOFORK, merged with
 * the per-call flags; the sequential area gives the lowest free fd >= minfd.
 * Returns the fd or -EMFILE / -EINVAL / -ENOMEM.
 */
int fd_reserve(unsigned int oflags, int minfd);
/* Installs f at a reserved fd (takes over the caller's reference); applies
 * a per-call O_NONBLOCK to f. */
void fd_install(int fd, struct file *f);
/* Gives back a reserved fd nothing was installed on (failure paths). */
void fd_unreserve(int fd);
/* fd_reserve + fd_install: the fd, or -errno (f untouched on failure). */
int fd_install_new(struct file *f, unsigned int oflags);
/* A new fd as fd_reserve() gives for f, which the caller keeps referenced. */
int fd_dup_file(struct file *f, unsigned int oflags, int minfd);
/* dup and F_DUPFD*: a new fd >= minfd (sequential area) or in the
 * non-sequential area (O_NONSEQFD, also per call) for oldfd's file, with
 * the per-call flags.  The fd, or -EBADF (oldfd) or fd_reserve's errors.
 * long, a system call's result: dup's handlers end in tail calls. */
long fd_dup(int oldfd, unsigned int oflags, int minfd);
/* fd_dup(oldfd, oflags | O_NONSEQFD, 0), with a direct route when no
 * per-call flags apply (dup3's O_NONSEQFD form: docs/fds.md).  Inline:
 * the non-sequential dup is the cheapest fd path (docs/bench.md). */
static inline long fd_dup_nonseq(int oldfd, unsigned int oflags)
{
	struct task *t = current();

	if (__builtin_expect(!t->indirect_flags, 1))
		return files_dup_nonseq(t->files, oldfd, oflags);
	return fd_dup(oldfd, oflags | O_NONSEQFD, 0);
}
/* FD_CLOEXEC | FD_CLOFORK the current call must add (dup2/dup3 and the like). */
unsigned int fd_percall_fdflags(void);

#endif
