/*
 * timerfd_create(2), timerfd_settime(2) and timerfd_gettime(2): flags
 * (Linux x86_64 values, numeric as in eventfd.h; TFD_CLOFORK is fdkernel's,
 * on O_CLOFORK's bit) and struct itimerspec with Linux's layout.  Shared by
 * the kernel and libc/.
 */
#ifndef UAPI_TIMERFD_H
#define UAPI_TIMERFD_H

/* timerfd_create flags. */
#define TFD_NONBLOCK 00004000
#define TFD_CLOEXEC  02000000
#define TFD_CLOFORK  040000000 /* fdkernel: the new fd is close-on-fork */

/* timerfd_settime flags. */
#define TFD_TIMER_ABSTIME	(1 << 0)
#define TFD_TIMER_CANCEL_ON_SET (1 << 1)

#endif
