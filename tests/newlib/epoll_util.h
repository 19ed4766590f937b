/* What the epoll tests share: one-call wrappers that return the events of
 * a single wait, and the flag set names. */
#ifndef EPOLL_UTIL_H
#define EPOLL_UTIL_H

#include "fd_util.h"

#include <sys/epoll.h>
#include <sys/socket.h>

/* ADD/MOD fd to ep with events, data = fd. */
static inline int ep_ctl(int ep, int op, int fd, unsigned int events)
{
	struct epoll_event ev = {.events = events, .data.u64 = (uint64_t)fd};

	return epoll_ctl(ep, op, fd, &ev);
}

/* One epoll_wait for a single event: its mask (0 on timeout, -1 on error);
 * *fd gets its data when fd is not NULL. */
static inline long ep_wait1(int ep, int timeout, int *fd)
{
	struct epoll_event ev = {0};
	int n = epoll_wait(ep, &ev, 1, timeout);

	if (n <= 0)
		return n;
	if (fd)
		*fd = (int)ev.data.u64;
	return ev.events;
}

/* epoll_wait with maxevents 64 and timeout 0: how many are ready. */
static inline int ep_count(int ep)
{
	struct epoll_event evs[64];

	return epoll_wait(ep, evs, 64, 0);
}

#endif
