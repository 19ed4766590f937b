/*
 * A process's interval timers: alarm, setitimer and getitimer.
 * ITIMER_REAL counts wall-clock time on a kernel timer and sends SIGALRM;
 * ITIMER_VIRTUAL (user CPU time, SIGVTALRM) and ITIMER_PROF (user and
 * kernel CPU time, SIGPROF) are counted down by the tick that charges the
 * running task.  Each reloads from its interval when it expires.  They
 * survive execve and are not inherited by fork (Linux, POSIX).
 */
#ifndef PROC_ITIMER_H
#define PROC_ITIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "sched/ktimer.h"

struct task;
struct thread_group;

/* A CPU-time timer: 0 left means disarmed. */
struct cpu_itimer {
	uint64_t left_ns, interval_ns;
};

/* All under itimer_lock (itimer.c), the ktimer also under ktimer_lock. */
struct itimers {
	struct ktimer real; /* ITIMER_REAL, armed while it runs */
	uint64_t real_interval_ns;
	struct cpu_itimer virt, prof;
};

/* A new process's timers, disarmed (fork children start so). */
void itimer_init(struct thread_group *g);
/* Disarms g's timers for good (its last thread exits, proc_lock held:
 * ITIMER_REAL's callback may be running, waiting for that lock). */
void itimer_exit(struct thread_group *g);
/* Before g's free (no lock held): waits for an ITIMER_REAL callback
 * still running on g, which then found g no longer live. */
void itimer_release(struct thread_group *g);
/* The tick charged t (running, in user mode if user) with one tick: its
 * process's CPU-time timers count it. */
void itimer_tick(struct task *t, bool user);

#endif
