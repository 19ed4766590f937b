/*
 * Vectored and positioned I/O on a scratch file: readv/writev gather and
 * scatter, pread/pwrite leave the offset alone, and their bad input
 * (iovcnt, lengths, offsets, pointers) gives Linux's errno.
 */
#include "fd_util.h"

#include <limits.h>
#include <stdint.h>
#include <sys/uio.h>

#define IOV_MAX_   1024 /* Linux UIO_MAXIOV */
#define SSIZE_MAX_ ((size_t)LONG_MAX)

static char path[64];

static void check_vectors(int fd)
{
	struct iovec w[3] = {{"ab", 2}, {"", 0}, {"cdef", 4}};
	char x[3] = {0}, y[4] = {0};
	struct iovec r[2] = {{x, 2}, {y, 4}};

	is_int(writev(fd, w, 3), 6, "writev gathers three segments");
	lseek(fd, 0, SEEK_SET);
	ok(readv(fd, r, 2) == 6 && memcmp(x, "ab", 2) == 0 && memcmp(y, "cdef", 4) == 0,
	   "readv scatters them back");
	is_int(readv(fd, r, 0), 0, "readv of 0 segments");
	is_int(pwrite(fd, "ZZ", 2, 1), 2, "pwrite at 1");
	ok(pread(fd, x, 3, 0) == 3 && memcmp(x, "aZZ", 3) == 0, "pread at 0 sees it");
	is_int(lseek(fd, 0, SEEK_CUR), 6, "neither moved the offset");
}

static void check_bad(int fd)
{
	static struct iovec many[IOV_MAX_ + 1];
	struct iovec neg = {path, SSIZE_MAX_ + 1};
	char c;

	for (int i = 0; i <= IOV_MAX_; i++)
		many[i] = (struct iovec){&c, 1};
	is_errno(readv(fd, many, IOV_MAX_ + 1), EINVAL, "readv of 1025 segments: EINVAL");
	is_errno(writev(fd, many, IOV_MAX_ + 1), EINVAL, "writev of 1025 segments: EINVAL");
	is_errno(readv(fd, many, -1), EINVAL, "readv of -1 segments: EINVAL");
	is_errno(writev(fd, &neg, 1), EINVAL, "writev of a negative length: EINVAL");
	is_errno(readv(fd, NULL, 1), EFAULT, "readv of a NULL vector: EFAULT");
	is_errno(writev(fd, KERNEL_PTR, 1), EFAULT, "writev of a kernel vector: EFAULT");
	is_errno(pread(fd, &c, 1, -1), EINVAL, "pread at -1: EINVAL");
	is_errno(pwrite(fd, &c, 1, -1), EINVAL, "pwrite at -1: EINVAL");
	is_errno(pread(-1, &c, 1, -1), EINVAL, "... even on a bad fd");
	is_errno(pread(fd, NULL, 1, 0), EFAULT, "pread to NULL: EFAULT");
	is_errno(pwrite(fd, KERNEL_PTR, 1, 0), EFAULT, "pwrite from the kernel: EFAULT");
}

int main(void)
{
	int fd;

	snprintf(path, sizeof path, "/tmp/fd_rw-%d", (int)getpid());
	plan(6 + 11);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0, "scratch file");
	check_vectors(fd);
	check_bad(fd);
	close(fd);
	unlink(path);
	return done();
}
