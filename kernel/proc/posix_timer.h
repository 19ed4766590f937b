/*
 * POSIX per-process timers (timer_create, timer_settime, timer_gettime,
 * timer_getoverrun, timer_delete).  A timer measures a wall clock on a
 * kernel timer (sched/ktimer.h: CLOCK_REALTIME, CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME) or a CPU-time clock counted by the tick
 * (proc/cpu_timer.c: CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID);
 * at expiry it queues its own signal entry (proc/sigqueue.h) for its
 * process (SIGEV_SIGNAL) or one of its threads (SIGEV_THREAD_ID), or
 * nothing (SIGEV_NONE).  While the entry is still queued, further
 * expirations count as overruns.
 *
 * A process's timers are on its group's list (siglock), each counted
 * against RLIMIT_SIGPENDING as Linux's preallocated signal is; exec and
 * the process's end delete them all.
 */
#ifndef PROC_POSIX_TIMER_H
#define PROC_POSIX_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/list.h"
#include "sched/ktimer.h"
#include "proc/sigqueue.h"

struct task;
struct thread_group;

#define SIGEV_SIGNAL	0
#define SIGEV_NONE	1
#define SIGEV_THREAD	2 /* the C library's; the kernel treats it as SIGEV_SIGNAL */
#define SIGEV_THREAD_ID 4

/*
 * One timer.  Every field but the ktimer's own is under its group's
 * siglock; the timer is freed by timer_delete or the process's end, after
 * ktimer_cancel_sync, so the tick's callback never sees it freed.
 */
struct posix_timer {
	struct list_head link; /* on group->timers */
	int id;
	int clock;		    /* the clock id, CPU clocks normalised (cpuclock.h) */
	int notify;		    /* SIGEV_NONE, SIGEV_SIGNAL or SIGEV_THREAD_ID */
	bool cpu;		    /* a CPU-time clock: the tick checks it, no ktimer */
	bool deleted;		    /* being deleted: the callback leaves it alone */
	struct thread_group *group; /* its process: outlives it (deleted first) */
	/* The thread its signal goes to (SIGEV_THREAD_ID), and the thread whose
	 * CPU clock it measures (a thread clock), or NULL: each referenced
	 * (task_get) until the timer is deleted. */
	struct task *target, *clock_thread;
	uint64_t expires;  /* the next expiry: monotonic ns (wall clocks) or the
			    * CPU clock's ns; 0: disarmed */
	uint64_t interval; /* ns, 0: one-shot */
	/* Periods of an absolute wall-clock time before the monotonic clock's
	 * start, which expires skips: overruns of the first expiry. */
	uint64_t early;
	int overrun_last; /* the overrun of the last signal taken (getoverrun) */
	struct ktimer ktimer;
	struct sigqueue q; /* its signal (SIGQ_TIMER) */
};

/* Called by sigqueue.c when a timer's entry is taken (siglock held): the
 * overrun it carried becomes timer_getoverrun's answer. */
void posix_timer_dequeued_locked(struct sigqueue *q, struct sig_info *info);
/* Deletes every timer of the caller's process (exec, the last thread's
 * exit).  No other thread of it runs then. */
void posix_timers_exit(struct thread_group *g);
/* Timers allocated now, all processes (the leak check's count). */
unsigned long posix_timer_count(void);

/* For cpu_timer.c: a CPU timer reached its expiry at `now` on its clock
 * (proc_lock and siglock held): its signal is queued or counted as an
 * overrun, it is re-armed or disarmed.  True if the receiver must be
 * told (posix_timer_notify_locked after dropping siglock). */
bool posix_timer_expire_locked(struct posix_timer *pt, uint64_t now);
void posix_timer_notify_locked(struct posix_timer *pt);

#endif
