/*
 * Sleeping mutexes (mutex.h): the three-state lock of Drepper's "Futexes
 * Are Tricky", with a wait queue in place of the futex.  Uncontended, a
 * lock is one compare-exchange and an unlock one exchange.
 */
#include "sched/mutex.h"
#include "lib/printk.h"
#include "sched/sched.h"

/*
 * Where the sleepers of every mutex wait, hashed by the mutex's address
 * (Linux's bit wait queues).  A wake-up may reach sleepers of another
 * mutex of the same queue: they look at their own mutex again and go back
 * to sleep.  An unlock touches the global queue, never the mutex, after
 * releasing it, so a holder may free a mutex the moment it has it.
 */
#define MUTEX_WAIT_BITS 6
static struct wait_queue mutex_waitq[1 << MUTEX_WAIT_BITS];

void mutex_sys_init(void)
{
	for (unsigned i = 0; i < 1u << MUTEX_WAIT_BITS; i++)
		wait_queue_init(&mutex_waitq[i], "mutex_wait");
}

static struct wait_queue *waitq_of(struct mutex *m)
{
	return &mutex_waitq[((uint64_t)m * 0x9e3779b97f4a7c15UL) >> (64 - MUTEX_WAIT_BITS)];
}

void mutex_init(struct mutex *m, const char *name)
{
	m->state = 0;
	m->owner = NULL;
	m->name = name;
}

/* Sleeps until m looks free; a spurious return only costs another try. */
static void mutex_wait(struct mutex *m)
{
	struct wait_queue *wq = waitq_of(m);
	DEFINE_WAIT(we);

	prepare_to_wait(wq, &we);
	/* Queued (under the queue's lock) before this load: an unlock that
	 * cleared the state later sees us when it takes the queue's lock to
	 * wake it, so no wake-up is lost. */
	if (__atomic_load_n(&m->state, __ATOMIC_RELAXED) == 2)
		schedule();
	finish_wait(wq, &we);
}

/* Out of line, so that the uncontended lock builds no frame for the
 * sleep's wait entry. */
static __attribute__((noinline)) void mutex_lock_contended(struct mutex *m)
{
	/* Mark it (2) so the unlock wakes the queue. */
	while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
		mutex_wait(m);
}

void mutex_lock(struct mutex *m)
{
	int free = 0;

	might_sleep();
	lockdep_acquire(m->name, m, true);
	/* Acquire: the critical section starts after the previous unlock. */
	if (!__atomic_compare_exchange_n(&m->state, &free, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		mutex_lock_contended(m);
	m->owner = current();
}

/* Only the holder stores itself as owner, and clears it before letting
 * go: another task's store never makes it equal. */
bool mutex_held(const struct mutex *m)
{
	return __atomic_load_n(&m->owner, __ATOMIC_RELAXED) == current();
}

void mutex_unlock(struct mutex *m)
{
	struct wait_queue *wq = waitq_of(m);

	if (m->owner != current())
		panic("mutex_unlock: %s not held by %s", m->name, task_sched(current())->name);
	lockdep_release(m->name, m, true);
	m->owner = NULL;
	/* Release (and a full barrier, as an exchange): the section happens
	 * before the next holder's. */
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_SEQ_CST) == 2)
		wake_up(wq);
}
