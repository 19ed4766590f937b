/* CPU-time clocks (see cpuclock.h): sampled from the ticks the scheduler
 * charged each thread, and for a process its threads' plus its exited
 * threads' (proc/rusage.c). */
#include "proc/cpuclock.h"
#include "arch/x86_64/timer.h"
#include "lib/spinlock.h"
#include "proc/group.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "proc/rusage.h"
#include "proc/task.h"
#include "proc/pid_ns.h"
#include <uapi/errno.h>

#define CLOCKFD			       3
#define MAKE_CLOCK(pid, thread, which) ((int)((unsigned)~(pid) << 3) | ((thread) ? 4 : 0) | (which))

bool cpuclock_id(int clk)
{
	return clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID ||
	       (clk < 0 && CPUCLOCK_WHICH(clk) != CLOCKFD);
}

int cpuclock_normalise(int clk)
{
	if (clk == CLOCK_PROCESS_CPUTIME_ID)
		return MAKE_CLOCK(0, false, CPUCLOCK_SCHED);
	if (clk == CLOCK_THREAD_CPUTIME_ID)
		return MAKE_CLOCK(0, true, CPUCLOCK_SCHED);
	return clk;
}

bool cpuclock_is_own_thread(int clk)
{
	clk = cpuclock_normalise(clk);
	return CPUCLOCK_PERTHREAD(clk) &&
	       (CPUCLOCK_PID(clk) == 0 || CPUCLOCK_PID(clk) == task_nr(current()));
}

/* Ticks to ns for the clock's kind. */
static uint64_t sample(int which, uint64_t uticks, uint64_t sticks)
{
	return (which == CPUCLOCK_VIRT ? uticks : uticks + sticks) * TICK_NS;
}

int cpuclock_read(int clk, uint64_t *ns)
{
	int pid, which;
	struct task *t;
	uint64_t u, s;

	clk = cpuclock_normalise(clk);
	pid = CPUCLOCK_PID(clk), which = CPUCLOCK_WHICH(clk);
	if (which > CPUCLOCK_SCHED || pid < 0)
		return -EINVAL;
	spin_lock(&proc_lock);
	t = pid ? task_find_locked_vnr(pid) : current();
	/* A thread clock: a thread of the caller's process; a process clock:
	 * a process id (its leader's), as Linux's lookup_task. */
	if (!t || task_exited(t) ||
	    (CPUCLOCK_PERTHREAD(clk) ? t->group != current()->group : pid && !task_is_leader(t))) {
		spin_unlock(&proc_lock);
		return -EINVAL;
	}
	if (CPUCLOCK_PERTHREAD(clk))
		u = t->utime_ticks, s = t->stime_ticks;
	else
		group_cpu_ticks_locked(t->group, &u, &s);
	spin_unlock(&proc_lock);
	*ns = sample(which, u, s);
	return 0;
}
