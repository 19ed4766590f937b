/*
 * Readiness of many fds, one of them ready: poll() scans every fd each
 * call, epoll_wait() reads a ready list (O(ready)).  10,000 registered
 * fds are dups of one idle pipe's read end (the same on both kernels, no
 * 10,000 pipe buffers), plus a pipe that always has data.  Median of
 * repetitions, in ns per call; timeout 0, level-triggered.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"

#define NFDS	     10000
#define POLL_CALLS   50
#define EPOLL_CALLS  20000
#define REPS	     11
#define NOFILE_SLACK 64

static struct pollfd fds[NFDS + 1];
static int epfd = -1;

static double poll_rep(const char *name, void *arg)
{
	(void)arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < POLL_CALLS; i++)
		if (poll(fds, NFDS + 1, 0) != 1) {
			bench_fail(name, "poll: not exactly one ready (%s)", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, POLL_CALLS);
}

static double epoll_rep(const char *name, void *arg)
{
	struct epoll_event ev[8];

	(void)arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < EPOLL_CALLS; i++)
		if (epoll_wait(epfd, ev, 8, 0) != 1) {
			bench_fail(name, "epoll_wait: not exactly one ready (%s)", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, EPOLL_CALLS);
}

/* NFDS dups of an idle pipe's read end and a ready pipe last, in fds[]
 * and in the epoll: 0, or -1 with errno. */
static int set_up(void)
{
	struct rlimit r = {NFDS + NOFILE_SLACK, NFDS + NOFILE_SLACK};
	struct epoll_event ev = {.events = EPOLLIN};
	int idle[2], ready[2];

	if (setrlimit(RLIMIT_NOFILE, &r) < 0 || pipe(idle) < 0 || pipe(ready) < 0 ||
	    write(ready[1], "x", 1) != 1 || (epfd = epoll_create1(0)) < 0)
		return -1;
	for (int i = 0; i < NFDS; i++) {
		fds[i].fd = i ? dup(idle[0]) : idle[0];
		fds[i].events = POLLIN;
		if (fds[i].fd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, fds[i].fd, &ev) < 0)
			return -1;
	}
	fds[NFDS] = (struct pollfd){ready[0], POLLIN, 0};
	return epoll_ctl(epfd, EPOLL_CTL_ADD, ready[0], &ev);
}

int main(void)
{
	bench_begin("bench_poll", "poll_10000_1,epoll_10000_1");
	if (set_up() < 0) {
		bench_fail("poll_10000_1", "set-up: %s", strerror(errno));
		bench_fail("epoll_10000_1", "set-up: %s", strerror(errno));
		return bench_end();
	}
	bench_row("poll_10000_1", "ns", REPS, poll_rep, NULL);
	bench_row("epoll_10000_1", "ns", REPS, epoll_rep, NULL);
	return bench_end();
}
