/*
 * Vectored I/O sees the whole vector at once: readv on a pipe returns what
 * is there instead of blocking for the next segment, a writev of at most
 * PIPE_BUF bytes to a pipe is atomic, a datagram socket sends and receives
 * one datagram per call (not per segment), a fault after some progress
 * returns the progress, and preadv/pwritev/preadv2/pwritev2 follow Linux.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "fd_util.h"

#define PIPE_CAP  65536 /* fdkernel's PIPE_SIZE, Linux's default pipe size */
#define PAGE	  4096
#define BAD_RWF	  (1 << 30) /* a preadv2 flag no kernel knows */
#define WAIT_SECS 3
#define FIONREAD_ 0x541B /* newlib has no ioctl() */

static char path[64];

/* Runs readv(fd, iov, n) in a child; its result, or -2 if it was still blocked
 * after WAIT_SECS (then killed). */
static long readv_in_child(int fd, struct iovec *iov, int n)
{
	int status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit((int)readv(fd, iov, n) & 0xff);
	require(pid > 0, "fork");
	for (int i = 0; i < WAIT_SECS * 20; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? (signed char)WEXITSTATUS(status) : -3;
		sleep_ms(50);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -2;
}

static void test_pipe_readv(void)
{
	char a[10], b[10];
	struct iovec v[2] = {{a, 10}, {b, 10}};
	int p[2];

	require(pipe(p) == 0, "pipe");
	require(write(p[1], "0123456789", 10) == 10, "fill");
	is_int(readv_in_child(p[0], v, 2), 10,
	       "pipe readv: 10 bytes for two 10-byte segments, no block");
	close(p[0]);
	close(p[1]);
}

static int fionread(int fd)
{
	int n = -1;

	syscall(__NR_ioctl, fd, FIONREAD_, &n);
	return n;
}

/* A pipe with room for 100 bytes takes a writev of 2 x 100 whole or not at all. */
static void test_pipe_writev_atomic(void)
{
	static char fill[PIPE_CAP - 100], seg[100];
	struct iovec v[2] = {{seg, 100}, {seg, 100}};
	char out[200];
	int p[2];

	require(pipe2(p, O_NONBLOCK) == 0, "pipe2");
	require(write(p[1], fill, sizeof fill) == sizeof fill, "fill the pipe");
	is_errno(writev(p[1], v, 2), EAGAIN, "pipe writev of 200 bytes with room for 100: EAGAIN");
	is_int(fionread(p[0]), sizeof fill, "... and nothing of it went in");
	require(read(p[0], fill, sizeof fill) == sizeof fill, "drain");
	memset(seg, 'x', sizeof seg);
	is_int(writev(p[1], v, 2), 200, "writev of 200 bytes to an empty pipe");
	ok(read(p[0], out, sizeof out) == 200 && out[0] == 'x' && out[199] == 'x',
	   "... read back in one piece");
	close(p[0]);
	close(p[1]);
}

static void test_dgram(void)
{
	char a[3], b[3], buf[16];
	struct iovec w[2] = {{"abc", 3}, {"def", 3}}, r[2] = {{a, 3}, {b, 3}};
	struct iovec empty = {buf, 0};
	int sv[2];

	require(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) == 0, "socketpair");
	is_int(writev(sv[0], w, 2), 6, "dgram writev of 2 segments");
	ok(recv(sv[1], buf, sizeof buf, 0) == 6 && memcmp(buf, "abcdef", 6) == 0,
	   "... is one datagram of 6 bytes");
	require(send(sv[0], "ABC", 3, 0) == 3 && send(sv[0], "DEF", 3, 0) == 3, "send 2 datagrams");
	ok(readv(sv[1], r, 2) == 3 && memcmp(a, "ABC", 3) == 0, "dgram readv takes one datagram");
	ok(recv(sv[1], buf, sizeof buf, 0) == 3 && memcmp(buf, "DEF", 3) == 0,
	   "... and leaves the next one queued");
	is_int(writev(sv[0], &empty, 1), 0, "dgram writev of 0 bytes returns 0");
	is_errno(recv(sv[1], buf, sizeof buf, 0), EAGAIN, "... and sends nothing (Linux)");
	close(sv[0]);
	close(sv[1]);
}

/* A fault part-way through a regular file transfer returns the bytes done. */
static void test_partial_fault(int fd, char *bad)
{
	char a[10], *page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec gb[2] = {{"0123456789", 10}, {bad, 10}}, bg[2] = {{bad, 10}, {a, 10}};
	struct iovec gk[2] = {{"0123456789", 10}, {KERNEL_PTR, 10}};
	struct iovec rgb[2] = {{a, 10}, {bad, 10}}, straddle = {page + PAGE - 6, 20};

	require(page != MAP_FAILED && munmap(page + PAGE, PAGE) == 0,
		"a page with a hole after it");
	is_int(writev(fd, gb, 2), 10, "writev with a bad second segment: the 10 bytes done");
	is_int(lseek(fd, 0, SEEK_CUR), 10, "... and the offset moved by 10");
	is_errno(writev(fd, bg, 2), EFAULT, "writev with a bad first segment: EFAULT");
	is_errno(writev(fd, gk, 2), EFAULT, "a kernel-half segment: EFAULT before any transfer");
	is_int(lseek(fd, 0, SEEK_END), 10, "... the file still holds 10 bytes");
	require(pwrite(fd, "abcdefghij", 10, 10) == 10, "20 bytes in the file");
	is_int(preadv(fd, rgb, 2, 0), 10, "preadv with a bad second segment: the 10 bytes done");
	is_int(preadv(fd, &straddle, 1, 0), 6,
	       "a segment running into a hole: bytes up to the hole");
	ok(memcmp(page + PAGE - 6, "012345", 6) == 0, "... and they are right");
	munmap(page, PAGE);
}

static void test_positioned(int fd)
{
	char x[4] = {0}, y[4] = {0};
	struct iovec w[2] = {{"wxyz", 4}, {"WXYZ", 4}}, r[2] = {{x, 4}, {y, 4}};
	int p[2];

	require(lseek(fd, 3, SEEK_SET) == 3, "seek");
	is_int(pwritev(fd, w, 2, 100), 8, "pwritev at 100");
	ok(preadv(fd, r, 2, 100) == 8 && !memcmp(x, "wxyz", 4) && !memcmp(y, "WXYZ", 4),
	   "preadv at 100 reads both segments back");
	is_int(lseek(fd, 0, SEEK_CUR), 3, "neither moved the offset");
	is_int(preadv2(fd, r, 1, -1, 0), 4, "preadv2 at -1 reads at the offset");
	is_int(lseek(fd, 0, SEEK_CUR), 7, "... and moves it");
	is_int(pwritev2(fd, w, 1, 0, 0), 4, "pwritev2 at 0");
	is_errno(preadv2(fd, r, 1, -2, 0), EINVAL, "preadv2 at -2: EINVAL");
	is_errno(preadv(fd, r, 1, -1), EINVAL, "preadv at -1: EINVAL");
	is_errno(preadv2(fd, r, 1, 0, BAD_RWF), EOPNOTSUPP,
		 "preadv2 with an unknown flag: EOPNOTSUPP");
	require(pipe(p) == 0, "pipe");
	is_errno(preadv(p[0], r, 1, 0), ESPIPE, "preadv on a pipe: ESPIPE");
	is_errno(pwritev(p[1], w, 1, 0), ESPIPE, "pwritev on a pipe: ESPIPE");
	close(p[0]);
	close(p[1]);
}

static void test_counts(int fd)
{
	static struct iovec many[1025];
	char c;
	int wo = open(path, O_WRONLY);

	for (int i = 0; i < 1025; i++)
		many[i] = (struct iovec){&c, 1};
	is_int(readv(fd, NULL, 0), 0, "readv of 0 segments (NULL vector): 0");
	is_int(writev(fd, NULL, 0), 0, "writev of 0 segments (NULL vector): 0");
	is_errno(readv(fd, many, 1025), EINVAL, "readv of IOV_MAX + 1 segments: EINVAL");
	is_errno(pwritev(fd, many, 1025, 0), EINVAL, "pwritev of IOV_MAX + 1 segments: EINVAL");
	is_int(pwritev(fd, many, 1024, 0), 1024, "pwritev of IOV_MAX segments");
	is_errno(readv(wo, NULL, -1), EBADF, "readv on a write-only fd: EBADF before the vector");
	close(wo);
}

int main(void)
{
	char *bad = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd;

	plan(1 + 4 + 6 + 8 + 11 + 6);
	require(bad != MAP_FAILED && munmap(bad, PAGE) == 0, "an unmapped page");
	test_pipe_readv();
	test_pipe_writev_atomic();
	test_dgram();
	snprintf(path, sizeof path, "/tmp/fd_iovec-%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	require(fd >= 0, "scratch file");
	test_partial_fault(fd, bad);
	test_positioned(fd);
	test_counts(fd);
	close(fd);
	unlink(path);
	return done();
}
