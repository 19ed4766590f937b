/* epoll_pwait2: a timespec timeout (zero: no wait; a short one times
 * out; NULL: until an event), a signal mask in force for the wait, and
 * Linux's errno order (a bad timespec's EINVAL and EFAULT before EBADF). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

static long pwait2(int ep, struct epoll_event *ev, int n, const struct timespec *ts,
		   const uint64_t *mask)
{
	long r = syscall(SYS_epoll_pwait2, ep, ev, n, ts, mask, 8);
	return r < 0 ? -errno : r;
}

static volatile int got;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
}

int main(void)
{
	struct epoll_event ev = {.events = EPOLLIN}, out;
	struct timespec zero = {0, 0}, short_ts = {0, 20000000};
	int ep = epoll_create1(0), p[2];

	plan(9);
	if (pipe(p) || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev))
		return 1;
	is_int(pwait2(ep, &out, 1, &zero, NULL), 0, "zero timeout: no event, no wait");
	is_int(pwait2(ep, &out, 1, &short_ts, NULL), 0, "20 ms timeout: times out with 0");
	is_int(pwait2(ep, &out, 1, &(struct timespec){0, 1000000000}, NULL), -EINVAL,
	       "tv_nsec 1e9: EINVAL");
	is_int(pwait2(ep, &out, 1, &(struct timespec){-1, 0}, NULL), -EINVAL,
	       "negative tv_sec: EINVAL");
	is_int(pwait2(-1, &out, 1, &(struct timespec){-1, 0}, NULL), -EINVAL,
	       "a bad timespec is EINVAL before a bad fd's EBADF");
	is_int(pwait2(ep, &out, 1, (struct timespec *)8, NULL), -EFAULT, "bad timespec: EFAULT");
	if (write(p[1], "x", 1) != 1)
		return 1;
	ok(pwait2(ep, &out, 1, NULL, NULL) == 1 && out.events == EPOLLIN,
	   "NULL timeout: the ready event");

	/* SIGUSR1 blocked outside, let through by the mask: EINTR, handler ran. */
	char c;
	if (read(p[0], &c, 1) != 1)
		return 1;
	signal(SIGUSR1, on_usr1);
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, NULL);
	kill(getpid(), SIGUSR1);
	uint64_t none = 0;
	is_int(pwait2(ep, &out, 1, &short_ts, &none), -EINTR,
	       "the mask lets a pending signal in: EINTR");
	ok(got == 1, "and its handler ran");
	return done();
}
