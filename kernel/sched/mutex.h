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

/*
 * Three words: the sleepers wait on a wait queue shared by every mutex
 * whose address hashes to it (mutex.c), so a mutex can sit in every open
 * file (fs/file.h) without growing it past its heap size class.
 */
struct mutex {
	/* 0 free, 1 held, 2 held and someone may sleep on its queue (atomic). */
	int state;
	struct task *owner; /* the holder, checked by mutex_unlock */
	const char *name;   /* its lockdep class */
};

/* The hashed wait queues, at boot before any mutex is contended. */
void mutex_sys_init(void);
void mutex_init(struct mutex *m, const char *name);
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
/* Whether the current task holds m: a caller that may or may not hold
 * it already, and an assertion of a lock rule. */
bool mutex_held(const struct mutex *m);

#endif
