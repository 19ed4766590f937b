/*
 * Open and descriptor flags through the glue's translation: O_CREAT,
 * O_EXCL, O_TRUNC, O_APPEND semantics; F_GETFL/F_SETFL; O_CLOEXEC,
 * F_GETFD, dup3, pipe2, F_DUPFD_CLOEXEC; fstat of the result.
 */
#define _GNU_SOURCE /* pipe2 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"

static char path[64];

static off_t size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_size : -1;
}

static void open_semantics(void)
{
	char buf[16] = "";
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	ok(fd >= 0, "O_CREAT|O_EXCL creates");
	write(fd, "0123456789", 10);
	close(fd);
	is_errno(open(path, O_WRONLY | O_CREAT | O_EXCL, 0600), EEXIST,
		 "O_EXCL on an existing file");
	fd = open(path, O_RDWR | O_APPEND);
	lseek(fd, 0, SEEK_SET);
	write(fd, "ab", 2);
	is_int(size_of(fd), 12, "O_APPEND writes at the end despite lseek");
	pread(fd, buf, 2, 10);
	ok(memcmp(buf, "ab", 2) == 0, "appended bytes at offset 10");
	int fl = fcntl(fd, F_GETFL);
	ok((fl & O_ACCMODE) == O_RDWR && (fl & O_APPEND), "F_GETFL shows O_RDWR|O_APPEND");
	close(fd);
	fd = open(path, O_RDWR | O_TRUNC);
	is_int(size_of(fd), 0, "O_TRUNC empties the file");
	struct stat st;
	ok(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600,
	   "fstat: regular file, mode 0600");
	close(fd);
	is_int(unlink(path), 0, "unlink");
}

static void fd_flags(void)
{
	int p[2];
	int fd = open("/tmp", O_RDONLY | O_CLOEXEC);

	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "O_CLOEXEC sets FD_CLOEXEC");
	int d = dup(fd);
	is_int(fcntl(d, F_GETFD), 0, "dup clears it");
	is_int(dup3(fd, d, O_CLOEXEC), d, "dup3 onto an open fd");
	is_int(fcntl(d, F_GETFD), FD_CLOEXEC, "dup3 O_CLOEXEC sets it");
	is_errno(dup3(d, d, O_CLOEXEC), EINVAL, "dup3 onto itself");
	int c = fcntl(fd, F_DUPFD_CLOEXEC, 100);
	ok(c >= 100 && fcntl(c, F_GETFD) == FD_CLOEXEC, "F_DUPFD_CLOEXEC at or above 100");
	close(c);
	close(d);
	close(fd);

	ok(pipe2(p, O_CLOEXEC | O_NONBLOCK) == 0, "pipe2(O_CLOEXEC|O_NONBLOCK)");
	ok((fcntl(p[0], F_GETFL) & O_NONBLOCK) && fcntl(p[1], F_GETFD) == FD_CLOEXEC,
	   "both flags visible through fcntl");
	char b;
	is_errno(read(p[0], &b, 1), EAGAIN, "empty non-blocking pipe: EAGAIN");
	fcntl(p[0], F_SETFL, 0);
	ok(!(fcntl(p[0], F_GETFL) & O_NONBLOCK), "F_SETFL clears O_NONBLOCK");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/fdk-flags-%d", (int)getpid());
	plan(18);
	open_semantics();
	fd_flags();
	return done();
}
