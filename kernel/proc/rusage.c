/*
 * getrusage(2) and the rusage of wait4/waitid.  CPU time is what the timer
 * tick charged (proc/sched: utime_ticks, stime_ticks per thread); a
 * process's exited threads are summed in its group, and its reaped
 * children's totals in the group's children_* (reap.c), as Linux's
 * signal_struct keeps them.  ru_maxrss is the most user pages mapped at
 * once (mm/paging's hiwater_rss): of the current space, of those the
 * process left (exec, exit) and, for children, the most of any reaped
 * one.  Fault, I/O and switch counts are 0.
 */
#include "proc/rusage.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define RUSAGE_SELF	(0)
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD	1

/* Linux's struct rusage on x86_64 (144 bytes). */
struct rusage_k {
	int64_t utime_sec, utime_usec, stime_sec, stime_usec;
	int64_t maxrss;	    /* KiB */
	int64_t counts[13]; /* ixrss ... nivcsw: not counted */
};

void group_cpu_ticks_locked(struct thread_group *g, uint64_t *uticks, uint64_t *sticks)
{
	struct task *t;

	*uticks = g->exited_utime;
	*sticks = g->exited_stime;
	list_for_each_entry(t, &g->threads, group_link)
	{
		*uticks += t->utime_ticks;
		*sticks += t->stime_ticks;
	}
}

int put_rusage(void *urusage, uint64_t uticks, uint64_t sticks, size_t maxrss)
{
	const uint64_t usec_per_tick = 1000000 / TIMER_HZ;
	struct rusage_k ru = {
	    .utime_sec = uticks / TIMER_HZ,
	    .utime_usec = uticks % TIMER_HZ * usec_per_tick,
	    .stime_sec = sticks / TIMER_HZ,
	    .stime_usec = sticks % TIMER_HZ * usec_per_tick,
	    .maxrss = maxrss * (PAGE_SIZE >> 10),
	};

	return copy_to_user(urusage, &ru, sizeof(ru)) ? -EFAULT : 0;
}

/* who: RUSAGE_SELF (the process), RUSAGE_THREAD (the calling thread) or
 * RUSAGE_CHILDREN (reaped children and their reaped children); EINVAL for
 * anything else, EFAULT. */
SYSCALL_DEFINE2(getrusage, int, who, void *, urusage)
{
	struct task *t = current();
	struct thread_group *g = t->group;
	uint64_t u, s;
	size_t maxrss;

	if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD)
		return -EINVAL;
	spin_lock(&proc_lock);
	if (who == RUSAGE_SELF) {
		group_cpu_ticks_locked(g, &u, &s);
	} else if (who == RUSAGE_THREAD) {
		u = t->utime_ticks;
		s = t->stime_ticks;
	} else {
		u = g->children_utime;
		s = g->children_stime;
	}
	/* A thread's is its process's, as Linux's RUSAGE_THREAD reports. */
	maxrss = who == RUSAGE_CHILDREN ? g->children_maxrss : g->maxrss;
	if (who != RUSAGE_CHILDREN && vm_hiwater_pages(t->vm) > maxrss)
		maxrss = vm_hiwater_pages(t->vm);
	spin_unlock(&proc_lock);
	return put_rusage(urusage, u, s, maxrss);
}
