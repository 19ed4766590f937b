/* Pipes and poll through musl: readiness (POLLIN, POLLOUT, POLLHUP,
 * POLLNVAL, negative fds), timeouts, O_NONBLOCK and EAGAIN, pipe2 flags,
 * atomic PIPE_BUF writes, EPIPE when the reader is gone. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_readiness(void)
{
	int fds[2];
	char buf[PIPE_BUF];
	struct pollfd p[3];

	require(pipe(fds) == 0, "pipe");
	p[0] = (struct pollfd){.fd = fds[0], .events = POLLIN};
	p[1] = (struct pollfd){.fd = fds[1], .events = POLLOUT};
	p[2] = (struct pollfd){.fd = -1, .events = POLLIN, .revents = 77};
	is_int(poll(p, 3, 0), 1, "empty pipe: only the write end is ready");
	ok(p[0].revents == 0 && p[1].revents == POLLOUT && p[2].revents == 0,
	   "revents: none, POLLOUT, and 0 for a negative fd");
	long start = now_ms();
	is_int(poll(p, 1, 60), 0, "poll times out on an empty pipe");
	ok(now_ms() - start >= 55, "after about 60 ms");

	memset(buf, 'p', sizeof buf);
	is_int(write(fds[1], buf, sizeof buf), PIPE_BUF, "PIPE_BUF bytes written at once");
	ok(poll(p, 1, -1) == 1 && p[0].revents == POLLIN, "readable after a write");
	is_int(read(fds[0], buf, sizeof buf), PIPE_BUF, "read them all");
	close(fds[1]);
	ok(poll(p, 1, 0) == 1 && (p[0].revents & POLLHUP), "writer closed: POLLHUP");
	is_int(read(fds[0], buf, 1), 0, "and read gives end of file");
	close(fds[0]);
	ok(poll(p, 1, 0) == 1 && p[0].revents == POLLNVAL, "a closed fd: POLLNVAL");
}

static void test_nonblock(void)
{
	int fds[2];
	char buf[4096] = {0};
	long total = 0;
	ssize_t n;

	require(pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0, "pipe2");
	ok((fcntl(fds[0], F_GETFL) & O_NONBLOCK) && fcntl(fds[1], F_GETFD) == FD_CLOEXEC,
	   "pipe2 flags on both ends");
	is_errno(read(fds[0], buf, 1), EAGAIN, "empty non-blocking pipe: EAGAIN");
	while ((n = write(fds[1], buf, sizeof buf)) > 0 && total < (1 << 24))
		total += n;
	ok(n == -1 && errno == EAGAIN && total >= 4096, "full after %ld bytes: EAGAIN", total);
	struct pollfd p = {.fd = fds[1], .events = POLLOUT};
	is_int(poll(&p, 1, 0), 0, "a full pipe is not writable");
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	is_errno(write(fds[1], "x", 1), EPIPE, "reader gone: EPIPE");
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
	is_errno(pipe2(fds, O_APPEND), EINVAL, "pipe2 with O_APPEND: EINVAL");
}

int main(void)
{
	plan(16);
	test_readiness();
	test_nonblock();
	return done();
}
