/* What the scheduling-policy tests share: struct sched_attr as the
 * kernel takes it (glibc has no wrapper), a raw system call that returns
 * -errno, /proc/self/stat's fields, the clocks, a child's status.  After
 * testutil.h. */
#ifndef LINUX_SCHED_ATTR_H
#define LINUX_SCHED_ATTR_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

/* Field n (1-based, n > 2) of /proc/self/stat. */
static inline long stat_field(int n)
{
	char buf[1024], *s;
	long v = 0;

	if (read_text("/proc/self/stat", buf, sizeof buf) <= 0 || !(s = strrchr(buf, ')')))
		return -9999;
	s += 2; /* field 3 */
	for (int i = 3; i < n && s; i++)
		if ((s = strchr(s, ' ')))
			s++;
	if (s)
		v = strtol(s, NULL, 10);
	return v;
}

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ms of CPU time of process pid (0: this thread). */
static inline long cpu_ms(pid_t pid)
{
	struct timespec ts;
	clockid_t clk = CLOCK_THREAD_CPUTIME_ID;

	if (pid)
		require(clock_getcpuclockid(pid, &clk) == 0, "clock_getcpuclockid");
	require(clock_gettime(clk, &ts) == 0, "clock_gettime on a CPU clock");
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The wait status of child pid, once it ended. */
static inline int reap(pid_t pid)
{
	int status = -1;
	waitpid(pid, &status, 0);
	return status;
}

#endif
