/*
 * epoll: plain system calls; epoll_pwait's sigset goes through translate.c
 * (newlib's signal numbering is not Linux's).
 */
#include <sys/epoll.h>

#include "syscall.h"
#include "translate.h"

int epoll_create(int size)
{
	return sys_call(__NR_epoll_create, size);
}

int epoll_create1(int flags)
{
	return sys_call(__NR_epoll_create1, flags);
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event)
{
	return sys_call(__NR_epoll_ctl, epfd, op, fd, event);
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout)
{
	return sys_call(__NR_epoll_wait, epfd, events, maxevents, timeout);
}

int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
		const sigset_t *sigmask)
{
	unsigned long lset;

	if (!sigmask)
		return sys_call(__NR_epoll_pwait, epfd, events, maxevents, timeout, 0, 8);
	lset = sigset_to_linux(sigmask);
	return sys_call(__NR_epoll_pwait, epfd, events, maxevents, timeout, &lset, 8);
}
