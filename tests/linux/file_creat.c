/* creat(2), called by number (musl's creat() is an open()): the file made
 * write-only, an existing one truncated with its mode kept, the lowest fd,
 * and the errors of its path. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64];

static long do_creat(const char *path, mode_t mode)
{
	return syscall(SYS_creat, path, mode);
}

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void test_new_and_existing(void)
{
	char path[96], c;
	struct stat st;
	long fd, lowest = dup(0);

	close((int)lowest);
	path_in(path, sizeof path, "f");
	fd = do_creat(path, 0666);
	require(fd >= 0, "creat");
	is_int(fd, lowest, "the lowest free fd");
	is_int(fcntl(fd, F_GETFL) & O_ACCMODE, O_WRONLY, "opened write-only");
	is_errno(read(fd, &c, 1), EBADF, "read: EBADF");
	ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644,
	   "a regular file of mode 0666 & ~umask 022");
	is_int(write(fd, "abcdef", 6), 6, "write");
	close(fd);
	fd = do_creat(path, 0600);
	require(fd >= 0, "creat again");
	ok(fstat(fd, &st) == 0 && st.st_size == 0, "an existing file is truncated");
	is_int(st.st_mode & 07777, 0644, "and keeps its mode");
	close(fd);
}

static void test_links(void)
{
	char link[96], target[96];
	struct stat st;
	long fd;

	path_in(link, sizeof link, "dangling");
	path_in(target, sizeof target, "made");
	require(symlink("made", link) == 0, "symlink");
	fd = do_creat(link, 0600);
	ok(fd >= 0 && stat(target, &st) == 0 && S_ISREG(st.st_mode),
	   "through a dangling link: the target is made");
	close(fd);
	path_in(link, sizeof link, "loop");
	require(symlink("loop", link) == 0, "symlink loop");
	is_errno(do_creat(link, 0600), ELOOP, "a link loop: ELOOP");
	unlink(link);
	path_in(link, sizeof link, "dangling");
	unlink(link);
	unlink(target);
}

static void test_errors(void)
{
	static char longname[NAME_MAX + 2];
	char path[96 + sizeof longname];

	is_errno(do_creat(dir, 0600), EISDIR, "a directory: EISDIR");
	path_in(path, sizeof path, "missing/f");
	is_errno(do_creat(path, 0600), ENOENT, "a missing directory: ENOENT");
	path_in(path, sizeof path, "f/x");
	is_errno(do_creat(path, 0600), ENOTDIR, "a file as a directory: ENOTDIR");
	is_errno(do_creat("", 0600), ENOENT, "an empty path: ENOENT");
	is_errno(do_creat((const char *)1, 0600), EFAULT, "a bad pointer: EFAULT");
	memset(longname, 'x', NAME_MAX + 1);
	path_in(path, sizeof path, longname);
	is_errno(do_creat(path, 0600), ENAMETOOLONG, "a name of NAME_MAX + 1: ENAMETOOLONG");
	path_in(path, sizeof path, "f/");
	is_errno(do_creat(path, 0600), EISDIR, "a trailing slash: EISDIR");
}

int main(void)
{
	char path[96];

	plan(17);
	umask(022);
	snprintf(dir, sizeof dir, "/tmp/creat-%d", (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	test_new_and_existing();
	test_links();
	test_errors();
	path_in(path, sizeof path, "f");
	unlink(path);
	ok(rmdir(dir) == 0, "nothing else was made");
	return done();
}
