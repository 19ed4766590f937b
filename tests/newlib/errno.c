/*
 * Failing calls reach the program with newlib's errno values: ENOENT,
 * EBADF, EINVAL, EFAULT (bad pointers handed to the kernel), ENOSYS.
 */
#include <fcntl.h>
#include <fdkernel.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

#define BAD_PTR ((void *)16) /* never mapped */

int main(void)
{
	int p[2];
	char buf[8];
	struct stat st;

	plan(14);
	is_errno(open("/nonexistent/file", O_RDONLY), ENOENT, "open of a missing path");
	is_errno(stat("/nonexistent", &st), ENOENT, "stat of a missing path");
	is_errno(close(-1), EBADF, "close(-1)");
	is_errno(read(9999, buf, 1), EBADF, "read from an unopened fd");
	is_errno(write(9999, buf, 1), EBADF, "write to an unopened fd");
	is_errno(dup2(0, -1), EBADF, "dup2 to a negative fd");
	is_errno(lseek(0 + 9999, 0, SEEK_SET), EBADF, "lseek on an unopened fd");

	if (pipe(p) < 0)
		return done();
	is_errno(lseek(p[0], 0, SEEK_SET), ESPIPE, "lseek on a pipe");
	is_errno(fcntl(p[0], F_SETFD + 12345), EINVAL, "unknown fcntl command");
	is_errno(write(p[1], BAD_PTR, 4), EFAULT, "write from a bad pointer");
	write(p[1], "data", 4);
	is_errno(read(p[0], BAD_PTR, 4), EFAULT, "read into a bad pointer");
	is_errno(open(BAD_PTR, O_RDONLY), EFAULT, "open with a bad path pointer");
	is_errno(syscall(999999), ENOSYS, "unknown system call");
	ok(strcmp(strerror(ENOENT), "No such file or directory") == 0, "strerror(ENOENT)");
	close(p[0]);
	close(p[1]);
	return done();
}
