/* The nice value and the normal policies weigh in the scheduler, as
 * Linux's CFS: two CPU-bound processes bound to one CPU share it by their
 * weights, so a nice 19 one (weight 15 against 1024: Linux gives it about
 * 1.5%) or a SCHED_IDLE one (3 against 1024) gets far less than a quarter
 * of what a nice 0 one gets; and a process that slept while another ran
 * alone does not come back owed that time (it shares the CPU at once).
 * Nothing here depends on speed: both tasks share one CPU, so their CPU
 * times are compared with each other, each read from the CPU clocks. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "testutil.h"
#include "sched_attr.h"

#define SHARE_MS 300 /* the nice 0 task's CPU time before the look */
#define ALONE_MS 500 /* how long the other runs alone while one sleeps */

/* Shared between the parent and its children (MAP_SHARED). */
static volatile struct shared {
	pid_t other;		/* the competing child */
	long main_ms, other_ms; /* their CPU times at the look */
	int done;
} * sh;

static void spin_forever(void)
{
	for (;;)
		;
}

/* Child: weighted down as asked, then CPU-bound. */
static pid_t fork_spinner(int policy, int nice)
{
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		struct sched_param p = {0};
		if (sys(SYS_sched_setscheduler, 0, policy, (long)&p, 0) ||
		    setpriority(PRIO_PROCESS, 0, nice))
			_exit(1);
		spin_forever();
	}
	return pid;
}

/* Child: spins until it used SHARE_MS of CPU, then reads the other's. */
static pid_t fork_measurer(void)
{
	pid_t pid = fork();

	require(pid >= 0, "fork");
	if (pid == 0) {
		while (cpu_ms(0) < SHARE_MS)
			;
		sh->other_ms = cpu_ms(sh->other);
		sh->main_ms = cpu_ms(0);
		_exit(0);
	}
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	reap(pid);
}

/* A nice 0 process and one of policy and nice share one CPU; the
 * other's CPU time is read while it waits, so it is a whole count. */
static void share(int policy, int nice, const char *what)
{
	memset((void *)sh, 0, sizeof *sh);
	sh->other = fork_spinner(policy, nice);
	pid_t main = fork_measurer();
	int status = reap(main);
	stop(sh->other);
	ok(exited_with(status, 0) && sh->main_ms >= SHARE_MS && sh->other_ms * 4 < sh->main_ms,
	   "%s gets less than a quarter of a nice 0 one's CPU time (%ld ms to %ld ms)", what,
	   sh->other_ms, sh->main_ms);
}

/* The sleeper: sleeps until the other process ran ALONE_MS alone, then
 * spins for SHARE_MS of CPU and sees how much the other got meanwhile. */
static void sleeper(void)
{
	while (cpu_ms(sh->other) < ALONE_MS)
		sleep_ms(10);
	long own = cpu_ms(0), other = cpu_ms(sh->other);
	while (cpu_ms(0) - own < SHARE_MS)
		;
	sh->other_ms = cpu_ms(sh->other) - other;
	sh->main_ms = cpu_ms(0) - own;
	_exit(0);
}

static void no_banked_credit(void)
{
	memset((void *)sh, 0, sizeof *sh);
	sh->other = fork_spinner(SCHED_OTHER, 0);
	pid_t pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0)
		sleeper();
	int status = reap(pid);
	stop(sh->other);
	ok(exited_with(status, 0) && sh->other_ms * 4 >= sh->main_ms,
	   "a task that slept while another ran %d ms alone shares the CPU on waking "
	   "(the other got %ld ms of its %ld ms)",
	   ALONE_MS, sh->other_ms, sh->main_ms);
}

/* Everything on the CPU this process runs on, so the children compete. */
static void pin(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	require(cpu >= 0, "sched_getcpu");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	require(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity");
}

int main(void)
{
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(sh != MAP_FAILED, "mmap");
	plan(3);
	pin();
	share(SCHED_OTHER, 19, "a nice 19 process");
	share(SCHED_IDLE, 0, "a SCHED_IDLE process");
	no_banked_credit();
	return done();
}
