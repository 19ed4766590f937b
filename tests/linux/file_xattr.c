/* The xattr calls on a file system that keeps no extended attributes
 * (/proc on Linux; every file system of fdkernel): get, set and remove
 * EOPNOTSUPP, a list empty, after the name (ERANGE, EFAULT), the flags
 * (EINVAL), a set's size (E2BIG) and value (EFAULT) and the path or fd
 * (ENOENT, EBADF, an O_PATH fd too) are checked, in Linux's order. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "testutil.h"

#define OBJ "/proc/self/status"

int main(void)
{
	char buf[64], big[300];
	int fd = open(OBJ, O_RDONLY), path = open(OBJ, O_PATH);

	plan(21);
	require(fd >= 0 && path >= 0, "open " OBJ);
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	is_errno(getxattr(OBJ, "user.x", buf, sizeof buf), EOPNOTSUPP, "getxattr: EOPNOTSUPP");
	is_errno(lgetxattr(OBJ, "user.x", buf, sizeof buf), EOPNOTSUPP, "lgetxattr: EOPNOTSUPP");
	is_errno(fgetxattr(fd, "user.x", buf, sizeof buf), EOPNOTSUPP, "fgetxattr: EOPNOTSUPP");
	is_errno(setxattr(OBJ, "user.x", "v", 1, 0), EOPNOTSUPP, "setxattr: EOPNOTSUPP");
	is_errno(fsetxattr(fd, "user.x", "v", 1, XATTR_CREATE), EOPNOTSUPP,
		 "fsetxattr: EOPNOTSUPP");
	is_errno(removexattr(OBJ, "user.x"), EOPNOTSUPP, "removexattr: EOPNOTSUPP");
	is_errno(fremovexattr(fd, "user.x"), EOPNOTSUPP, "fremovexattr: EOPNOTSUPP");
	is_int(listxattr(OBJ, buf, sizeof buf), 0, "listxattr: empty");
	is_int(flistxattr(fd, buf, sizeof buf), 0, "flistxattr: empty");
	is_errno(fgetxattr(path, "user.x", buf, sizeof buf), EBADF, "an O_PATH fd: EBADF");
	is_errno(fgetxattr(999, "user.x", buf, sizeof buf), EBADF, "a closed fd: EBADF");
	is_errno(getxattr("/nonexistent", "user.x", buf, sizeof buf), ENOENT,
		 "a missing path: ENOENT");
	is_errno(listxattr("/nonexistent", buf, sizeof buf), ENOENT, "listxattr of one: ENOENT");
	is_errno(getxattr(OBJ, "", buf, sizeof buf), ERANGE, "an empty name: ERANGE");
	is_errno(getxattr(OBJ, big, buf, sizeof buf), ERANGE, "a name past 255 bytes: ERANGE");
	is_errno(getxattr(OBJ, (char *)1, buf, sizeof buf), EFAULT, "a bad name: EFAULT");
	is_errno(fgetxattr(999, "", buf, sizeof buf), ERANGE, "the name before the fd");
	is_errno(setxattr(OBJ, "user.x", "v", 1, 4), EINVAL, "an unknown set flag: EINVAL");
	is_errno(setxattr("/nonexistent", "user.x", "v", 65537, 0), E2BIG,
		 "a value of 65537 bytes: E2BIG, before the path");
	is_errno(fsetxattr(999, "user.x", (char *)1, 1, 0), EFAULT,
		 "a bad value: EFAULT, before the fd");
	if (on_fdkernel())
		is_errno(getxattr("/tmp", "user.x", buf, sizeof buf), EOPNOTSUPP,
			 "fdkernel's ramfs keeps none either");
	else
		skip("Linux's tmpfs keeps them", "fdkernel's ramfs keeps none either");
	close(fd);
	close(path);
	return done();
}
