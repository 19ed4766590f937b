/*
 * A process's real-time interval timer (ITIMER_REAL): alarm, setitimer
 * and getitimer.  SIGALRM when it expires, then every interval if one is
 * set.  It survives execve and is not inherited by fork (Linux, POSIX).
 * ITIMER_VIRTUAL and ITIMER_PROF are not implemented (EINVAL).
 */
#ifndef PROC_ITIMER_H
#define PROC_ITIMER_H

#include <stdint.h>
#include "proc/ktimer.h"

struct task;

struct itimer {
	struct ktimer timer;  /* armed while the timer runs */
	uint64_t interval_ns; /* reload after each expiry, 0: one shot (itimer_lock) */
};

/* A new task's timer, disarmed (task_alloc: fork children start so). */
void itimer_init(struct task *t);
/* Disarms t's timer for good (exit: the task is about to go away). */
void itimer_exit(struct task *t);

#endif
