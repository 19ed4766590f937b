/*
 * Creating fds in the current process: the one place every fd-creating
 * system call goes through, so the per-call flags of syscall_indirect()
 * (docs/syscall_indirect.md) apply to all of them alike.  An fd creator
 * outside kernel/fd passes its O_* flags (fd_reserve, fd_install_new):
 * they become fd flags (fdflags.h) here, once; the dup calls pass fd
 * flags (sys_fd.c converts dup3's).
 */
#ifndef FD_FD_INSTALL_H
#define FD_FD_INSTALL_H

#include "fd/fdtable.h"
#include "proc/task.h"
#include <uapi/fcntl.h>

struct file;

/*
 * The fd redirection of one call that io_uring runs for a request on
 * direct descriptors (async/io_uring_files.c, docs/async.md), pointed to
 * by task->fd_redirect for the call's length (own: the task sets it on
 * itself, NULL otherwise).  The call's lookups of FD_LENT (fdtable.h) find
 * `lent` (IOSQE_FIXED_FILE); with `capture` (file_index), the one fd the
 * call creates is not made: its reservation succeeds with 0, and the file
 * it would have held goes to `made` for io_uring to put in a slot after
 * the call, as Linux installs a direct descriptor once the file exists.
 */
struct fd_redirect {
	struct file *lent; /* referenced by the request until it is freed */
	bool capture;
	struct file *made; /* the new file's reference, or NULL */
};

/*
 * Reserves an fd: of oflags only O_NONSEQFD | O_CLOEXEC | O_CLOFORK count,
 * merged with the per-call flags; the sequential area gives the lowest
 * free fd >= minfd.  Returns the fd or -EMFILE / -EINVAL / -ENOMEM.
 */
int fd_reserve(unsigned int oflags, int minfd);
/* Installs f at a reserved fd (takes over the caller's reference); applies
 * a per-call O_NONBLOCK to f. */
void fd_install(int fd, struct file *f);
/* Gives back a reserved fd nothing was installed on (failure paths). */
void fd_unreserve(int fd);
/* fd_reserve + fd_install: the fd, or -errno (f untouched on failure). */
int fd_install_new(struct file *f, unsigned int oflags);
/* F_DUPFD*: a new fd (as fd_reserve() gives for fd flags) for f, which
 * the caller keeps referenced. */
int fd_dup_file(struct file *f, fdflags_t flags, int minfd);
/* fd_dup() inside syscall_indirect(): the per-call flags merged. */
long fd_dup_percall(int oldfd, fdflags_t flags, int minfd);
/* The fd flags the current call's syscall_indirect() flags add, 0 outside
 * one (dup2 and dup3 add their FDF_KEPT bits to newfd's). */
fdflags_t fd_percall_flags(void);

/*
 * dup and dup3's O_NONSEQFD form (docs/fds.md): a new fd >= minfd
 * (sequential area) or in the non-sequential area (FDF_NONSEQ, also per
 * call) for oldfd's file.  The fd, or -EBADF (oldfd) or fd_reserve's
 * errors.  Inline, so that outside syscall_indirect a dup handler goes
 * straight to files_dup, whose fast half is the cheapest fd path.
 */
static inline long fd_dup(int oldfd, fdflags_t flags, int minfd)
{
	struct task *t = current();

	if (__builtin_expect(!t->indirect_flags, 1))
		return files_dup(t->files, oldfd, minfd, flags);
	return fd_dup_percall(oldfd, flags, minfd);
}

#endif
