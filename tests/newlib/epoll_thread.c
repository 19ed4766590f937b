/*
 * epoll and threads (Linux's behaviour, checked on the host too): an
 * epoll_wait in one thread woken by a write from another; one epoll fd
 * waited on by two threads at once while a third closes a watched pipe's
 * write end (both see EPOLLHUP) or the watched fd itself (its item goes:
 * both time out); a thread asleep in epoll_wait while another closes the
 * epoll fd (the wait goes on, on the still-referenced file).  Nothing leaks.
 */
#include "epoll_util.h"
#include "robust.h"
#include "tap.h"
#include "thread.h"

struct waiter {
	int ep, timeout_ms;
	long n;		 /* epoll_wait's result */
	uint32_t events; /* of the first event */
	struct thread t;
};

static int wait_body(void *arg)
{
	struct waiter *w = arg;
	struct epoll_event ev = {0};

	w->n = thread_sys6(__NR_epoll_wait, w->ep, (long)&ev, 1, w->timeout_ms, 0, 0);
	w->events = ev.events;
	return 0;
}

static void start(struct waiter *w, int ep, int timeout_ms)
{
	w->ep = ep;
	w->timeout_ms = timeout_ms;
	w->n = -1000;
	require(thread_start(&w->t, wait_body, w) > 0, "thread");
}

/* Returns once W's thread sleeps: in its epoll_wait, its only blocking call. */
static void await_asleep(struct waiter *w)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/task/%d/stat", w->t.tid);
	WAIT_UNTIL(stat_state(path) == 'S');
}

static int close_body(void *arg)
{
	thread_sys(__NR_close, (long)(intptr_t)arg, 0, 0);
	return 0;
}

/* A third thread closes fd. */
static void close_in_thread(int fd)
{
	struct thread t;

	require(thread_start(&t, close_body, (void *)(intptr_t)fd) > 0, "thread");
	thread_join(&t);
}

static void check_write_wakes(void)
{
	int ep = epoll_create1(0), p[2];
	struct waiter w;

	require(pipe(p) == 0 && ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN) == 0, "set-up");
	start(&w, ep, 5000);
	sleep_ms(50);
	write(p[1], "x", 1);
	thread_join(&w.t);
	ok(w.n == 1 && w.events == EPOLLIN, "epoll_wait in a thread woken by another's write");
	close(p[0]);
	close(p[1]);
	close(ep);
}

static void check_two_waiters(void)
{
	int ep = epoll_create1(0), p[2];
	struct waiter a, b;

	require(pipe(p) == 0 && ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN) == 0, "set-up");
	start(&a, ep, 5000);
	start(&b, ep, 5000);
	sleep_ms(50);
	close_in_thread(p[1]);
	thread_join(&a.t);
	thread_join(&b.t);
	ok(a.n == 1 && (a.events & EPOLLHUP) && b.n == 1 && (b.events & EPOLLHUP),
	   "two threads on one epoll, a third closes the write end: both get EPOLLHUP");
	/* The watched fd closed by a third thread: its item goes, nobody wakes. */
	close(p[0]);
	require(pipe(p) == 0 && ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN) == 0, "set-up");
	start(&a, ep, 300);
	start(&b, ep, 300);
	sleep_ms(50);
	close_in_thread(p[0]);
	thread_join(&a.t);
	thread_join(&b.t);
	ok(a.n == 0 && b.n == 0, "the watched fd closed by a third thread: both time out (%ld %ld)",
	   a.n, b.n);
	is_int(ep_count(ep), 0, "and the epoll is empty");
	close(p[1]);
	close(ep);
}

static void check_close_epoll_under_waiter(void)
{
	int ep = epoll_create1(0), p[2];
	struct waiter w;

	require(pipe(p) == 0 && ep_ctl(ep, EPOLL_CTL_ADD, p[0], EPOLLIN) == 0, "set-up");
	start(&w, ep, 5000);
	await_asleep(&w); /* not yet in epoll_wait, it would get EBADF */
	close_in_thread(ep);
	is_errno(fcntl(ep, F_GETFD), EBADF, "the epoll fd is closed");
	write(p[1], "x", 1);
	thread_join(&w.t);
	ok(w.n == 1 && w.events == EPOLLIN,
	   "a thread asleep in epoll_wait while another closes the epoll fd: the wait goes on");
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have = kstat_read(&before);

	(void)argc;
	plan(8);
	check_write_wakes();
	check_two_waiters();
	check_close_epoll_under_waiter();
	ok(can_run_true(argv[0]) && pipe_round_trip(), "the system still works");
	kstat_unchanged(&before, have, "nothing left: files, heap, tasks, epoll watches");
	return done();
}
