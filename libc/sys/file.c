/*
 * File I/O: the calls newlib's stdio is built on (open, read, write, lseek,
 * close, fstat, isatty) and their POSIX neighbours (stat, vectored and
 * positioned I/O, poll).  Flags and struct stat go through translate.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#define UAPI_NO_FLAG_NAMES
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/termios.h>

#include "syscall.h"
#include "translate.h"

/* open and openat: flags translated; newlib's AT_FDCWD (-2) is Linux's -100. */
static int open_at(int dirfd, const char *path, int flags, mode_t mode)
{
	long lflags = open_flags_to_linux(flags);

	if (lflags < 0)
		return -1;
	return sys_call(__NR_openat, dirfd == AT_FDCWD ? UAPI_AT_FDCWD : dirfd, path, lflags, mode);
}

/* open and openat take a mode argument only with O_CREAT. */
static int open_va(int dirfd, const char *path, int flags, va_list ap)
{
	mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;

	return open_at(dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	int ret;

	va_start(ap, flags);
	ret = open_va(AT_FDCWD, path, flags, ap);
	va_end(ap);
	return ret;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	int ret;

	va_start(ap, flags);
	ret = open_va(dirfd, path, flags, ap);
	va_end(ap);
	return ret;
}

int creat(const char *path, mode_t mode)
{
	return sys_call(__NR_creat, path, mode);
}

int close(int fd)
{
	return sys_call(__NR_close, fd);
}

ssize_t read(int fd, void *buf, size_t count)
{
	return sys_call(__NR_read, fd, buf, count);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	return sys_call(__NR_write, fd, buf, count);
}

/* SEEK_SET, SEEK_CUR and SEEK_END are 0, 1, 2 in both libcs. */
off_t lseek(int fd, off_t offset, int whence)
{
	return sys_call(__NR_lseek, fd, offset, whence);
}

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	return sys_call(__NR_pread64, fd, buf, count, offset);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	return sys_call(__NR_pwrite64, fd, buf, count, offset);
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	return sys_call(__NR_readv, fd, iov, iovcnt);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	return sys_call(__NR_writev, fd, iov, iovcnt);
}

/* The offset goes in two registers (low, high); x86_64 uses the low one only. */
ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t offset)
{
	return sys_call(__NR_preadv, fd, iov, iovcnt, offset, 0);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset)
{
	return sys_call(__NR_pwritev, fd, iov, iovcnt, offset, 0);
}

/* offset -1: at the file position, as readv/writev. */
ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
	return sys_call(__NR_preadv2, fd, iov, iovcnt, offset, 0, flags);
}

ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags)
{
	return sys_call(__NR_pwritev2, fd, iov, iovcnt, offset, 0, flags);
}

int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	return sys_call(__NR_poll, fds, nfds, timeout);
}

int ftruncate(int fd, off_t length)
{
	return sys_call(__NR_ftruncate, fd, length);
}

/* The stat family: fill a Linux struct stat, then convert it. */
static int stat_call(long nr, long what, struct stat *st)
{
	struct uapi_stat lst;
	long ret = sys_call(nr, what, &lst);

	if (ret == 0)
		stat_from_linux(st, &lst);
	return ret;
}

int fstat(int fd, struct stat *st)
{
	return stat_call(__NR_fstat, fd, st);
}

int stat(const char *path, struct stat *st)
{
	return stat_call(__NR_stat, (long)path, st);
}

int lstat(const char *path, struct stat *st)
{
	return stat_call(__NR_lstat, (long)path, st);
}

/* A terminal is what answers TCGETS; errno is ENOTTY otherwise. */
int isatty(int fd)
{
	struct linux_termios tio;

	return sys_call(__NR_ioctl, fd, TCGETS, &tio) == 0;
}
