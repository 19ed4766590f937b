/* A directory removed while open: getdents64 on it is ENOENT (before the
 * buffer's size is looked at), and nothing can be made in it; a live
 * directory's errors for comparison (EINVAL for a buffer too small for
 * one entry, ENOTDIR for a file, EBADF). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

static long getdents(int fd, void *buf, size_t len)
{
	return syscall(SYS_getdents64, fd, buf, len);
}

int main(void)
{
	char top[64], sub[96], file[96], buf[4096], one[1];
	int dfd, sfd, ffd;

	plan(11);
	snprintf(top, sizeof top, "/tmp/dir_removed-%d", (int)getpid());
	snprintf(sub, sizeof sub, "%s/sub", top);
	snprintf(file, sizeof file, "%s/file", top);
	require(mkdir(top, 0755) == 0 && mkdir(sub, 0755) == 0, "mkdir");
	require((dfd = open(top, O_RDONLY | O_DIRECTORY)) >= 0, "open top");
	require((ffd = open(file, O_RDWR | O_CREAT, 0644)) >= 0, "create file");

	ok(getdents(dfd, buf, sizeof buf) > 0, "getdents64 of a live directory lists it");
	lseek(dfd, 0, SEEK_SET);
	is_errno(getdents(dfd, one, sizeof one), EINVAL, "a 1-byte buffer: EINVAL");
	is_errno(getdents(ffd, buf, sizeof buf), ENOTDIR, "on a regular file: ENOTDIR");
	is_errno(getdents(-1, buf, sizeof buf), EBADF, "on fd -1: EBADF");

	require((sfd = open(sub, O_RDONLY | O_DIRECTORY)) >= 0, "open sub");
	require(rmdir(sub) == 0, "rmdir sub while open");
	is_errno(getdents(sfd, buf, sizeof buf), ENOENT,
		 "getdents64 of the removed directory: ENOENT");
	is_errno(getdents(sfd, one, sizeof one), ENOENT, "ENOENT before EINVAL for a tiny buffer");
	lseek(sfd, 0, SEEK_SET);
	is_errno(getdents(sfd, buf, sizeof buf), ENOENT, "still ENOENT from offset 0");
	is_errno(openat(sfd, "x", O_RDWR | O_CREAT, 0644), ENOENT, "openat(O_CREAT) in it: ENOENT");
	is_errno(mkdirat(sfd, "d", 0755), ENOENT, "mkdirat in it: ENOENT");
	close(sfd);

	ok(getdents(dfd, buf, sizeof buf) >= 0, "its parent still lists");
	close(ffd);
	close(dfd);
	ok(unlink(file) == 0 && rmdir(top) == 0, "clean up");
	return done();
}
