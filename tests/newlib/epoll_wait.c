/*
 * epoll_wait semantics over pipes: level and edge triggering, one-shot
 * disarming until EPOLL_CTL_MOD, EPOLLHUP/EPOLLERR always reported, only
 * the asked events, data returned, maxevents smaller than the ready set
 * (round robin), timeouts, a sleeper woken by a writer, EINTR even with
 * SA_RESTART, and epoll_pwait's mask in force only during the wait.
 */
#include "epoll_util.h"
#include "sigutil.h"

#include <signal.h>

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void check_level(void)
{
	int ep = epoll_create1(0), p[2], fd = -1;
	char c;

	require(ep >= 0 && pipe(p) == 0, "set-up");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN) == 0, "LT: ADD the read end");
	is_int(ep_wait1(ep, 0, NULL), 0, "LT: empty pipe: nothing");
	write(p[1], "ab", 2);
	is_int(ep_wait1(ep, 0, &fd), EPOLLIN, "LT: data: EPOLLIN");
	is_int(fd, p[0], "LT: the event carries the registered data");
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "LT: still ready, reported again");
	read(p[0], &c, 1);
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "LT: one byte left: EPOLLIN");
	read(p[0], &c, 1);
	is_int(ep_wait1(ep, 0, NULL), 0, "LT: drained: nothing");
	close(p[1]);
	is_int(ep_wait1(ep, 0, NULL), EPOLLHUP, "LT: writer gone: EPOLLHUP though not asked");
	close(p[0]);
	is_int(ep_wait1(ep, 0, NULL), 0, "LT: last close removed the item");
	require(pipe(p) == 0, "pipe");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, p[1], EPOLLIN) == 0, "ADD a write end for EPOLLIN only");
	is_int(ep_wait1(ep, 0, NULL), 0, "write end with room: EPOLLOUT not asked, nothing");
	close(p[0]);
	is_int(ep_wait1(ep, 0, NULL), EPOLLERR, "reader gone: EPOLLERR though not asked");
	close(p[1]);
	close(ep);
}

static void check_edge(void)
{
	int ep = epoll_create1(0), p[2];
	char c;

	require(ep >= 0 && pipe(p) == 0, "set-up");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN | EPOLLET) == 0, "ET: ADD");
	write(p[1], "ab", 2);
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "ET: first report");
	is_int(ep_wait1(ep, 0, NULL), 0, "ET: not again without a new event");
	write(p[1], "c", 1);
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "ET: a new write: reported again");
	read(p[0], &c, 1);
	is_int(ep_wait1(ep, 0, NULL), 0, "ET: reading is no new event");
	ok(ep_ctl(ep, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLET) == 0, "ET: MOD");
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "ET: MOD re-checks: still data");
	close(p[0]);
	close(p[1]);
	close(ep);
}

static void check_oneshot(void)
{
	int ep = epoll_create1(0), p[2];

	require(ep >= 0 && pipe(p) == 0, "set-up");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN | EPOLLONESHOT) == 0, "ONESHOT: ADD");
	write(p[1], "a", 1);
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "ONESHOT: reported once");
	is_int(ep_wait1(ep, 0, NULL), 0, "ONESHOT: then disarmed");
	write(p[1], "b", 1);
	is_int(ep_wait1(ep, 0, NULL), 0, "ONESHOT: a new write does not re-arm");
	close(p[1]);
	is_int(ep_wait1(ep, 0, NULL), 0, "ONESHOT: not even EPOLLHUP");
	is_errno(ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN), EEXIST, "ONESHOT: disarmed item exists");
	ok(ep_ctl(ep, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLONESHOT) == 0, "ONESHOT: MOD re-arms");
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN | EPOLLHUP, "ONESHOT: reported after MOD");
	is_int(ep_wait1(ep, 0, NULL), 0, "ONESHOT: disarmed again");
	close(p[0]);
	close(ep);
}

/* Three ready pipes, maxevents 2: every one is reported within two calls. */
static void check_round_robin(void)
{
	struct epoll_event evs[2];
	int ep = epoll_create1(0), p[3][2], seen = 0, n;

	require(ep >= 0, "epoll_create1");
	for (int i = 0; i < 3; i++) {
		require(pipe(p[i]) == 0, "pipe");
		write(p[i][1], "x", 1);
		ep_ctl(ep, EPOLL_CTL_ADD, p[i][0], EPOLLIN);
	}
	for (int round = 0; round < 2; round++) {
		n = epoll_wait(ep, evs, 2, 0);
		is_int(n, 2, "maxevents 2 of 3 ready: 2 (call %d)", round + 1);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < 3; j++)
				if ((int)evs[i].data.u64 == p[j][0])
					seen |= 1 << j;
	}
	is_int(seen, 7, "all three reported within two calls");
	is_int(ep_count(ep), 3, "maxevents 64: all three");
	for (int i = 0; i < 3; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	close(ep);
}

static void check_timeouts(void)
{
	int ep = epoll_create1(0), p[2];
	long t0;
	pid_t pid;

	require(ep >= 0 && pipe(p) == 0, "set-up");
	ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN);
	t0 = now_ms();
	is_int(ep_wait1(ep, 50, NULL), 0, "timeout 50 ms: 0");
	ok(now_ms() - t0 >= 49, "timeout 50 ms: waited at least that long");
	t0 = now_ms();
	is_int(ep_wait1(ep, 0, NULL), 0, "timeout 0: returns at once");
	ok(now_ms() - t0 < 50, "timeout 0: did not wait");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sleep_ms(50);
		write(p[1], "w", 1);
		_exit(0);
	}
	is_int(ep_wait1(ep, -1, NULL), EPOLLIN, "timeout -1: woken by a writer in another process");
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	close(ep);
}

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

/* A child sends SIGUSR1 to the parent after a short while. */
static pid_t usr1_later(void)
{
	pid_t parent = getpid(), pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sleep_ms(50);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	return pid;
}

static void check_signals(void)
{
	struct epoll_event ev;
	sigset_t usr1, old, cur;
	int ep = epoll_create1(0), p[2];
	pid_t pid;

	require(ep >= 0 && pipe(p) == 0, "set-up");
	ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN);
	lsig_handle(LSIGUSR1, on_usr1, UAPI_SA_RESTART);
	pid = usr1_later();
	is_errno(epoll_wait(ep, &ev, 1, 5000), EINTR, "a handled signal: EINTR despite SA_RESTART");
	is_int(caught, 1, "the handler ran");
	waitpid(pid, NULL, 0);

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	caught = 0;
	pid = usr1_later();
	sigemptyset(&cur);
	is_errno(epoll_pwait(ep, &ev, 1, 5000, &cur), EINTR,
		 "pwait: a signal blocked outside, let through by the mask: EINTR");
	is_int(caught, 1, "pwait: its handler ran");
	sigprocmask(SIG_SETMASK, NULL, &cur);
	ok(sigismember(&cur, SIGUSR1), "pwait: the caller's mask is back");
	waitpid(pid, NULL, 0);
	pid = usr1_later();
	is_int(epoll_pwait(ep, &ev, 1, 200, &usr1), 0, "pwait: a signal the mask blocks: timeout");
	is_int(caught, 1, "pwait: no handler ran during the wait");
	waitpid(pid, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	is_int(caught, 2, "the pending signal is delivered once unblocked");
	signal(SIGUSR1, SIG_DFL);
	close(p[0]);
	close(p[1]);
	close(ep);
}

int main(void)
{
	plan(45);
	check_level();
	check_edge();
	check_oneshot();
	check_round_robin();
	check_timeouts();
	check_signals();
	return done();
}
