/*
 * Sleeping locks: a task that finds the mutex held sleeps instead of
 * spinning, so the holder may fault, copy user memory or sleep itself.
 * Never taken in interrupt context or under a spinlock (might_sleep says
 * so in LOCKDEP builds).  Not recursive.
 */
#ifndef SCHED_MUTEX_H
#define SCHED_MUTEX_H

#include <stdbool.h>
#include "sched/wait.h"

struct mutex {
	/* 0 free, 1 held, 2 held and someone may sleep on waiters (atomic). */
	int state;
	struct task *owner; /* the holder, checked by mutex_unlock */
	struct wait_queue waiters;
	const char *name; /* its lockdep class */
};

void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

#endif
