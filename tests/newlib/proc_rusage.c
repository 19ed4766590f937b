/* getrusage: RUSAGE_SELF grows while computing, RUSAGE_THREAD is within it,
 * RUSAGE_CHILDREN takes a child's time when it is reaped (not before, not
 * on a WNOWAIT peek) including the grandchildren it reaped; wait4's rusage
 * is the child's; EINVAL and EFAULT. */
#include <errno.h>
#include <fdkernel.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define NR_getrusage	98
#define NR_wait4	61
#define NR_waitid	247
#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD	1
#define P_PID		1
#define WEXITED_	4
#define WNOWAIT_	0x01000000

struct rusage_linux {
	long utime_sec, utime_usec, stime_sec, stime_usec;
	long counts[14];
};

static long cpu_ms(const struct rusage_linux *ru)
{
	return (ru->utime_sec + ru->stime_sec) * 1000 + (ru->utime_usec + ru->stime_usec) / 1000;
}

static long usage_ms(int who)
{
	struct rusage_linux ru;
	return syscall(NR_getrusage, who, &ru) == 0 ? cpu_ms(&ru) : -1;
}

/* Computes until this process has used ms more CPU time (10 s of wall
 * time at most); true if it got there. */
static bool burn(long ms)
{
	long start = usage_ms(RUSAGE_SELF);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (volatile int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 10)
			return false;
	} while (usage_ms(RUSAGE_SELF) - start < ms);
	return true;
}

/* A child that computes 200 ms, or (grandparent) forks and reaps one. */
static pid_t start_child(bool via_grandchild)
{
	pid_t pid;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (via_grandchild) {
			pid_t g = start_child(false);
			waitpid(g, NULL, 0);
			_exit(0);
		}
		_exit(burn(200) ? 0 : 1);
	}
	return pid;
}

static void test_self(void)
{
	long before = usage_ms(RUSAGE_SELF);
	ok(before >= 0, "RUSAGE_SELF: %ld ms", before);
	ok(burn(200), "computing 200 ms shows in RUSAGE_SELF");
	ok(usage_ms(RUSAGE_THREAD) <= usage_ms(RUSAGE_SELF) + 10,
	   "RUSAGE_THREAD within RUSAGE_SELF");
	is_errno(syscall(NR_getrusage, 5, &(struct rusage_linux){0}), EINVAL, "who 5: EINVAL");
	is_errno(syscall(NR_getrusage, RUSAGE_SELF, (void *)1), EFAULT, "into (void *)1: EFAULT");
}

static void test_children(void)
{
	struct rusage_linux ru;
	char info[128];
	int status;
	long c0 = usage_ms(RUSAGE_CHILDREN), c1;
	pid_t pid = start_child(false);
	ok(syscall(NR_waitid, P_PID, pid, info, WEXITED_ | WNOWAIT_, NULL) == 0 &&
	       usage_ms(RUSAGE_CHILDREN) == c0,
	   "a WNOWAIT peek adds nothing");
	ok(syscall(NR_wait4, pid, &status, 0, &ru) == pid && exited_with(status, 0) &&
	       cpu_ms(&ru) >= 200,
	   "wait4's rusage: the child's %ld ms", cpu_ms(&ru));
	c1 = usage_ms(RUSAGE_CHILDREN);
	ok(c1 - c0 >= 200, "RUSAGE_CHILDREN grew by %ld ms when it was reaped", c1 - c0);
	pid = start_child(true);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "a child reaps a grandchild");
	ok(usage_ms(RUSAGE_CHILDREN) - c1 >= 200, "the grandchild's time comes with it (%ld ms)",
	   usage_ms(RUSAGE_CHILDREN) - c1);
}

int main(void)
{
	plan(10);
	test_self();
	test_children();
	return done();
}
