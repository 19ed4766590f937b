/* open(O_TMPFILE): an unnamed regular file in a directory, readable and
 * writable, gone when closed, named later with linkat (AT_EMPTY_PATH or
 * through /proc/self/fd) unless O_EXCL; the flag checks as Linux.  Runs in
 * a tmpfs directory (fdkernel's /tmp; /dev/shm on a host whose /tmp is not
 * tmpfs) so the host answers for the same file system. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "testutil.h"
#include "tmpfs_dir.h"

static char dir[64];

/* Entries of dir other than . and .. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static void test_unnamed(void)
{
	char buf[8], link[64], target[128];
	struct stat st;
	ssize_t n;
	int fd = open(dir, O_TMPFILE | O_RDWR, 0640);

	require(fd >= 0, "open O_TMPFILE");
	ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640 &&
	       st.st_nlink == 0,
	   "a regular file, mode 0640, no link");
	ok(write(fd, "data", 4) == 4 && pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "data", 4),
	   "written and read back");
	is_int(entries(), 0, "the directory shows nothing");
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof target - 1);
	if (n > 0)
		target[n] = '\0';
	ok(n > 0 && !strncmp(target, dir, strlen(dir)) && target[strlen(dir)] == '/' &&
	       target[strlen(dir) + 1] == '#' && strstr(target, " (deleted)"),
	   "/proc/self/fd: DIR/#N (deleted) (%s)", n > 0 ? target : "?");
	close(fd);
	is_int(entries(), 0, "closed: gone");
}

static void test_link(void)
{
	char name[96], link[64];
	struct stat st;
	int fd = open(dir, O_TMPFILE | O_WRONLY, 0600), fd2;

	require(fd >= 0, "open O_TMPFILE");
	snprintf(name, sizeof name, "%s/named", dir);
	ok(write(fd, "abc", 3) == 3 && linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0,
	   "linkat AT_EMPTY_PATH names it");
	ok(stat(name, &st) == 0 && st.st_size == 3 && st.st_nlink == 1, "with its data");
	ok(unlink(name) == 0 && linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == -1 &&
	       errno == ENOENT,
	   "unlinked again, it cannot come back: ENOENT");
	close(fd);
	fd = open(dir, O_TMPFILE | O_RDWR, 0600);
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ok(fd >= 0 && linkat(AT_FDCWD, link, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0,
	   "linkat through /proc/self/fd");
	fd2 = open(name, O_RDONLY);
	ok(fd2 >= 0 && fstat(fd2, &st) == 0 && st.st_nlink == 1, "the name opens");
	close(fd2);
	close(fd);
	unlink(name);
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL, 0600);
	require(fd >= 0, "open O_TMPFILE | O_EXCL");
	is_errno(linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH), ENOENT,
		 "with O_EXCL it can never be named: ENOENT");
	close(fd);
}

static void test_errors(void)
{
	char file[96];
	int fd;

	is_errno(open(dir, O_TMPFILE | O_RDONLY, 0600), EINVAL, "O_RDONLY: EINVAL");
	is_errno(open(dir, O_TMPFILE | O_RDWR | O_CREAT, 0600), EINVAL, "with O_CREAT: EINVAL");
	is_errno(open(dir, (O_TMPFILE & ~O_DIRECTORY) | O_RDWR, 0600), EINVAL,
		 "__O_TMPFILE without O_DIRECTORY: EINVAL");
	snprintf(file, sizeof file, "%s/plain", dir);
	fd = open(file, O_WRONLY | O_CREAT, 0600);
	close(fd);
	is_errno(open(file, O_TMPFILE | O_RDWR, 0600), ENOTDIR, "on a file: ENOTDIR");
	unlink(file);
	snprintf(file, sizeof file, "%s/missing", dir);
	is_errno(open(file, O_TMPFILE | O_RDWR, 0600), ENOENT, "a missing directory: ENOENT");
	is_errno(open("/proc", O_TMPFILE | O_RDWR, 0600), EOPNOTSUPP,
		 "a file system without it (/proc): EOPNOTSUPP");
	fd = open(dir, O_TMPFILE | O_PATH | O_RDWR);
	ok(fd >= 0 && fcntl(fd, F_GETFL) == (O_PATH | O_DIRECTORY),
	   "with O_PATH: the directory itself, O_PATH");
	close(fd);
}

int main(void)
{
	const char *base = tmpfs_dir();

	if (!base)
		skip_all("no tmpfs to compare with");
	plan(19);
	snprintf(dir, sizeof dir, "%s/tmpfile-%d", base, (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	test_unnamed();
	test_link();
	test_errors();
	ok(rmdir(dir) == 0, "nothing left in the directory");
	return done();
}
