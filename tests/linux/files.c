/* Files through musl: open/openat/read/write/lseek/pread/fstat, stdio on a
 * file, opendir/readdir (getdents64), and the errno of the usual mistakes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char dir[64];

/* The names in DIR other than . and .., sorted into one "a,b," string. */
static void list_dir(char *out, size_t size)
{
	char names[8][32];
	int n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	require(d != NULL, "opendir");
	while ((de = readdir(d)) && n < 8)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			snprintf(names[n++], sizeof names[0], "%.31s", de->d_name);
	closedir(d);
	qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%.31s,", names[i]);
}

static void test_rw(int dfd)
{
	char buf[32] = "";
	struct stat st;
	int fd = openat(dfd, "data", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	require(fd >= 0, "openat data");
	is_int(write(fd, "hello, world", 12), 12, "write 12 bytes");
	is_int(lseek(fd, 0, SEEK_CUR), 12, "offset after write");
	is_int(lseek(fd, 7, SEEK_SET), 7, "lseek SEEK_SET");
	is_int(read(fd, buf, sizeof buf), 5, "read to end of file");
	ok(memcmp(buf, "world", 5) == 0, "read the bytes written");
	is_int(read(fd, buf, sizeof buf), 0, "read at end of file: 0");
	is_int(pread(fd, buf, 5, 0), 5, "pread at 0");
	is_int(lseek(fd, 0, SEEK_CUR), 12, "pread leaves the offset");
	is_int(lseek(fd, -2, SEEK_END), 10, "lseek SEEK_END - 2");
	is_errno(lseek(fd, -100, SEEK_CUR), EINVAL, "lseek before 0: EINVAL");
	ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 12,
	   "fstat: regular, 12 bytes");
	ok((st.st_mode & 0700) == 0600, "fstat mode: the owner's bits of 0644");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "O_CLOEXEC gives FD_CLOEXEC");
	is_errno(openat(dfd, "data", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST,
		 "O_EXCL on a file: EEXIST");
	is_errno(openat(fd, "x", O_RDONLY), ENOTDIR, "openat relative to a file: ENOTDIR");
	close(fd);
}

static void test_stdio(void)
{
	char path[96], line[32];
	int n = 0;

	snprintf(path, sizeof path, "%s/lines", dir);
	FILE *f = fopen(path, "w");
	require(f != NULL, "fopen w");
	for (int i = 0; i < 100; i++)
		fprintf(f, "line %d\n", i);
	ok(fclose(f) == 0, "fclose flushes 100 lines");
	f = fopen(path, "r");
	require(f != NULL, "fopen r");
	while (fgets(line, sizeof line, f))
		n++;
	is_int(n, 100, "fgets reads them back");
	ok(strcmp(line, "line 99\n") == 0, "the last line is intact");
	fclose(f);
}

int main(void)
{
	char names[128];
	int fd;

	plan(25);
	snprintf(dir, sizeof dir, "/tmp/musl-files-%d", (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	require(dfd >= 0, "open dir");
	test_rw(dfd);
	test_stdio();
	require((fd = openat(dfd, "empty", O_WRONLY | O_CREAT, 0600)) >= 0, "openat empty");
	is_errno(read(fd, names, 1), EBADF, "read on O_WRONLY: EBADF");
	close(fd);
	list_dir(names, sizeof names);
	ok(strcmp(names, "data,empty,lines,") == 0, "readdir lists the three files (%s)", names);
	is_errno(rmdir(dir), ENOTEMPTY, "rmdir of a full directory: ENOTEMPTY");
	is_errno(open(dir, O_WRONLY), EISDIR, "open a directory for writing: EISDIR");
	is_errno(unlinkat(dfd, "missing", 0), ENOENT, "unlinkat of a missing file: ENOENT");
	ok(unlinkat(dfd, "data", 0) == 0 && unlinkat(dfd, "empty", 0) == 0 &&
	       unlinkat(dfd, "lines", 0) == 0,
	   "unlinkat the files");
	close(dfd);
	ok(rmdir(dir) == 0, "rmdir the empty directory");
	return done();
}
