/* sendfile: file to file, pipe and socket; with an offset (the input's
 * position untouched, the offset advanced) or without (the position
 * advanced); count, a short count at the end of the file; EAGAIN and a
 * partial count on a full non-blocking pipe; EPIPE; EBADF, EINVAL (pipe,
 * socket or directory as input, O_APPEND output, an offset negative or
 * whose end wraps), ESPIPE, EFAULT. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_sendfile 40
#define FILE_SIZE   (100 * 1000) /* several chunks, not a multiple of any */

static const char *in_path = "/tmp/fd_sendfile.in", *out_path = "/tmp/fd_sendfile.out";
static char data[FILE_SIZE], back[FILE_SIZE];

static long lsendfile(int out, int in, long *off, size_t count)
{
	return syscall(NR_sendfile, out, in, off, count);
}

static int make_input(void)
{
	int fd = open(in_path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	for (int i = 0; i < FILE_SIZE; i++)
		data[i] = (char)(i * 7 + i / 251);
	require(fd >= 0 && write(fd, data, FILE_SIZE) == FILE_SIZE, "input file");
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* The whole of fd's file equals data[from, from + n). */
static bool file_holds(const char *path, long from, long n)
{
	int fd = open(path, O_RDONLY);
	long got = read(fd, back, sizeof back);

	close(fd);
	return got == n && !memcmp(back, data + from, n);
}

static void test_to_file(int in)
{
	int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long off = 1000;

	ok(lsendfile(out, in, NULL, FILE_SIZE) == FILE_SIZE && file_holds(out_path, 0, FILE_SIZE),
	   "file to file, no offset: all of it, the same bytes");
	ok(lseek(in, 0, SEEK_CUR) == FILE_SIZE && lseek(out, 0, SEEK_CUR) == FILE_SIZE,
	   "both positions advanced");
	ok(lsendfile(out, in, NULL, 10) == 0, "at the end of the input: 0");
	ftruncate(out, 0);
	lseek(out, 0, SEEK_SET);
	ok(lsendfile(out, in, &off, 5000) == 5000 && off == 6000 &&
	       lseek(in, 0, SEEK_CUR) == FILE_SIZE && file_holds(out_path, 1000, 5000),
	   "with an offset: it advances, the input's position does not move");
	off = FILE_SIZE - 100;
	ok(lsendfile(out, in, &off, 1000) == 100 && off == FILE_SIZE,
	   "a count past the end: what is left (100)");
	ok(lsendfile(out, in, NULL, 0) == 0, "count 0: 0");
	close(out);
}

static void test_to_pipe_and_socket(int in)
{
	int p[2], s[2], total = 0;
	long off = 0, n;

	require(pipe(p) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "pipe, socketpair");
	ok(lsendfile(p[1], in, &off, 3000) == 3000 && read(p[0], back, sizeof back) == 3000 &&
	       !memcmp(back, data, 3000),
	   "file to pipe");
	ok(lsendfile(s[0], in, &off, 3000) == 3000 && read(s[1], back, sizeof back) == 3000 &&
	       !memcmp(back, data + 3000, 3000),
	   "file to socket");
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	off = 0;
	while ((n = lsendfile(p[1], in, &off, FILE_SIZE - off)) > 0)
		total += n;
	ok(n == -1 && errno == EAGAIN && total > 0 && total < FILE_SIZE && off == total,
	   "a non-blocking pipe: partial counts (%d bytes), then EAGAIN; the offset says how far",
	   total);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	is_errno(lsendfile(p[1], in, &off, 10), EPIPE, "to a pipe without readers: EPIPE");
	signal(SIGPIPE, SIG_DFL);
	is_errno(lsendfile(s[0], p[1], NULL, 10), EBADF, "from a pipe's write end: EBADF");
	close(p[1]);
	require(pipe(p) == 0, "pipe");
	write(p[1], "abc", 3);
	is_errno(lsendfile(s[0], p[0], NULL, 3), EINVAL, "from a pipe: EINVAL");
	is_errno(lsendfile(s[0], s[1], NULL, 3), EINVAL, "from a socket to a socket: EINVAL");
	write(s[0], "xyz", 3);
	ok(lsendfile(p[1], s[1], NULL, 10) == 3 && read(p[0], back, 10) == 6 &&
	       !memcmp(back, "abcxyz", 6),
	   "from a socket to a pipe: what the socket holds");
	is_errno(lsendfile(p[1], p[0], &off, 3), ESPIPE, "an offset on a pipe input: ESPIPE");
	close(p[0]);
	close(p[1]);
	close(s[0]);
	close(s[1]);
}

static void test_errors(int in)
{
	int out = open(out_path, O_WRONLY | O_TRUNC), app = open(out_path, O_WRONLY | O_APPEND);
	int dir = open("/tmp", O_RDONLY), rdonly = open(out_path, O_RDONLY);
	long off = -1;

	is_errno(lsendfile(out, -1, NULL, 10), EBADF, "in_fd -1: EBADF");
	is_errno(lsendfile(-1, in, NULL, 10), EBADF, "out_fd -1: EBADF");
	is_errno(lsendfile(out, out, NULL, 10), EBADF, "an input not open for reading: EBADF");
	is_errno(lsendfile(rdonly, in, NULL, 10), EBADF, "an output not open for writing: EBADF");
	is_errno(lsendfile(out, in, &off, 10), EINVAL, "a negative offset: EINVAL");
	is_errno(lsendfile(app, in, NULL, 10), EINVAL, "an O_APPEND output: EINVAL");
	is_errno(lsendfile(out, dir, NULL, 10), EINVAL, "a directory input: EINVAL");
	off = 0x7fffffffffffffffL - 5;
	is_errno(lsendfile(out, in, &off, 10), EINVAL, "an offset whose end wraps: EINVAL");
	is_errno(lsendfile(out, in, (long *)1, 10), EFAULT, "offset pointer (void *)1: EFAULT");
	close(out);
	close(app);
	close(dir);
	close(rdonly);
}

int main(void)
{
	int in;

	plan(24);
	in = make_input();
	test_to_file(in);
	test_to_pipe_and_socket(in);
	test_errors(in);
	close(in);
	unlink(in_path);
	unlink(out_path);
	return tap_failed != 0;
}
