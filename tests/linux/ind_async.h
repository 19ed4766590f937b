/* What the SYSIND_ASYNC tests share: one asynchronous call, the next
 * record of a queue, and whether a record waits. */
#ifndef LINUX_IND_ASYNC_H
#define LINUX_IND_ASYNC_H

#include "fdkernel_abi.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>

/* syscall_indirect(SYSIND_ASYNC | FLAGS, nr, args, queue Q): the token,
 * or -errno of the submission. */
static inline long async_call(unsigned long flags, int q, long nr, const unsigned long *args)
{
	long r = syscall(__NR_syscall_indirect, SYSIND_ASYNC | flags, (uint64_t)0, nr, args, q);
	return r < 0 ? -errno : r;
}

#define ASYNC(flags, q, nr, ...) async_call(flags, q, nr, (const unsigned long[6]){__VA_ARGS__})

/* The next record of q (waiting for it); result -99998 if none could be read. */
static inline struct sysind_completion next_rec(int q)
{
	struct sysind_completion c = {0, -99999};

	if (read(q, &c, sizeof(c)) != sizeof(c))
		c.result = -99998;
	return c;
}

/* Whether a record waits in q within ms milliseconds. */
static inline bool readable(int q, int ms)
{
	struct pollfd p = {.fd = q, .events = POLLIN};
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

#endif
