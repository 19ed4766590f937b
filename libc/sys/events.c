/*
 * Event fds and the multiplexers: eventfd, timerfd, select, pselect and
 * ppoll.  Flags are Linux's values already (uapi/eventfd.h, timerfd.h);
 * clocks and signal sets are translated.
 */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/timerfd.h>

#include "syscall.h"
#include "translate.h"

int eventfd(unsigned int initval, int flags)
{
	return sys_call(__NR_eventfd2, initval, flags);
}

int eventfd_read(int fd, eventfd_t *value)
{
	return sys_call(__NR_read, fd, value, sizeof(*value)) < 0 ? -1 : 0;
}

int eventfd_write(int fd, eventfd_t value)
{
	return sys_call(__NR_write, fd, &value, sizeof(value)) < 0 ? -1 : 0;
}

/* An unknown clock goes to the kernel as -1, which answers EINVAL. */
int timerfd_create(clockid_t clock, int flags)
{
	return sys_call(__NR_timerfd_create, clock_to_linux(clock), flags);
}

int timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		    struct itimerspec *old_value)
{
	return sys_call(__NR_timerfd_settime, fd, flags, new_value, old_value);
}

int timerfd_gettime(int fd, struct itimerspec *cur)
{
	return sys_call(__NR_timerfd_gettime, fd, cur);
}

/* struct timeval has Linux's layout; the kernel updates *timeout. */
int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
	return sys_call(__NR_select, nfds, r, w, e, timeout);
}

/* The kernel updates the timeout it is given: pselect's stays const. */
int pselect(int nfds, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout,
	    const sigset_t *sigmask)
{
	struct timespec ts = timeout ? *timeout : (struct timespec){0, 0};
	unsigned long lset = sigmask ? sigset_to_linux(sigmask) : 0;
	struct {
		const unsigned long *set;
		unsigned long size;
	} pack = {sigmask ? &lset : NULL, sizeof(lset)};

	return sys_call(__NR_pselect6, nfds, r, w, e, timeout ? &ts : NULL, &pack);
}

int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask)
{
	struct timespec ts = timeout ? *timeout : (struct timespec){0, 0};
	unsigned long lset = sigmask ? sigset_to_linux(sigmask) : 0;

	return sys_call(__NR_ppoll, fds, nfds, timeout ? &ts : NULL, sigmask ? &lset : NULL,
			sizeof(lset));
}
