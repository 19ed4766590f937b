/* getrusage: RUSAGE_SELF grows while computing, RUSAGE_THREAD is within it,
 * RUSAGE_CHILDREN takes a child's time when it is reaped (not before, not
 * on a WNOWAIT peek) including the grandchildren it reaped; wait4's rusage
 * is the child's; EINVAL and EFAULT.  ru_maxrss: the high-water resident
 * size, kept after munmap and across exec, the most of any reaped child or
 * grandchild, 0 for a new child's children; VmHWM agrees. */
#include <errno.h>
#include <fdkernel.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
/* KiB a process that wrote n MiB shows at least.  Linux reads its RSS
 * from per-CPU counters folded in batches, so a figure may come short by
 * a batch per CPU (a few hundred KiB); fdkernel's is exact. */
#define WROTE_KB(n) ((n) * 1024L - 1024)

struct rusage_linux {
	long utime_sec, utime_usec, stime_sec, stime_usec;
	long maxrss; /* KiB */
	long counts[13];
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

static long maxrss_kb(int who)
{
	struct rusage_linux ru;
	return syscall(NR_getrusage, who, &ru) == 0 ? ru.maxrss : -1;
}

/* Maps and writes mib MiB, returning the mapping (NULL on failure). */
static char *touch_mib(long mib)
{
	size_t len = (size_t)mib << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	return p;
}

/* /proc/self/status's VmHWM in kB, or -1. */
static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void test_maxrss_self(void)
{
	long before = maxrss_kb(RUSAGE_SELF), after;
	char *p = touch_mib(8);
	/* Linux's may read 0 here: a small process's pages can all sit in
	 * per-CPU counts not yet folded (WROTE_KB). */
	ok(p && (before > 0 || (before == 0 && !on_fdkernel())), "RUSAGE_SELF ru_maxrss: %ld KiB",
	   before);
	after = maxrss_kb(RUSAGE_SELF);
	ok(after > before && after >= WROTE_KB(8), "writing 8 MiB raised it to %ld KiB", after);
	long hwm = vm_hwm_kb();
	ok(hwm >= WROTE_KB(8), "VmHWM: %ld kB", hwm);
	munmap(p, 8 << 20);
	long unmapped = maxrss_kb(RUSAGE_SELF), thread = maxrss_kb(RUSAGE_THREAD);
	ok(unmapped >= after, "it stays after munmap (%ld KiB)", unmapped);
	ok(thread >= after, "RUSAGE_THREAD: %ld KiB", thread);
}

/* A child that writes mib MiB then exits; grandchild_mib: it first forks
 * and reaps one that writes that much; exec_self: it then runs this
 * program again as `proc_rusage maxrss <MiB>`, which checks that its
 * ru_maxrss kept the old image's. */
static pid_t start_toucher(long mib, long grandchild_mib, const char *exec_self)
{
	pid_t pid;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (maxrss_kb(RUSAGE_CHILDREN) != 0)
			_exit(2); /* a new process has reaped nothing */
		if (grandchild_mib) {
			pid_t g = start_toucher(grandchild_mib, 0, NULL);
			int st;
			if (waitpid(g, &st, 0) != g || !exited_with(st, 0))
				_exit(3);
		}
		if (mib && !touch_mib(mib))
			_exit(4);
		if (exec_self) {
			char mb[32];
			snprintf(mb, sizeof(mb), "%ld", mib);
			char *argv[] = {(char *)exec_self, "maxrss", mb, NULL}, *envp[] = {NULL};
			execve(exec_self, argv, envp);
			_exit(5);
		}
		_exit(0);
	}
	return pid;
}

static void test_maxrss_children(const char *self)
{
	struct rusage_linux ru;
	char info[128];
	int status;
	long c0 = maxrss_kb(RUSAGE_CHILDREN), c;
	pid_t pid = start_toucher(16, 0, NULL);
	bool peeked = syscall(NR_waitid, P_PID, pid, info, WEXITED_ | WNOWAIT_, NULL) == 0;
	c = maxrss_kb(RUSAGE_CHILDREN);
	ok(peeked && c == c0, "before the reap RUSAGE_CHILDREN ru_maxrss stays %ld KiB", c);
	bool reaped = syscall(NR_wait4, pid, &status, 0, &ru) == pid && exited_with(status, 0);
	ok(reaped && ru.maxrss >= WROTE_KB(16), "wait4's ru_maxrss: the child's %ld KiB", ru.maxrss);
	c = maxrss_kb(RUSAGE_CHILDREN);
	ok(c >= WROTE_KB(16), "reaped: RUSAGE_CHILDREN %ld KiB", c);
	pid = start_toucher(0, 24, NULL);
	reaped = waitpid(pid, &status, 0) == pid && exited_with(status, 0);
	c = maxrss_kb(RUSAGE_CHILDREN);
	ok(reaped && c >= WROTE_KB(24), "a reaped grandchild's 24 MiB comes with its parent (%ld KiB)",
	   c);
	pid = start_toucher(20, 0, self);
	reaped = waitpid(pid, &status, 0) == pid;
	ok(reaped && exited_with(status, 0),
	   "after exec a child's ru_maxrss keeps the 20 MiB it had (status %#x)", status);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "maxrss"))
		return maxrss_kb(RUSAGE_SELF) >= WROTE_KB(atol(argv[2])) ? 0 : 6;
	require(argv[0][0] == '/', "an absolute argv[0]");
	plan(20);
	test_self();
	test_children();
	test_maxrss_self();
	test_maxrss_children(argv[0]);
	return done();
}
