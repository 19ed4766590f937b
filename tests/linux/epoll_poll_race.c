/* An epoll polled as a file (poll() on it, or an outer epoll watching it)
 * while the files it watches become ready on another CPU and its items
 * come and go.  A chain: epoll C watches an eventfd, B watches C, A
 * watches B.  One thread makes the eventfd ready and drains it, one
 * deletes and re-adds B's item for C and C's for the eventfd, two poll B
 * and A (each poll scans the epolls below it).  fdkernel's scan for such a poll put a ready
 * item back on its list without looking whether a wake-up had queued it
 * again meanwhile: the item ended up on two lists, and once deleted and
 * freed a later scan followed it into freed memory (the four-CPU fuzzer
 * panicked so).  Here the process must finish, every poll must agree with
 * the eventfd, and the epolls must still work afterwards. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "threads.h"

#define RUN_MS 3000

static int efd, ep_c, ep_b, ep_a;
static long end_ms;
static int bad_poll; /* a poll failed or said what no file can be */

static bool running(void)
{
	return mono_ms() < end_ms;
}

static void *toggler(void *arg)
{
	uint64_t v = 1;

	(void)arg;
	while (running()) {
		if (write(efd, &v, sizeof v) != sizeof v || read(efd, &v, sizeof v) != sizeof v)
			__atomic_store_n(&bad_poll, 1, __ATOMIC_RELAXED);
		v = 1;
	}
	return NULL;
}

static void *churner(void *arg)
{
	struct epoll_event ev = {.events = EPOLLIN};

	(void)arg;
	for (long i = 0; running(); i++) {
		int ep = i % 2 ? ep_b : ep_c, fd = i % 2 ? ep_c : efd;
		epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	}
	return NULL;
}

static void *poller(void *arg)
{
	struct pollfd p = {.fd = (int)(intptr_t)arg, .events = POLLIN};
	long polls = 0;

	while (running()) {
		int r = poll(&p, 1, 0);
		if (r < 0 || (r == 1 && p.revents != POLLIN))
			__atomic_store_n(&bad_poll, 1, __ATOMIC_RELAXED);
		polls++;
	}
	return (void *)polls;
}

int main(void)
{
	struct epoll_event ev = {.events = EPOLLIN}, out;
	uint64_t v = 1;
	pthread_t t[4];
	void *polls[2];

	plan(4);
	efd = eventfd(0, EFD_NONBLOCK);
	ep_c = epoll_create1(0);
	ep_b = epoll_create1(0);
	ep_a = epoll_create1(0);
	require(efd >= 0 && ep_c >= 0 && ep_b >= 0 && ep_a >= 0, "an eventfd and three epolls");
	require(!epoll_ctl(ep_c, EPOLL_CTL_ADD, efd, &ev) &&
		    !epoll_ctl(ep_b, EPOLL_CTL_ADD, ep_c, &ev) &&
		    !epoll_ctl(ep_a, EPOLL_CTL_ADD, ep_b, &ev),
		"C watches the eventfd, B watches C, A watches B");
	end_ms = mono_ms() + RUN_MS;
	t[0] = start_thread(toggler, NULL);
	t[1] = start_thread(churner, NULL);
	t[2] = start_thread(poller, (void *)(intptr_t)ep_b);
	t[3] = start_thread(poller, (void *)(intptr_t)ep_a);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[2], &polls[0]);
	pthread_join(t[3], &polls[1]);
	ok(!bad_poll,
	   "%ld polls of B and %ld of A while the eventfd toggled: each failed "
	   "or answered nothing but POLLIN",
	   (long)polls[0], (long)polls[1]);

	/* Afterwards: the items are there again (or added now), and the
	 * epolls report the eventfd's state. */
	epoll_ctl(ep_c, EPOLL_CTL_ADD, efd, &ev);
	epoll_ctl(ep_b, EPOLL_CTL_ADD, ep_c, &ev);
	ok(epoll_wait(ep_a, &out, 1, 0) == 0 && epoll_wait(ep_b, &out, 1, 0) == 0,
	   "with the eventfd drained, neither epoll reports an event");
	require(write(efd, &v, sizeof v) == sizeof v, "write the eventfd");
	ok(epoll_wait(ep_b, &out, 1, 0) == 1 && out.events == EPOLLIN,
	   "once it is readable, B reports it");
	ok(epoll_wait(ep_a, &out, 1, 0) == 1 && out.events == EPOLLIN, "and A reports B");
	close(ep_a);
	close(ep_b);
	close(ep_c);
	close(efd);
	return done();
}
