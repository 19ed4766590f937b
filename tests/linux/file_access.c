/* access, faccessat and faccessat2: a mode past R_OK|W_OK|X_OK and (for
 * faccessat2) a flag past AT_EACCESS|AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH are
 * EINVAL; X_OK needs an execute bit on a non-directory, for root too;
 * AT_SYMLINK_NOFOLLOW asks about a final link itself (a dangling one is
 * there), AT_EMPTY_PATH about the dirfd's own file (a file, a pipe: mode
 * 0600), AT_EACCESS about the effective ids; EFAULT, EBADF, ENOTDIR and
 * ENOENT as Linux gives them. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif

static long faccessat2(int dfd, const char *path, int mode, int flags)
{
	return syscall(SYS_faccessat2, dfd, path, mode, flags);
}

int main(void)
{
	char dir[64];
	int dfd, fd, p[2];

	plan(20);
	snprintf(dir, sizeof dir, "/tmp/access-%d", (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	fd = openat(dfd, "plain", O_WRONLY | O_CREAT, 0644);
	require(dfd >= 0 && fd >= 0 && symlinkat("nowhere", dfd, "dangling") == 0 &&
		    mkdirat(dfd, "sub", 0700) == 0 && pipe(p) == 0,
		"make the files");
	require(fchmodat(dfd, "plain", 0644, 0) == 0, "chmod");

	ok(faccessat(dfd, "plain", R_OK | W_OK, 0) == 0, "faccessat R_OK|W_OK on a file");
	is_errno(syscall(SYS_faccessat, dfd, "plain", X_OK), EACCES,
		 "X_OK without an x bit: EACCES");
	ok(syscall(SYS_faccessat, dfd, "sub", X_OK) == 0, "X_OK on a directory");
	is_errno(syscall(SYS_access, "/", 8), EINVAL, "access with mode 8: EINVAL");
	is_errno(faccessat2(dfd, "plain", -1, 0), EINVAL, "faccessat2 mode -1: EINVAL");
	is_errno(faccessat2(dfd, "plain", R_OK, -1), EINVAL, "faccessat2 flags -1: EINVAL");
	is_errno(faccessat2(dfd, "plain", R_OK, 0x400), EINVAL, "AT_SYMLINK_FOLLOW: EINVAL");
	ok(faccessat2(dfd, "plain", R_OK, AT_EACCESS) == 0, "AT_EACCESS");
	is_errno(faccessat2(dfd, "dangling", F_OK, 0), ENOENT, "a dangling link followed: ENOENT");
	ok(faccessat2(dfd, "dangling", F_OK, AT_SYMLINK_NOFOLLOW) == 0,
	   "AT_SYMLINK_NOFOLLOW: the link itself is there");
	ok(faccessat2(dfd, "dangling", X_OK, AT_SYMLINK_NOFOLLOW) == 0, "and a link is 0777");
	ok(faccessat2(fd, "", W_OK, AT_EMPTY_PATH) == 0, "AT_EMPTY_PATH: the fd's file");
	is_errno(faccessat2(fd, "", X_OK, AT_EMPTY_PATH), EACCES, "... without its x bit: EACCES");
	ok(faccessat2(p[1], "", W_OK, AT_EMPTY_PATH) == 0, "AT_EMPTY_PATH on a pipe: W_OK");
	is_errno(faccessat2(p[1], "", X_OK, AT_EMPTY_PATH), EACCES, "... and X_OK: EACCES (0600)");
	ok(faccessat2(AT_FDCWD, "", X_OK, AT_EMPTY_PATH) == 0,
	   "AT_EMPTY_PATH with AT_FDCWD: the cwd");
	is_errno(faccessat2(dfd, "", R_OK, 0), ENOENT, "an empty path without it: ENOENT");
	is_errno(faccessat2(AT_FDCWD, (char *)8, R_OK, 0), EFAULT, "a bad path: EFAULT");
	is_errno(faccessat2(fd, "plain", R_OK, 0), ENOTDIR, "a file as dirfd: ENOTDIR");
	is_errno(faccessat2(-1, "plain", R_OK, 0), EBADF, "a bad dirfd: EBADF");

	close(fd);
	close(p[0]);
	close(p[1]);
	unlinkat(dfd, "plain", 0);
	unlinkat(dfd, "dangling", 0);
	unlinkat(dfd, "sub", AT_REMOVEDIR);
	close(dfd);
	require(rmdir(dir) == 0, "clean up");
	return done();
}
