/* What the scheduling-policy tests share: struct sched_attr as the
 * kernel takes it (glibc has no wrapper), and a raw system call that
 * returns -errno. */
#ifndef LINUX_SCHED_ATTR_H
#define LINUX_SCHED_ATTR_H

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

static inline long sys(long nr, long a, long b, long c, long d)
{
	long r = syscall(nr, a, b, c, d);
	return r < 0 ? -errno : r;
}

#endif
