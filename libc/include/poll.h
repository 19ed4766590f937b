/*
 * poll() (newlib has no <poll.h>): struct pollfd and POLL* from kernel/uapi.
 */
#ifndef _POLL_H
#define _POLL_H

#include <signal.h>
#include <time.h>
#include <uapi/poll.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long nfds_t;

int poll(struct pollfd *fds, nfds_t nfds, int timeout);
/* poll with a timespec timeout (NULL: none; updated by the kernel only in
 * the library's copy, as glibc) and SIGMASK blocked while it waits. */
int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);

#ifdef __cplusplus
}
#endif
#endif
