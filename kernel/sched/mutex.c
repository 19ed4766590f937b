/*
 * Sleeping mutexes (mutex.h): the three-state lock of Drepper's "Futexes
 * Are Tricky", with a wait queue in place of the futex.  Uncontended, a
 * lock is one compare-exchange and an unlock one exchange.
 */
#include "sched/mutex.h"
#include "lib/printk.h"
#include "proc/task.h"

void mutex_init(struct mutex *m, const char *name)
{
	m->state = 0;
	m->owner = NULL;
	m->name = name;
	wait_queue_init(&m->waiters, name);
}

/* Sleeps until m looks free; a spurious return only costs another try. */
static void mutex_wait(struct mutex *m)
{
	DEFINE_WAIT(we);

	prepare_to_wait(&m->waiters, &we);
	/* Queued (under the queue's lock) before this load: an unlock that
	 * cleared the state later sees us when it takes the queue's lock to
	 * wake it, so no wake-up is lost. */
	if (__atomic_load_n(&m->state, __ATOMIC_RELAXED) == 2)
		schedule();
	finish_wait(&m->waiters, &we);
}

void mutex_lock(struct mutex *m)
{
	int free = 0;

	might_sleep();
	lockdep_acquire(m->name, m, true);
	/* Acquire: the critical section starts after the previous unlock. */
	if (!__atomic_compare_exchange_n(&m->state, &free, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		/* Contended: mark it (2) so the unlock wakes the queue. */
		while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
			mutex_wait(m);
	}
	m->owner = current();
}

void mutex_unlock(struct mutex *m)
{
	if (m->owner != current())
		panic("mutex_unlock: %s not held by %s", m->name, current()->name);
	lockdep_release(m->name, m, true);
	m->owner = NULL;
	/* Release (and a full barrier, as an exchange): the section happens
	 * before the next holder's. */
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_SEQ_CST) == 2)
		wake_up(&m->waiters);
}
