/*
 * EBADF from every call that takes an fd, for fds that are not open: a
 * closed one, negative, in the gap between the two areas, an unopened
 * non-sequential one, INT_MAX.  poll reports them as POLLNVAL.
 */
#include "fd_util.h"

#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define NR_getdents64 217 /* Linux x86_64 */
#define FIONREAD_     0x541B

static char buf[64];
static struct iovec iov = {buf, sizeof buf};

/* Each runs one call on fd and returns its result (-1 and errno expected). */
static long c_read(int fd)
{
	return read(fd, buf, 1);
}
static long c_write(int fd)
{
	return write(fd, buf, 1);
}
static long c_close(int fd)
{
	return close(fd);
}
static long c_fstat(int fd)
{
	struct stat st;
	return fstat(fd, &st);
}
static long c_lseek(int fd)
{
	return lseek(fd, 0, SEEK_SET);
}
static long c_getfd(int fd)
{
	return fcntl(fd, F_GETFD);
}
static long c_setfd(int fd)
{
	return fcntl(fd, F_SETFD, FD_CLOEXEC);
}
static long c_getfl(int fd)
{
	return fcntl(fd, F_GETFL);
}
static long c_setfl(int fd)
{
	return fcntl(fd, F_SETFL, O_NONBLOCK);
}
static long c_dupfd(int fd)
{
	return fcntl(fd, F_DUPFD, 0);
}
static long c_dup(int fd)
{
	return dup(fd);
}
static long c_dup2(int fd)
{
	return dup2(fd, 50);
}
static long c_dup3(int fd)
{
	return dup3(fd, 50, 0);
}
static long c_pread(int fd)
{
	return pread(fd, buf, 1, 0);
}
static long c_pwrite(int fd)
{
	return pwrite(fd, buf, 1, 0);
}
static long c_readv(int fd)
{
	return readv(fd, &iov, 1);
}
static long c_writev(int fd)
{
	return writev(fd, &iov, 1);
}
static long c_ioctl(int fd)
{
	int n;
	return syscall(__NR_ioctl, fd, FIONREAD_, &n);
}
static long c_fchdir(int fd)
{
	return syscall(__NR_fchdir, fd);
}
static long c_ftruncate(int fd)
{
	return ftruncate(fd, 0);
}
static long c_getdents(int fd)
{
	return syscall(NR_getdents64, fd, buf, sizeof buf);
}
static long c_openat(int fd)
{
	return openat(fd, "relative", O_RDONLY);
}

static const struct {
	const char *name;
	long (*call)(int fd);
} calls[] = {
    {"read", c_read},
    {"write", c_write},
    {"close", c_close},
    {"fstat", c_fstat},
    {"lseek", c_lseek},
    {"F_GETFD", c_getfd},
    {"F_SETFD", c_setfd},
    {"F_GETFL", c_getfl},
    {"F_SETFL", c_setfl},
    {"F_DUPFD", c_dupfd},
    {"dup", c_dup},
    {"dup2", c_dup2},
    {"dup3", c_dup3},
    {"pread", c_pread},
    {"pwrite", c_pwrite},
    {"readv", c_readv},
    {"writev", c_writev},
    {"ioctl", c_ioctl},
    {"fchdir", c_fchdir},
    {"ftruncate", c_ftruncate},
    {"getdents64", c_getdents},
    {"openat", c_openat},
};

#define NCALLS (int)(sizeof(calls) / sizeof(calls[0]))

struct badfd {
	const char *name;
	int fd;
};

static void check_fd(const struct badfd *b)
{
	struct pollfd p = {b->fd, POLLIN | POLLOUT, 0};

	for (int i = 0; i < NCALLS; i++)
		is_errno(calls[i].call(b->fd), EBADF, "%s on %s", calls[i].name, b->name);
	if (b->fd < 0)
		ok(poll(&p, 1, 0) == 0 && p.revents == 0, "poll ignores %s", b->name);
	else
		ok(poll(&p, 1, 0) == 1 && p.revents == POLLNVAL, "poll: POLLNVAL for %s", b->name);
}

int main(void)
{
	int closed = open_null(0);
	struct badfd bad[] = {
	    {"a closed fd", closed},
	    {"fd -1", -1},
	    {"an fd in the gap (1<<29)", GAP_FD},
	    {"an unopened nonseq fd", NONSEQ_FD_BASE + 12345},
	    {"INT_MAX", INT_MAX},
	};
	int nbad = sizeof(bad) / sizeof(bad[0]), before;

	close(closed);
	before = next_fd();
	plan(nbad * (NCALLS + 1) + 1);
	for (int i = 0; i < nbad; i++)
		check_fd(&bad[i]);
	is_int(next_fd(), before, "nothing was opened");
	return done();
}
