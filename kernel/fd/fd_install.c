/* fd creation with per-call flags (see fd_install.h). */
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "proc/task.h"
#include <uapi/fcntl.h>
#include <uapi/syscall_indirect.h>

fdflags_t fd_percall_flags(void)
{
	return fdflags_from_sysind(current()->indirect_flags);
}

/* flags with the per-call ones (none, nearly always). */
static fdflags_t with_percall(fdflags_t flags)
{
	if (__builtin_expect(!current()->indirect_flags, 1))
		return flags;
	return flags | fd_percall_flags();
}

/* fd_reserve for fd flags. */
static int reserve(fdflags_t flags, int minfd)
{
	return files_alloc_fd(current()->files, minfd, with_percall(flags));
}

/* A capturing call's one new fd: 0 (stands for the slot), or -EMFILE
 * for a second, which no call io_uring runs this way makes. */
static int capture_reserve(struct fd_redirect *r)
{
	return r->made ? -EMFILE : 0;
}

int fd_reserve(unsigned int oflags, int minfd)
{
	struct fd_redirect *r = current()->fd_redirect;

	if (__builtin_expect(r && r->capture, 0))
		return capture_reserve(r);
	return reserve(fdflags_from_open(oflags), minfd);
}

void fd_install(int fd, struct file *f)
{
	struct fd_redirect *r = current()->fd_redirect;

	if (current()->indirect_flags & SYSIND_NONBLOCK)
		__atomic_or_fetch(&f->flags, O_NONBLOCK, __ATOMIC_RELAXED);
	if (__builtin_expect(r && r->capture, 0))
		r->made = f;
	else
		files_install(current()->files, fd, f);
}

void fd_unreserve(int fd)
{
	struct fd_redirect *r = current()->fd_redirect;

	if (!(r && r->capture))
		files_unreserve_fd(current()->files, fd);
}

struct file *files_lookup_lent(struct files_table *files)
{
	struct fd_redirect *r = current()->fd_redirect;

	if (!r || !r->lent || files != current()->files)
		return NULL;
	file_get(r->lent);
	return r->lent;
}

int fd_dup_file(struct file *f, fdflags_t flags, int minfd)
{
	int fd = reserve(flags, minfd);

	if (fd >= 0) {
		file_get(f);
		fd_install(fd, f);
	}
	return fd;
}

/*
 * With a per-call O_NONBLOCK, which changes the file before its new fd
 * shows it, the dup is a lookup and fd_dup_file(); otherwise files_dup
 * with the per-call fd flags added.
 */
long fd_dup_percall(int oldfd, fdflags_t flags, int minfd)
{
	struct task *t = current();
	struct file *f;
	int fd;

	if (!(t->indirect_flags & SYSIND_NONBLOCK))
		return files_dup(t->files, oldfd, minfd, with_percall(flags));
	f = files_lookup_raw(t->files, oldfd); /* dup: O_PATH too */
	if (!f)
		return -EBADF;
	fd = fd_dup_file(f, flags, minfd);
	file_put(f);
	return fd;
}

int fd_install_new(struct file *f, unsigned int oflags)
{
	int fd = fd_reserve(oflags, 0);

	if (fd >= 0)
		fd_install(fd, f);
	return fd;
}
