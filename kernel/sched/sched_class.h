/*
 * What the scheduler's files share inside sched/: sched.c (the core: the
 * switch, wake-ups, the tick), rt.c (the real-time class), deadline.c
 * (the deadline class) and fair.c (the normal policies).  Everything here
 * is called with sched_lock held.
 */
#ifndef SCHED_SCHED_CLASS_H
#define SCHED_SCHED_CLASS_H

#include "lib/rbtree.h"
#include "lib/spinlock.h"
#include "sched/sched.h"

/* The run queues, every task's state and queue links, and the switch
 * itself (sched.c). */
extern struct spinlock sched_lock;

/* The core (sched.c). */
/* Queues runnable t in its class (not if it runs, is queued or is a
 * throttled deadline task). */
void sched_enqueue(struct task_sched *t);
/* t, a real-time or deadline task, was queued: the CPU of its mask that
 * runs the least urgent task below it reschedules. */
void sched_preempt_for(struct task_sched *t);
/* t changed class or place in it (lowered: less urgent than it was). */
void sched_requeue(struct task_sched *t, bool lowered);

/* The real-time class (rt.c). */
/* The real-time tasks that may run (run_link), highest priority first. */
extern struct list_head rt_queue;
/* Queues real-time task t behind its equals, or in front of them (head). */
void rt_enqueue(struct task_sched *t, bool head);
/* Whether c's real-time work used its share of the period. */
bool rt_throttled(const struct cpu *c);
/* Each tick on c: counts the throttling period. */
void rt_period_tick(const struct cpu *c);
/* The tick charges real-time task t, running on c, to c's share: whether
 * it gives its turn up (its RR quantum or c's share is spent). */
bool rt_tick(const struct cpu *c, struct task_sched *t);

/* The deadline class (deadline.c). */
/* The deadline tasks that may run (run_link), earliest deadline first. */
extern struct list_head dl_queue;
void dl_enqueue(struct task_sched *t);
/* Deadline task t wakes at now: its instance, by the CBS wake-up rule. */
void dl_wakeup(struct task_sched *t, uint64_t now);
/* Deadline task t's runtime is spent: true if it is throttled until its
 * next period (false: that began already, and it is replenished). */
bool dl_throttle(struct task_sched *t);
/* t leaves the deadline class, if in it: its bandwidth is free again. */
void dl_leave(struct task_sched *t);
void dl_task_init(struct task_sched *t);

/* The fair class (fair.c): tasks of no other class, not idle. */
bool fair_task(const struct task_sched *t);
void fair_task_init(struct task_sched *t);
/* t's weight and wake-up behaviour for a normal policy and nice value. */
void fair_set(struct task_sched *t, int policy, int nice);
void fair_enqueue(struct task_sched *t);
void fair_dequeue(struct task_sched *t);
/* Whether no fair task waits (a racy look, for the idle loop). */
bool fair_empty(void);
/* The waiting fair task c runs next (left queued), or NULL; skip, which
 * yielded, only if no other may run on c. */
struct task_sched *fair_pick(const struct cpu *c, const struct task_sched *skip);
/* The tick charges curr, a running fair task, a tick: whether a waiting
 * one is now behind it, so it should give the CPU up. */
bool fair_tick(struct task_sched *curr);
/* t comes back after waiting (fresh: a new task): its virtual runtime
 * against min_vruntime. */
void fair_place(struct task_sched *t, bool fresh);
/* Whether woken fair task t should preempt curr, running on a CPU t may
 * run on. */
bool fair_wakeup_preempts(struct task_sched *curr, const struct task_sched *t);

#endif
