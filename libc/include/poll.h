/*
 * poll() (newlib has no <poll.h>): struct pollfd and POLL* from kernel/uapi.
 */
#ifndef _POLL_H
#define _POLL_H

#include <uapi/poll.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long nfds_t;

int poll(struct pollfd *fds, nfds_t nfds, int timeout);

#ifdef __cplusplus
}
#endif
#endif
