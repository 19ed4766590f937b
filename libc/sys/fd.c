/*
 * Descriptor calls: dup family, pipes, fcntl and close_range.  Open-flag
 * arguments (dup3, pipe2, F_SETFL) are newlib's O_* values, translated.
 */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <stdarg.h>
#include <unistd.h>

#include "syscall.h"
#include "translate.h"

int dup(int fd)
{
	return sys_call(__NR_dup, fd);
}

int dup2(int fd, int fd2)
{
	return sys_call(__NR_dup2, fd, fd2);
}

/* (dup3): fdkernel.h's macro of the same name takes constant flags to
 * __dup3_linux itself. */
int(dup3)(int fd, int fd2, int flags)
{
	long lflags = fd_flags_to_linux(flags);

	if (lflags < 0)
		return -1;
	return __dup3_linux(fd, fd2, lflags);
}

int __dup3_linux(int fd, int fd2, long lflags)
{
	return sys_call(__NR_dup3, fd, fd2, lflags);
}

int pipe(int fds[2])
{
	return sys_call(__NR_pipe, fds);
}

int pipe2(int fds[2], int flags)
{
	long lflags = open_flags_to_linux(flags);

	if (lflags < 0)
		return -1;
	return sys_call(__NR_pipe2, fds, lflags);
}

int close_range(unsigned int first, unsigned int last, unsigned int flags)
{
	return sys_call(__NR_close_range, first, last, flags);
}

/* F_GETFD/F_SETFD bits (FD_CLOEXEC, FD_CLOFORK) are the same on both sides. */
int fcntl(int fd, int cmd, ...)
{
	int lcmd = fcntl_cmd_to_linux(cmd);
	long arg;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (lcmd < 0) {
		errno = EINVAL;
		return -1;
	}
	if (cmd == F_SETFL) {
		arg = open_flags_to_linux((int)arg);
		if (arg < 0)
			return -1;
	}
	long ret = sys_call(__NR_fcntl, fd, lcmd, arg);
	return cmd == F_GETFL && ret >= 0 ? open_flags_from_linux(ret) : ret;
}
