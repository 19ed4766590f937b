/* /proc is a file system of its own on Linux (a mount): a link of one of
 * its files (its own, a process's, one opened there and linked by fd) and
 * a rename across its edge, either way, are EXDEV; a link into it finds
 * no new name (ENOENT, before any mount check); a magic link of
 * /proc/self/fd followed reaches the file itself, which links as any. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64], file[96], name[96];

int main(void)
{
	char fdpath[64];
	int fd;

	plan(9);
	snprintf(dir, sizeof dir, "/tmp/xdev-%d", (int)getpid());
	snprintf(file, sizeof file, "%s/file", dir);
	snprintf(name, sizeof name, "%s/name", dir);
	require(mkdir(dir, 0700) == 0 && (fd = open(file, O_CREAT | O_WRONLY, 0600)) >= 0,
		"scratch file");
	is_errno(link("/proc/cpuinfo", name), EXDEV, "link of /proc/cpuinfo out of /proc: EXDEV");
	is_errno(link("/proc/self/status", name), EXDEV, "link of /proc/self/status: EXDEV");
	int pfd = open("/proc/version", O_RDONLY);
	is_errno(linkat(pfd, "", AT_FDCWD, name, AT_EMPTY_PATH), EXDEV,
		 "linkat(AT_EMPTY_PATH) of a file opened in /proc: EXDEV");
	close(pfd);
	is_errno(link(file, "/proc/name"), ENOENT,
		 "link of a file into /proc: ENOENT (no new name is found there)");
	is_errno(rename(file, "/proc/name"), EXDEV, "rename into /proc: EXDEV");
	is_errno(rename("/proc/cpuinfo", name), EXDEV, "rename out of /proc: EXDEV");
	is_errno(link("/proc/cpuinfo", "/proc/sysvipc/name"), ENOENT, "link inside /proc: ENOENT");
	snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
	ok(linkat(AT_FDCWD, fdpath, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0,
	   "/proc/self/fd/N followed: the file itself links");
	close(fd);
	ok(unlink(name) == 0 && unlink(file) == 0 && rmdir(dir) == 0, "clean up");
	return done();
}
