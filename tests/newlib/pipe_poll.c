/*
 * poll(2) on pipes: readiness (POLLIN, POLLOUT, POLLHUP, POLLERR), a
 * sleeping poll woken by a writer, a closing writer and a signal (EINTR),
 * timeouts, POLLNVAL, and bad input (EFAULT, EINVAL).
 */
#include "fd_util.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>

static char big[65536];

static short revents(int fd, short events, int timeout)
{
	struct pollfd p = {fd, events, 0};

	return poll(&p, 1, timeout) < 0 ? -1 : p.revents;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void check_readiness(void)
{
	int p[2];

	require(pipe2(p, O_NONBLOCK) == 0, "pipe2");
	is_int(revents(p[0], POLLIN, 0), 0, "empty pipe: read end not ready");
	is_int(revents(p[1], POLLOUT, 0), POLLOUT, "empty pipe: write end POLLOUT");
	write(p[1], "x", 1);
	is_int(revents(p[0], POLLIN | POLLOUT, 0), POLLIN,
	       "data: read end POLLIN (only what was asked)");
	while (write(p[1], big, sizeof big) > 0)
		;
	is_int(revents(p[1], POLLOUT, 0), 0, "full pipe: no POLLOUT");
	close(p[1]);
	is_int(revents(p[0], POLLIN, 0), POLLIN | POLLHUP, "writer gone: POLLIN | POLLHUP");
	while (read(p[0], big, sizeof big) > 0)
		;
	is_int(revents(p[0], 0, 0), POLLHUP, "POLLHUP is reported even when not asked");
	close(p[0]);
	require(pipe(p) == 0, "pipe");
	close(p[0]);
	ok(revents(p[1], POLLOUT, 0) & POLLERR, "reader gone: write end POLLERR");
	close(p[1]);
}

static void check_many_fds(void)
{
	int a[2], b[2], closed;

	require(pipe(a) == 0 && pipe(b) == 0, "pipes");
	closed = next_fd() + 10;
	write(b[1], "y", 1);
	struct pollfd p[4] = {
	    {a[0], POLLIN, 7}, {b[0], POLLIN, 7}, {closed, POLLIN, 7}, {-1, POLLIN, 7}};
	is_int(poll(p, 4, 1000), 2, "four fds: two with revents");
	ok(p[0].revents == 0 && p[1].revents == POLLIN, "... the pipe with data is POLLIN");
	ok(p[2].revents == POLLNVAL && p[3].revents == 0,
	   "... a closed fd POLLNVAL, fd -1 ignored");
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

/* In a child: after ms, write a byte (what = 'w') or close the write end. */
static pid_t later(int wfd, int ms, char what)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(ms);
		if (what == 'w')
			write(wfd, "w", 1);
		_exit(0);
	}
	return pid;
}

static void check_sleeping(void)
{
	int p[2];
	long t;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	pid = later(p[1], 100, 'w');
	t = now_ms();
	is_int(revents(p[0], POLLIN, -1), POLLIN, "poll(-1) sleeps until a writer writes");
	ok(now_ms() - t >= 50, "... which took the writer's delay");
	waitpid(pid, NULL, 0);
	read(p[0], big, 1);
	pid = later(p[1], 50, 'c');
	close(p[1]);
	is_int(revents(p[0], POLLIN, 5000), POLLHUP, "poll wakes when the last writer closes");
	waitpid(pid, NULL, 0);
	close(p[0]);
	require(pipe(p) == 0, "pipe");
	t = now_ms();
	is_int(revents(p[0], POLLIN, 100), 0, "timeout: 0 after it passed");
	ok(now_ms() - t >= 90, "... 100 ms");
	t = now_ms();
	struct pollfd none;
	is_int(poll(&none, 0, 100), 0, "poll of no fds sleeps for the timeout");
	ok(now_ms() - t >= 90, "... 100 ms");
	close(p[0]);
	close(p[1]);
}

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

static void check_eintr(void)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	int p[2];
	pid_t pid, parent = getpid();

	sigaction(SIGUSR1, &sa, NULL);
	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(50);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	struct pollfd fd = {p[0], POLLIN, 0};
	is_errno(poll(&fd, 1, -1), EINTR, "a signal ends poll(-1) with EINTR");
	ok(got_usr1, "... after its handler ran");
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
}

static void check_bad_input(void)
{
	struct rlimit r;
	struct pollfd p = {0, POLLIN, 0};

	getrlimit(RLIMIT_NOFILE, &r);
	is_errno(poll(NULL, 1, 0), EFAULT, "poll(NULL, 1): EFAULT");
	is_errno(poll(KERNEL_PTR, 1, 0), EFAULT, "poll of a kernel pointer: EFAULT");
	is_errno(poll(&p, r.rlim_cur + 1, 0), EINVAL, "nfds > RLIMIT_NOFILE: EINVAL");
	p.fd = open_null(0);
	is_int(revents(p.fd, POLLIN | POLLOUT, 0), POLLIN | POLLOUT, "/dev/null is always ready");
	close(p.fd);
}

int main(void)
{
	int before = next_fd();

	plan(7 + 3 + 7 + 2 + 4 + 1);
	check_readiness();
	check_many_fds();
	check_sleeping();
	check_eintr();
	check_bad_input();
	is_int(next_fd(), before, "no fd left open");
	return done();
}
