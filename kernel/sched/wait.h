/*
 * Wait queues: a task sleeps on a queue until someone wakes it.  The
 * standard loop avoids lost wake-ups: the sleeper queues itself and marks
 * itself sleeping *before* testing the condition, so a wake-up that comes
 * between the test and schedule() just makes it runnable again.
 */
#ifndef SCHED_WAIT_H
#define SCHED_WAIT_H

#include <stdbool.h>
#include "arch/x86_64/percpu.h"
#include "lib/list.h"
#include "lib/spinlock.h"

/* Kernel-internal results that never reach user space: a wait cut short by
 * a signal.  ERESTARTSYS restarts the call after an SA_RESTART handler (or
 * when no handler ran), else becomes EINTR; ERESTARTNOINTR restarts it
 * whatever the handler (FUTEX_LOCK_PI); ERESTARTNOHAND restarts only if
 * no handler ran (proc/signal.c). */
#define ERESTARTSYS    512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514

struct wait_queue {
	struct spinlock lock; /* protects sleepers */
	struct list_head sleepers;
};

struct wait_entry {
	struct task *task; /* made runnable by a wake-up, unless func is set */
	/*
	 * Called by wake_up() instead, under the queue's lock (it may unqueue
	 * we): relays a wake-up to another queue (net/dgram.c peer_wake,
	 * fs/event/eventpoll.c).  key: the poll events the wake-up is about (0:
	 * unknown, any).  Returns whether it woke a task; only an exclusive
	 * entry's answer counts.
	 */
	bool (*func)(struct wait_entry *we, unsigned int key);
	/* A wake_up() ends its exclusive entries at the first whose func woke
	 * a task (Linux's WQ_FLAG_EXCLUSIVE, for EPOLLEXCLUSIVE); the others
	 * are all called.  Needs func; set before the entry is queued. */
	bool exclusive;
	struct list_head link; /* in a queue's sleepers, or empty */
};

/* A wait entry for the current task, ready for prepare_to_wait. */
#define DEFINE_WAIT(name)                                                                          \
	struct wait_entry name = {.task = this_cpu()->current, .link = LIST_HEAD_INIT(name.link)}

void wait_queue_init(struct wait_queue *wq, const char *name);
/* Queues the current task on wq and marks it sleeping (interruptible). */
void prepare_to_wait(struct wait_queue *wq, struct wait_entry *we);
/* Marks the current task runnable and takes it off wq. */
void finish_wait(struct wait_queue *wq, struct wait_entry *we);
/* Makes every sleeper on wq runnable (or calls its func), except the
 * exclusive entries after the first that woke a task. */
void wake_up(struct wait_queue *wq);
/* wake_up for a change that only made the poll events key (POLLIN, ...)
 * true: lets epoll pass over items that do not watch them (Linux's
 * wake_up_poll).  key must cover every event the change may raise. */
void wake_up_poll(struct wait_queue *wq, unsigned int key);
/* wake_up_poll with wq->lock already held: a waker that sets the condition
 * under that lock, so that the sleeper (which tests it under the lock too)
 * cannot return and free the queue before the wake-up is done with it
 * (block/bio.c's submit_bio_wait). */
void wake_up_locked(struct wait_queue *wq, unsigned int key);
/* For func entries, which have no task to put to sleep: wait_add queues we
 * on wq unless it is queued already; wait_remove unqueues it (harmless if
 * it is not queued). */
void wait_add(struct wait_queue *wq, struct wait_entry *we);
void wait_remove(struct wait_queue *wq, struct wait_entry *we);
/* Whether a task or entry is queued on wq now (a hint: it may change as
 * soon as the queue's lock is dropped). */
bool wait_queue_active(struct wait_queue *wq);
/* Whether wq has a sleeper or entry, read without its lock (Linux's
 * wq_has_sleeper): a waker that made its condition true calls it to
 * skip an empty queue's wake-up.  The full barrier orders the
 * condition's store before the read; the sleeper's prepare_to_wait
 * queues it, then takes the scheduler's lock (a locked instruction: a
 * full barrier), before its test.
 * So either the sleeper sees the condition or the waker sees it. */
static inline bool wait_queue_has_sleeper(struct wait_queue *wq)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&wq->sleepers.next, __ATOMIC_RELAXED) != &wq->sleepers;
}
/* True if the current task has a signal that should end a wait (-EINTR). */
bool signal_pending(void);
void schedule(void);

/*
 * Sleeps until cond holds: 0, or -ERESTARTSYS if a signal arrives first
 * (the call restarts after an SA_RESTART handler, else fails with EINTR;
 * see ERESTARTSYS above).  cond is evaluated with no lock held; callers that
 * need one re-check under it.
 */
#define wait_event_interruptible(wq, cond)                                                         \
	({                                                                                         \
		DEFINE_WAIT(__we);                                                                 \
		int __ret = 0;                                                                     \
		for (;;) {                                                                         \
			prepare_to_wait((wq), &__we);                                              \
			if (cond)                                                                  \
				break;                                                             \
			if (signal_pending()) {                                                    \
				__ret = -ERESTARTSYS;                                              \
				break;                                                             \
			}                                                                          \
			schedule();                                                                \
		}                                                                                  \
		finish_wait((wq), &__we);                                                          \
		__ret;                                                                             \
	})

#endif
