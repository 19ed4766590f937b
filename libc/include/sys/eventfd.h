/*
 * eventfd() (newlib has no <sys/eventfd.h>): flags from kernel/uapi with
 * Linux's values, and glibc's eventfd_read/eventfd_write helpers.
 */
#ifndef _SYS_EVENTFD_H
#define _SYS_EVENTFD_H

#include <stdint.h>
#include <uapi/eventfd.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t eventfd_t;

/* eventfd2(2): flags are EFD_SEMAPHORE, EFD_NONBLOCK, EFD_CLOEXEC, EFD_CLOFORK. */
int eventfd(unsigned int initval, int flags);
/* One 8-byte read or write of the counter: 0, or -1 and errno. */
int eventfd_read(int fd, eventfd_t *value);
int eventfd_write(int fd, eventfd_t value);

#ifdef __cplusplus
}
#endif
#endif
