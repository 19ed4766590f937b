/*
 * epoll(7) (newlib has no <sys/epoll.h>): struct epoll_event and EPOLL*
 * from kernel/uapi, Linux's values (EPOLL_CLOFORK is fdkernel's).
 */
#ifndef _SYS_EPOLL_H
#define _SYS_EPOLL_H

#include <signal.h>
#include <uapi/eventpoll.h>

#ifdef __cplusplus
extern "C" {
#endif

int epoll_create(int size);
int epoll_create1(int flags);
int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event);
int epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout);
/* sigmask NULL: as epoll_wait. */
int epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout,
		const sigset_t *sigmask);

#ifdef __cplusplus
}
#endif
#endif
