/*
 * execveat: execve of a file named relative to a directory fd, or of an
 * open file itself (AT_EMPTY_PATH: fexecve(3) in musl and glibc).  Only
 * turns the arguments into an exec_target (proc/exec.h) the way Linux's
 * do_execveat_common names it; exec does the rest.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/upath.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/exec.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define EXECVEAT_FLAGS (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)

/* Linux's bprm->filename for a program reached through fd: "/dev/fd/N",
 * or "/dev/fd/N/path" (kmalloc'd), or NULL when memory runs out. */
static char *fd_name(int fd, const char *path)
{
	size_t size = strlen(path) + 32;
	char *name = kmalloc(size);

	if (name)
		snprintk(name, size, path[0] ? "/dev/fd/%d/%s" : "/dev/fd/%d", fd, path);
	return name;
}

/* The parts of tg that depend on how the program is named; p's path and
 * directory are borrowed.  0, -EBADF (AT_EMPTY_PATH on a closed fd),
 * -ENOMEM.  tg->file is referenced and tg->name kmalloc'd when by_fd. */
static long execveat_target(int dirfd, const struct upath *p, int flags, struct exec_target *tg)
{
	struct files_table *files = current()->files;

	*tg = (struct exec_target){.start = &p->dir, .path = p->path, .name = p->path};
	tg->lookup = flags & AT_SYMLINK_NOFOLLOW ? LOOKUP_NOFOLLOW : 0;
	if (dirfd == AT_FDCWD || p->path[0] == '/') {
		if (!p->path[0])
			tg->path = "."; /* the cwd itself: not a file to run (EACCES) */
		return 0;
	}
	if (!p->path[0] && !(tg->file = files_lookup_raw(files, dirfd)))
		return -EBADF;
	tg->by_fd = true;
	tg->fd_closes = files_get_fdflags(files, dirfd) & FD_CLOEXEC;
	if (!(tg->name = fd_name(dirfd, p->path))) {
		if (tg->file)
			file_put(tg->file);
		return -ENOMEM;
	}
	return 0;
}

/* Errors in Linux's order: the path (EFAULT, ENOENT for "" without
 * AT_EMPTY_PATH), flags (EINVAL), dirfd (EBADF, ENOTDIR), the lookup,
 * then execve's. */
SYSCALL_DEFINE5(execveat, int, dirfd, const char *, upath, char *const *, uargv, char *const *,
		uenvp, int, flags)
{
	struct exec_target tg;
	struct upath p;
	/* Bad flags: the path is still copied first, dirfd not looked at. */
	bool bad = flags & ~EXECVEAT_FLAGS;
	long err = upath_get_flags(bad ? AT_FDCWD : dirfd, upath, flags & AT_EMPTY_PATH, &p);

	if (err)
		return err;
	if (bad)
		err = -EINVAL;
	else if (!(err = execveat_target(dirfd, &p, flags, &tg))) {
		err = exec_from_user(&tg, uargv, uenvp);
		if (tg.file)
			file_put(tg.file);
		if (tg.by_fd)
			kfree((char *)tg.name);
	}
	upath_put(&p);
	return err;
}
