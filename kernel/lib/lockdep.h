/*
 * A small lockdep, in `make LOCKDEP=1` builds only (lib/lockdep.c): lock
 * classes named by the lock's name, the order in which they nest checked
 * against every order seen before (a cycle panics with both chains), and
 * might_sleep() in every function that may sleep (it panics when called
 * holding a spinlock or with interrupts off).  docs/smp.md, "Lock order".
 * In normal builds every hook is empty.
 */
#ifndef LIB_LOCKDEP_H
#define LIB_LOCKDEP_H

#include <stdbool.h>

#define LOCKDEP_TASK_HELD 8 /* mutexes one task may hold at once */

/*
 * The mutexes one task holds, oldest first: each task's own record, in
 * the scheduler's part of its struct task (sched/task_sched.h), so that
 * lockdep reaches the running task's as this_cpu()->lockdep (set at every
 * switch) without knowing what a task is.  Only the task itself touches
 * it; name points at the task's name, for reports.
 */
struct lockdep_task {
	const void *held[LOCKDEP_TASK_HELD];
	int cls[LOCKDEP_TASK_HELD];
	int depth;
	const char *name;
};

#ifdef LOCKDEP
/* spin_lock and mutex_lock (sleeping) call these before they wait for the
 * lock (the order check), the unlocks before they release it. */
void lockdep_acquire(const char *name, const void *lock, bool sleeping);
void lockdep_release(const char *name, const void *lock, bool sleeping);
void lockdep_might_sleep(const char *where);
/* Locks of class name are never held two at once, by a task or a CPU
 * (an order between two of them would be one no class order shows):
 * taking a second panics. */
void lockdep_single(const char *name);
#define LOCKDEP_STR2(x) #x
#define LOCKDEP_STR(x)	LOCKDEP_STR2(x)
#define might_sleep()	lockdep_might_sleep(__FILE__ ":" LOCKDEP_STR(__LINE__))
/* lockdeptest=: "cycle" takes two locks in both orders, "sleep" calls a
 * function that may sleep under a spinlock; either must panic. */
__attribute__((noreturn)) void lockdep_misuse(const char *how);
/* Prints every order seen, "lockdep: order A -> B" (the end of a test run:
 * docs/smp.md's lock order is checked against it). */
void lockdep_print_orders(void);
#else
static inline void lockdep_print_orders(void)
{
}
void lockdep_misuse(const char *how); /* says the kernel has no LOCKDEP */
static inline void lockdep_acquire(const char *name, const void *lock, bool sleeping)
{
	(void)name;
	(void)lock;
	(void)sleeping;
}
static inline void lockdep_release(const char *name, const void *lock, bool sleeping)
{
	(void)name;
	(void)lock;
	(void)sleeping;
}
static inline void lockdep_single(const char *name)
{
	(void)name;
}
#define might_sleep()                                                                              \
	do {                                                                                       \
	} while (0)
#endif

#endif
