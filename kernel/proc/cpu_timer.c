/* CPU time in the tick (see cpu_timer.h): POSIX timers of CPU-time clocks
 * and RLIMIT_CPU.  Runs on the CPU that charged the task, under proc_lock
 * (the process's CPU time sums its threads) and the group's siglock. */
#include "proc/cpu_timer.h"
#include "arch/x86_64/timer.h"
#include "lib/spinlock.h"
#include "proc/cpuclock.h"
#include "proc/group.h"
#include "proc/posix_timer.h"
#include "proc/proc.h"
#include "proc/rlimit.h"
#include "proc/rusage.h"
#include "proc/task.h"

#define FIRE_MAX 8 /* timers fired per tick and process; the rest next tick */

void cpu_timer_armed_locked(struct posix_timer *pt, bool armed)
{
	__atomic_add_fetch(&pt->group->cpu_timers_armed, armed ? 1 : -1, __ATOMIC_RELAXED);
}

/* g's CPU time in ns: its threads', live and exited (proc_lock held). */
static uint64_t process_ns_locked(struct thread_group *g)
{
	uint64_t u, s;

	group_cpu_ticks_locked(g, &u, &s);
	return (u + s) * TICK_NS;
}

unsigned long cpu_timer_clock_locked(const struct posix_timer *pt)
{
	const struct task *t = pt->clock_thread;

	if (!CPUCLOCK_PERTHREAD(pt->clock))
		return process_ns_locked(pt->group);
	return (t->utime_ticks + t->stime_ticks) * TICK_NS; /* frozen once t exited */
}

/* Fires g's CPU timers that are due (proc_lock held). */
static void fire_due_locked(struct thread_group *g)
{
	struct posix_timer *pt, *fired[FIRE_MAX];
	uint64_t process_now = process_ns_locked(g);
	int n = 0;

	spin_lock(&g->siglock);
	list_for_each_entry(pt, &g->timers, link)
	{
		uint64_t now;
		if (!pt->cpu || !pt->expires || pt->deleted || pt->notify == SIGEV_NONE ||
		    n == FIRE_MAX)
			continue;
		now = CPUCLOCK_PERTHREAD(pt->clock) ? cpu_timer_clock_locked(pt) : process_now;
		if (now >= pt->expires && posix_timer_expire_locked(pt, now))
			fired[n++] = pt;
	}
	spin_unlock(&g->siglock);
	/* Still listed: deleting one takes proc_lock's siglock after us. */
	for (int i = 0; i < n; i++)
		posix_timer_notify_locked(fired[i]);
}

/*
 * RLIMIT_CPU, as Linux's check_process_timers: at the hard limit SIGKILL;
 * at the soft one SIGXCPU, and the soft limit moves a second on, so the
 * next comes a second later (getrlimit shows it, as on Linux).
 */
static void check_rlimit_cpu_locked(struct thread_group *g, uint64_t soft)
{
	uint64_t hard = __atomic_load_n(&g->rlim[RLIMIT_CPU].rlim_max, __ATOMIC_RELAXED);
	uint64_t secs = process_ns_locked(g) / NSEC_PER_SEC;

	if (hard != RLIM_INFINITY && secs >= hard) {
		signal_send_process_locked(g, SIGKILL, 0);
		return;
	}
	if (secs < soft)
		return;
	signal_send_process_locked(g, SIGXCPU, 0);
	if (soft < hard)
		__atomic_store_n(&g->rlim[RLIMIT_CPU].rlim_cur, soft + 1, __ATOMIC_RELAXED);
}

void cpu_timers_tick(struct task *t)
{
	struct thread_group *g = t->group;
	uint64_t soft;
	bool timers;

	if (!g || task_exited(t))
		return; /* the idle task; an exiting thread */
	timers = __atomic_load_n(&g->cpu_timers_armed, __ATOMIC_RELAXED) > 0;
	soft = rlimit_soft(g, RLIMIT_CPU);
	if (!timers && soft == RLIM_INFINITY)
		return;
	spin_lock(&proc_lock);
	if (g->state == GROUP_LIVE) {
		if (timers)
			fire_due_locked(g);
		if (soft != RLIM_INFINITY)
			check_rlimit_cpu_locked(g, soft);
	}
	spin_unlock(&proc_lock);
}
