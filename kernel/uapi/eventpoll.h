/*
 * epoll(7): event bits, epoll_ctl operations, struct epoll_event and the
 * epoll_create1 flags, Linux x86_64 values, shared by the kernel and libc/.
 * EPOLL_CLOFORK is fdkernel's, the same bit as O_CLOFORK (as EPOLL_CLOEXEC
 * is O_CLOEXEC's).  Semantics: docs/epoll.md.
 */
#ifndef UAPI_EVENTPOLL_H
#define UAPI_EVENTPOLL_H

#include <stdint.h>

#define EPOLLIN	       0x00000001
#define EPOLLPRI       0x00000002
#define EPOLLOUT       0x00000004
#define EPOLLERR       0x00000008
#define EPOLLHUP       0x00000010
#define EPOLLNVAL      0x00000020
#define EPOLLRDNORM    0x00000040
#define EPOLLRDBAND    0x00000080
#define EPOLLWRNORM    0x00000100
#define EPOLLWRBAND    0x00000200
#define EPOLLMSG       0x00000400
#define EPOLLRDHUP     0x00002000
#define EPOLLEXCLUSIVE (1U << 28) /* wake one of several epolls (docs/epoll.md) */
#define EPOLLWAKEUP    (1U << 29) /* needs CAP_BLOCK_SUSPEND: dropped, as Linux without it */
#define EPOLLONESHOT   (1U << 30) /* disarmed after one report, until EPOLL_CTL_MOD */
#define EPOLLET	       (1U << 31) /* edge-triggered */

#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3

#define EPOLL_CLOEXEC 02000000	/* O_CLOEXEC */
#define EPOLL_CLOFORK 040000000 /* fdkernel: O_CLOFORK */

typedef union epoll_data {
	void *ptr;
	int fd;
	uint32_t u32;
	uint64_t u64;
} epoll_data_t;

/* Packed on x86_64 (12 bytes), as Linux's. */
struct epoll_event {
	uint32_t events;
	epoll_data_t data;
} __attribute__((packed));

#endif
