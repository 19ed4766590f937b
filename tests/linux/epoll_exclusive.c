/* EPOLLEXCLUSIVE: one file watched by several epolls, each with a sleeper
 * in epoll_wait.  An event wakes one of the exclusive ones (and every
 * plain one), not the herd; an epoll with no sleeper does not take the
 * wake-up for itself; a wake-up about events an exclusive item does not
 * watch goes on to one that does.
 *
 * How "woke" is seen without timing: every epoll also watches a shared
 * "stop" eventfd.  The test waits until every waiter sleeps, makes the
 * pipe readable once and leaves it so, then writes the eventfd.  Each
 * waiter returns what its epoll had: a woken epoll has the pipe's item on
 * its ready list, so it reports the pipe (with or without the stop); one
 * the wake-up passed by reports the stop alone. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "threads.h"

#define NWAIT 6

enum { PIPE_TAG = 1, STOP_TAG = 2 };

struct waiter {
	int ep;
	long tid;      /* set by the thread before it sleeps */
	bool saw_pipe; /* what its epoll_wait returned */
	bool failed;   /* epoll_wait did not return a stop or pipe event */
	pthread_t thread;
};

static int pipefd[2], stopfd;

static void add(int ep, int fd, uint32_t events, uint64_t tag)
{
	struct epoll_event ev = {.events = events, .data.u64 = tag};

	require(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "epoll_ctl ADD");
}

/* An epoll watching the pipe with events (none: not at all) and the stop. */
static int new_epoll(uint32_t events)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);

	require(ep >= 0, "epoll_create1");
	if (events)
		add(ep, pipefd[0], events, PIPE_TAG);
	add(ep, stopfd, EPOLLIN, STOP_TAG);
	return ep;
}

static void *wait_once(void *arg)
{
	struct waiter *w = arg;
	struct epoll_event ev[2];
	int n;

	__atomic_store_n(&w->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	n = epoll_wait(w->ep, ev, 2, -1);
	w->failed = n < 1;
	for (int i = 0; i < n; i++)
		w->saw_pipe |= ev[i].data.u64 == PIPE_TAG;
	return NULL;
}

static void start(struct waiter *w, uint32_t events)
{
	*w = (struct waiter){.ep = new_epoll(events)};
	w->thread = start_thread(wait_once, w);
}

/* Waits until every waiter sleeps (in its epoll_wait: nothing else of it
 * sleeps). */
static void all_asleep(struct waiter *w, int n)
{
	for (int i = 0; i < n; i++) {
		long tid;
		while (!(tid = __atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE)) ||
		       !thread_sleeping(tid))
			sleep_ms(1);
	}
}

/* Makes the pipe readable (byte), wakes everyone through the stop
 * eventfd, joins; how many reported the pipe.  Resets both files. */
static int one_event(struct waiter *w, int n, int *failed)
{
	uint64_t one = 1;
	int saw = 0;
	char c;

	all_asleep(w, n);
	require(write(pipefd[1], "x", 1) == 1, "write pipe");
	require(write(stopfd, &one, sizeof one) == sizeof one, "write eventfd");
	*failed = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		saw += w[i].saw_pipe;
		*failed += w[i].failed;
		close(w[i].ep);
	}
	require(read(pipefd[0], &c, 1) == 1, "read pipe");
	require(read(stopfd, &one, sizeof one) == sizeof one, "read eventfd");
	return saw;
}

static void herd_of_exclusive(uint32_t extra)
{
	struct waiter w[NWAIT];
	int failed;

	for (int i = 0; i < NWAIT; i++)
		start(&w[i], EPOLLIN | EPOLLEXCLUSIVE | extra);
	is_int(one_event(w, NWAIT, &failed), 1, "%s: one of %d sleeping epolls woken",
	       extra ? "EPOLLET" : "level", NWAIT);
	is_int(failed, 0, "every epoll_wait returned an event");
}

/* Plain items are all woken, beside one exclusive one. */
static void plain_and_exclusive(void)
{
	struct waiter w[4];
	int failed;

	start(&w[0], EPOLLIN);
	start(&w[1], EPOLLIN | EPOLLEXCLUSIVE);
	start(&w[2], EPOLLIN);
	start(&w[3], EPOLLIN | EPOLLEXCLUSIVE);
	is_int(one_event(w, 4, &failed), 3, "both plain epolls and one exclusive woken");
	ok(w[0].saw_pipe && w[2].saw_pipe, "the plain ones among them");
	is_int(failed, 0, "every epoll_wait returned an event");
}

/* An exclusive epoll nobody waits on, earlier on the pipe's queue, does
 * not end the wake-up: the sleeping one behind it is woken. */
static void idle_epoll_passed(void)
{
	int idle = new_epoll(EPOLLIN | EPOLLEXCLUSIVE), failed;
	struct waiter w[1];

	start(&w[0], EPOLLIN | EPOLLEXCLUSIVE);
	is_int(one_event(w, 1, &failed), 1, "the sleeping epoll woken past an idle one");
	close(idle);
}

/* An exclusive item watching only EPOLLOUT on the read end does not take
 * the wake-up of data coming: the EPOLLIN one behind it is woken. */
static void other_events_passed(void)
{
	struct waiter w[2];
	int failed;

	start(&w[0], EPOLLOUT | EPOLLEXCLUSIVE);
	start(&w[1], EPOLLIN | EPOLLEXCLUSIVE);
	is_int(one_event(w, 2, &failed), 1, "a data wake-up skips an EPOLLOUT-only exclusive item");
	ok(w[1].saw_pipe && !w[0].saw_pipe, "the EPOLLIN one is woken");
}

/* The same across processes: each child sleeps in its own epoll and
 * reports through its exit status whether it saw the pipe. */
static void processes(void)
{
	pid_t pid[NWAIT];
	int saw = 0, status, failed = 0;
	uint64_t one = 1;
	char c;

	for (int i = 0; i < NWAIT; i++) {
		int ep = new_epoll(EPOLLIN | EPOLLEXCLUSIVE | EPOLLET);
		require((pid[i] = fork()) >= 0, "fork");
		if (pid[i] == 0) {
			struct waiter w = {.ep = ep};
			wait_once(&w);
			_exit(w.failed ? 2 : w.saw_pipe);
		}
		close(ep);
	}
	for (int i = 0; i < NWAIT; i++) {
		char path[64], buf[256], *p;
		snprintf(path, sizeof path, "/proc/%d/stat", pid[i]);
		while (!(read_text(path, buf, sizeof buf) > 0 && (p = strrchr(buf, ')')) &&
			 p[2] == 'S'))
			sleep_ms(1);
	}
	require(write(pipefd[1], "x", 1) == 1, "write pipe");
	require(write(stopfd, &one, sizeof one) == sizeof one, "write eventfd");
	for (int i = 0; i < NWAIT; i++) {
		require(waitpid(pid[i], &status, 0) == pid[i], "waitpid");
		saw += WIFEXITED(status) && WEXITSTATUS(status) == 1;
		failed += !WIFEXITED(status) || WEXITSTATUS(status) > 1;
	}
	is_int(saw, 1, "processes: one of %d sleeping epolls woken", NWAIT);
	is_int(failed, 0, "processes: every epoll_wait returned an event");
	require(read(pipefd[0], &c, 1) == 1 && read(stopfd, &one, sizeof one) == sizeof one,
		"reset");
}

int main(void)
{
	plan(12);
	require(pipe(pipefd) == 0, "pipe");
	require((stopfd = eventfd(0, 0)) >= 0, "eventfd");
	herd_of_exclusive(0);
	herd_of_exclusive(EPOLLET);
	plain_and_exclusive();
	idle_epoll_passed();
	other_events_passed();
	processes();
	return done();
}
