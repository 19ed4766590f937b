/* splice, tee, vmsplice and copy_file_range: pipe to file, file to pipe,
 * pipe to pipe, pipe and socket both ways, offsets and positions,
 * SPLICE_F_NONBLOCK and O_NONBLOCK, end of input, and each error in
 * Linux's order.  Files live in a tmpfs directory (fdkernel's /tmp; on
 * the host /dev/shm when /tmp is not tmpfs). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "testutil.h"
#include "tmpfs_dir.h"

#define BIG (200 * 1024)

static char dir[64];
static volatile int sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

static int file(const char *name, int flags)
{
	char path[128];
	int fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	fd = open(path, flags | O_CREAT, 0644);
	require(fd >= 0, "open a file");
	return fd;
}

static void test_file_pipe(void)
{
	int f = file("data", O_RDWR | O_TRUNC), g = file("out", O_RDWR | O_TRUNC), p[2];
	char buf[32] = "";
	loff_t off = 6;

	require(pipe(p) == 0 && write(f, "hello world", 11) == 11, "set-up");
	ok(splice(f, &off, p[1], NULL, 5, 0) == 5 && off == 11 && lseek(f, 0, SEEK_CUR) == 11,
	   "file to pipe at an offset: the offset moves, the position stays");
	lseek(f, 0, SEEK_SET);
	ok(splice(f, NULL, p[1], NULL, 5, SPLICE_F_MOVE) == 5 && lseek(f, 0, SEEK_CUR) == 5,
	   "at the position: it moves");
	off = 3;
	ok(splice(p[0], NULL, g, &off, 4, 0) == 4 && off == 7 && lseek(g, 0, SEEK_CUR) == 0,
	   "pipe to file at an offset");
	ok(splice(p[0], NULL, g, NULL, 100, SPLICE_F_MORE) == 6 && lseek(g, 0, SEEK_CUR) == 6,
	   "pipe to file at the position: what the pipe held");
	ok(pread(g, buf, sizeof buf, 0) == 7 && !memcmp(buf, "dhellol", 7),
	   "the file holds the bytes in order (%.7s)", buf);
	close(p[1]);
	is_int(splice(p[0], NULL, g, NULL, 10, 0), 0, "no writer, nothing held: 0");
	close(p[0]);
	close(f);
	close(g);
}

static void test_big(void)
{
	static char data[BIG], back[BIG];
	int f = file("big", O_RDWR | O_TRUNC), g = file("bigout", O_RDWR | O_TRUNC), p[2];
	long moved = 0, n;

	for (int i = 0; i < BIG; i++)
		data[i] = (char)(i * 7 + i / 251);
	require(write(f, data, BIG) == BIG && pipe(p) == 0, "set-up");
	lseek(f, 0, SEEK_SET);
	while ((n = splice(f, NULL, p[1], NULL, BIG, 0)) > 0) {
		long m = splice(p[0], NULL, g, NULL, n, 0);
		if (m != n)
			break;
		moved += m;
	}
	ok(n == 0 && moved == BIG, "200 KiB through a 64 KiB pipe, file to file (%ld)", moved);
	ok(pread(g, back, BIG, 0) == BIG && !memcmp(data, back, BIG), "every byte in place");
	close(p[0]);
	close(p[1]);
	close(f);
	close(g);
}

static void test_pipes_and_sockets(void)
{
	int p[2], q[2], s[2];
	char buf[16] = "";

	require(pipe(p) == 0 && pipe(q) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "fds");
	require(write(p[1], "abcdef", 6) == 6, "fill");
	ok(tee(p[0], q[1], 4, 0) == 4, "tee copies 4 bytes");
	ok(splice(p[0], NULL, q[1], NULL, 2, 0) == 2, "splice pipe to pipe takes 2");
	ok(read(q[0], buf, sizeof buf) == 6 && !memcmp(buf, "abcdab", 6),
	   "the second pipe: abcd, ab");
	ok(read(p[0], buf, sizeof buf) == 4 && !memcmp(buf, "cdef", 4),
	   "the first kept what tee copied");
	is_errno(tee(p[0], q[1], 4, SPLICE_F_NONBLOCK), EAGAIN, "tee from an empty pipe: EAGAIN");
	is_errno(splice(p[0], NULL, q[1], NULL, 4, SPLICE_F_NONBLOCK), EAGAIN,
		 "splice from an empty pipe: EAGAIN");
	require(write(p[1], "sock", 4) == 4, "fill");
	ok(splice(p[0], NULL, s[0], NULL, 4, SPLICE_F_MORE) == 4 && read(s[1], buf, 4) == 4 &&
	       !memcmp(buf, "sock", 4),
	   "pipe to socket");
	require(write(s[1], "back", 4) == 4, "socket write");
	ok(splice(s[0], NULL, p[1], NULL, 16, 0) == 4 && read(p[0], buf, 4) == 4 &&
	       !memcmp(buf, "back", 4),
	   "socket to pipe");
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	is_errno(splice(p[0], NULL, q[1], NULL, 4, 0), EAGAIN, "an O_NONBLOCK pipe: EAGAIN too");
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	close(s[0]);
	close(s[1]);
}

static void test_vmsplice(void)
{
	int p[2], f = file("data", O_RDONLY);
	char in[8] = "";
	struct iovec w[2] = {{"ab", 2}, {"cd", 2}}, r = {in, sizeof in};

	require(pipe(p) == 0, "pipe");
	is_int(vmsplice(p[1], w, 2, 0), 4, "vmsplice into the write end");
	ok(vmsplice(p[0], &r, 1, 0) == 4 && !memcmp(in, "abcd", 4), "and out of the read end");
	is_errno(vmsplice(p[0], &r, 1, SPLICE_F_NONBLOCK), EAGAIN, "empty, non-blocking: EAGAIN");
	is_errno(vmsplice(f, w, 1, 0), EBADF, "a file: EBADF");
	is_errno(vmsplice(999, w, 1, 0), EBADF, "a closed fd: EBADF");
	is_errno(vmsplice(p[1], w, 1, 0x100), EINVAL, "an unknown flag: EINVAL");
	is_int(vmsplice(p[1], w, 0, 0), 0, "no segment: 0");
	is_errno(vmsplice(p[1], w, 2000, 0), EINVAL, "more than IOV_MAX segments: EINVAL");
	is_errno(vmsplice(p[1], (struct iovec *)1, 1, 0), EFAULT, "a bad vector: EFAULT");
	static char big[128 * 1024];
	/* Linux fills whole page slots: a little less than 64 KiB there */
	long n = vmsplice(p[1], &(struct iovec){big, sizeof big}, 1, 0);
	ok(n > 60 * 1024 && n <= 64 * 1024,
	   "128 KiB into an empty 64 KiB pipe: what fits, no wait for the rest (%ld)", n);
	close(p[0]);
	sigpipes = 0;
	is_errno(vmsplice(p[1], w, 1, 0), EPIPE, "no reader: EPIPE");
	is_int(sigpipes, 1, "and SIGPIPE");
	close(p[1]);
	close(f);
}

static void test_splice_errors(void)
{
	int f = file("data", O_RDWR), g = file("out", O_WRONLY | O_APPEND), p[2], q[2], s[2];
	loff_t neg = -1, zero = 0;

	require(pipe(p) == 0 && pipe(q) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "fds");
	is_int(splice(f, NULL, p[1], NULL, 0, 0x100), 0, "length 0: 0, before the flags");
	is_errno(splice(f, NULL, p[1], NULL, 1, 0x100), EINVAL, "an unknown flag: EINVAL");
	is_errno(splice(999, NULL, p[1], NULL, 1, 0), EBADF, "a closed fd: EBADF");
	is_errno(splice(f, NULL, f, NULL, 1, 0), EINVAL, "no pipe: EINVAL");
	is_errno(splice(p[0], &zero, q[1], NULL, 1, 0), ESPIPE, "an offset on a pipe: ESPIPE");
	is_errno(splice(p[0], NULL, p[1], NULL, 1, 0), EINVAL, "a pipe into itself: EINVAL");
	is_errno(splice(p[1], NULL, f, NULL, 1, 0), EBADF, "from a write end: EBADF");
	is_errno(splice(f, NULL, p[0], NULL, 1, 0), EBADF, "into a read end: EBADF");
	is_errno(splice(f, &neg, p[1], NULL, 1, 0), EINVAL, "a negative offset: EINVAL");
	is_errno(splice(s[0], &zero, p[1], NULL, 1, 0), EINVAL, "an offset on a socket: EINVAL");
	is_errno(splice(f, (loff_t *)1, p[1], NULL, 1, 0), EFAULT, "a bad offset pointer: EFAULT");
	int d = open(dir, O_RDONLY | O_DIRECTORY), ev = eventfd(0, 0);
	is_errno(splice(d, NULL, p[1], NULL, 1, 0), EINVAL, "from a directory: EINVAL");
	is_errno(splice(ev, NULL, p[1], NULL, 1, 0), EINVAL, "from an eventfd: EINVAL, no wait");
	is_errno(splice(p[0], NULL, ev, NULL, 1, 0), EINVAL, "into an eventfd: EINVAL, no wait");
	close(d);
	close(ev);
	require(write(p[1], "x", 1) == 1, "fill");
	is_errno(splice(p[0], NULL, g, NULL, 1, 0), EINVAL, "into an O_APPEND file: EINVAL");
	is_errno(tee(p[0], q[1], 0, 0x100), EINVAL, "tee: the flags before the length");
	is_errno(tee(p[0], p[1], 1, 0), EINVAL, "tee a pipe into itself: EINVAL");
	is_errno(tee(f, p[1], 1, 0), EINVAL, "tee from a file: EINVAL");
	is_errno(tee(p[1], q[1], 1, 0), EBADF, "tee from a write end: EBADF");
	close(q[0]);
	sigpipes = 0;
	is_errno(splice(p[0], NULL, q[1], NULL, 1, 0), EPIPE, "into a pipe with no reader: EPIPE");
	lseek(f, 0, SEEK_SET);
	is_errno(splice(f, NULL, q[1], NULL, 1, 0), EPIPE, "a file into it: EPIPE");
	is_errno(tee(p[0], q[1], 1, 0), EPIPE, "tee into it: EPIPE");
	is_int(sigpipes, 3, "each with SIGPIPE");
	close(p[0]);
	close(p[1]);
	close(q[1]);
	close(s[0]);
	close(s[1]);
	close(f);
	close(g);
}

static void test_copy_file_range(void)
{
	int f = file("data", O_RDWR | O_TRUNC), g = file("copy", O_RDWR | O_TRUNC);
	int ro = file("data", O_RDONLY), ap = file("copy", O_WRONLY | O_APPEND), p[2];
	int proc = open("/proc/self/status", O_RDONLY), d = open(dir, O_RDONLY | O_DIRECTORY);
	int null = open("/dev/null", O_WRONLY);
	loff_t a = 0, b = 2;
	char buf[16] = "";

	require(pipe(p) == 0 && write(f, "0123456789", 10) == 10, "set-up");
	lseek(f, 0, SEEK_SET);
	ok(copy_file_range(f, NULL, g, NULL, 4, 0) == 4 && lseek(f, 0, SEEK_CUR) == 4 &&
	       lseek(g, 0, SEEK_CUR) == 4,
	   "at the positions: both move");
	a = 6, b = 8;
	ok(copy_file_range(f, &a, g, &b, 100, 0) == 4 && a == 10 && b == 12 &&
	       lseek(f, 0, SEEK_CUR) == 4,
	   "at offsets, shortened to the input's end: the offsets move");
	ok(pread(g, buf, 12, 0) == 12 && !memcmp(buf,
						 "0123\0\0\0\0"
						 "6789",
						 12),
	   "the output holds both, a hole between");
	a = 100;
	is_int(copy_file_range(f, &a, g, NULL, 10, 0), 0, "past the input's end: 0");
	a = 0, b = 5;
	is_int(copy_file_range(f, &a, f, &b, 5, 0), 5, "within one file, apart: copied");
	a = 0, b = 2;
	is_errno(copy_file_range(f, &a, f, &b, 5, 0), EINVAL,
		 "within one file, overlapping: EINVAL");
	is_errno(copy_file_range(f, NULL, g, NULL, 1, 1), EINVAL, "flags: EINVAL");
	is_errno(copy_file_range(999, NULL, g, NULL, 1, 0), EBADF, "a closed fd: EBADF");
	is_errno(copy_file_range(p[0], NULL, g, NULL, 1, 0), EINVAL, "a pipe: EINVAL");
	is_errno(copy_file_range(d, NULL, g, NULL, 1, 0), EISDIR, "a directory: EISDIR");
	is_errno(copy_file_range(f, NULL, ro, NULL, 1, 0), EBADF, "into a read-only fd: EBADF");
	is_errno(copy_file_range(f, NULL, ap, NULL, 1, 0), EBADF, "into O_APPEND: EBADF");
	is_errno(copy_file_range(f, NULL, null, NULL, 1, 0), EINVAL, "into a device: EINVAL");
	/* fdkernel's /proc files are character devices (docs/vfs.md): what
	 * Linux says for a device, not for another file system. */
	is_errno(copy_file_range(proc, NULL, g, NULL, 10, 0), on_fdkernel() ? EINVAL : EXDEV,
		 "from /proc: EXDEV on Linux, EINVAL for fdkernel's device");
	a = -1;
	is_errno(copy_file_range(f, &a, g, NULL, 1, 0), EOVERFLOW,
		 "an offset that wraps: EOVERFLOW");
	is_errno(copy_file_range(f, (loff_t *)1, g, NULL, 1, 0), EFAULT, "a bad offset: EFAULT");
	close(f);
	close(g);
	close(ro);
	close(ap);
	close(p[0]);
	close(p[1]);
	close(proc);
	close(d);
	close(null);
}

int main(void)
{
	const char *base = tmpfs_dir();
	const char *names[] = {"data", "out", "big", "bigout", "copy"};
	char path[128];

	if (!base)
		skip_all("no tmpfs to compare with");
	plan(69);
	signal(SIGPIPE, on_sigpipe);
	snprintf(dir, sizeof dir, "%s/splice-%d", base, (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	test_file_pipe();
	test_big();
	test_pipes_and_sockets();
	test_vmsplice();
	test_splice_errors();
	test_copy_file_range();
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	ok(rmdir(dir) == 0, "clean up");
	return done();
}
