/*
 * timerfd (newlib has no <sys/timerfd.h>): flags from kernel/uapi with
 * Linux's values; struct itimerspec is newlib's, with Linux's layout.
 */
#ifndef _SYS_TIMERFD_H
#define _SYS_TIMERFD_H

#include <time.h>
#include <uapi/timerfd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* clock: CLOCK_REALTIME, CLOCK_MONOTONIC or CLOCK_BOOTTIME (newlib's ids). */
int timerfd_create(clockid_t clock, int flags);
int timerfd_settime(int fd, int flags, const struct itimerspec *new_value,
		    struct itimerspec *old_value);
int timerfd_gettime(int fd, struct itimerspec *cur);

#ifdef __cplusplus
}
#endif
#endif
