/* sched_setaffinity and sched_getaffinity, per thread as on Linux: the
 * caller moves to a CPU of its new mask before the call returns and stays
 * there; another thread computing elsewhere is moved too; fork and
 * pthread_create inherit the mask; the errors, in Linux's order. */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "threads.h"

static volatile int spinner_cpu = -1;
static volatile int stop;

static cpu_set_t one_cpu(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return s;
}

/* True if 2000 readings of this thread's CPU, over 20 ms, all say cpu. */
static bool stays_on(int cpu)
{
	long end = mono_ms() + 20;
	int reads = 0;

	while (reads < 2000 || mono_ms() < end) {
		if (sched_getcpu() != cpu)
			return false;
		reads++;
	}
	return true;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		spinner_cpu = sched_getcpu();
	return NULL;
}

/* The spinner's CPU once it has been cpu for 20 ms running, within 2 s;
 * -1 if it never settled there. */
static int spinner_settles_on(int cpu)
{
	long end = mono_ms() + 2000, since = -1;

	while (mono_ms() < end) {
		if (spinner_cpu != cpu)
			since = -1;
		else if (since < 0)
			since = mono_ms();
		else if (mono_ms() - since >= 20)
			return cpu;
	}
	return -1;
}

static bool mask_is(pid_t tid, int cpu)
{
	cpu_set_t got, want = one_cpu(cpu);

	return sched_getaffinity(tid, sizeof got, &got) == 0 && CPU_EQUAL(&got, &want);
}

static void test_self(int ncpu)
{
	cpu_set_t all, s;
	int status;

	require(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity");
	is_int(CPU_COUNT(&all), ncpu, "every online CPU in the mask to start with");
	for (int cpu = 0; cpu < 2 && cpu < ncpu; cpu++) {
		s = one_cpu(cpu);
		ok(sched_setaffinity(0, sizeof s, &s) == 0 && stays_on(cpu) && mask_is(0, cpu),
		   "bound to CPU %d: runs there at once and stays, and the mask says so", cpu);
	}
	pid_t pid = fork();

	if (pid == 0)
		_exit(mask_is(0, ncpu > 1) && stays_on(ncpu > 1) ? 0 : 1);
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0,
	   "a forked child inherits the mask and runs on that CPU");
	require(sched_setaffinity(0, sizeof all, &all) == 0, "unbind");
}

static void *report_mask(void *arg)
{
	(void)arg;
	return (void *)(long)(mask_is(0, 0) && stays_on(0));
}

/* Moves a thread computing on the other CPU onto this one's, then back. */
static void test_other_thread(int ncpu)
{
	cpu_set_t s = one_cpu(0);
	pthread_t t;
	void *ret;

	if (ncpu < 2) {
		skip("one CPU", "another thread moved by sched_setaffinity");
		skip("one CPU", "a thread created by a bound one inherits the mask");
		return;
	}
	require(sched_setaffinity(0, sizeof s, &s) == 0, "bind to CPU 0");
	s = one_cpu(1);
	t = start_thread(spinner, NULL); /* inherits {0}, shares CPU 0 with us */
	ok(pthread_setaffinity_np(t, sizeof s, &s) == 0 && spinner_settles_on(1) == 1 &&
	       (s = one_cpu(0), pthread_setaffinity_np(t, sizeof s, &s) == 0) &&
	       spinner_settles_on(0) == 0,
	   "a thread sharing CPU 0 moved to CPU 1 by another thread's call, and back while it computes there");
	stop = 1;
	pthread_join(t, NULL);
	t = start_thread(report_mask, NULL);
	pthread_join(t, &ret);
	ok(ret == (void *)1, "a thread created by a bound one inherits the mask");
}

static void test_errors(void)
{
	cpu_set_t s, none;
	pid_t pid;

	CPU_ZERO(&none);
	is_errno(sched_setaffinity(0, sizeof none, &none), EINVAL, "an empty mask: EINVAL");
	s = one_cpu(CPU_SETSIZE - 1);
	is_errno(sched_setaffinity(0, sizeof s, &s), EINVAL,
		 "only a CPU that is not there: EINVAL");
	is_errno(syscall(SYS_sched_setaffinity, 0, 0, &s), EINVAL,
		 "length 0 (nothing read, so no CPU): EINVAL");
	is_errno(syscall(SYS_sched_setaffinity, 0, 8, (void *)1), EFAULT,
		 "a bad mask pointer: EFAULT");
	is_errno(syscall(SYS_sched_setaffinity, -1, 8, (void *)1), EFAULT,
		 "EFAULT before ESRCH (the mask is read first)");
	if ((pid = fork()) == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	s = one_cpu(0);
	is_errno(sched_setaffinity(pid, sizeof s, &s), ESRCH, "a reaped pid: ESRCH");
	is_errno(sched_setaffinity(-1, sizeof s, &s), ESRCH, "pid -1: ESRCH");
	is_errno(sched_getaffinity(pid, sizeof s, &s), ESRCH,
		 "sched_getaffinity of a reaped pid: ESRCH");
}

int main(void)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	plan(13 + (ncpu > 1));
	test_self(ncpu);
	test_other_thread(ncpu);
	test_errors();
	return done();
}
