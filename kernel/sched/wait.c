/*
 * Wait queues (see wait.h).  A sleeper's state changes under the scheduler
 * lock (sched_set_state / sched_wake); the queue's own lock only guards
 * its list.
 */
#include "sched/wait.h"
#include "sched/sched.h"

void wait_queue_init(struct wait_queue *wq, const char *name)
{
	spin_init(&wq->lock, name);
	list_init(&wq->sleepers);
}

void prepare_to_wait(struct wait_queue *wq, struct wait_entry *we)
{
	might_sleep(); /* before the queue's lock, which it would report */
	spin_lock(&wq->lock);
	if (list_empty(&we->link))
		list_add_tail(&we->link, &wq->sleepers);
	spin_unlock(&wq->lock);
	sched_set_state(we->task, TASK_SLEEPING);
}

void finish_wait(struct wait_queue *wq, struct wait_entry *we)
{
	sched_set_state(we->task, TASK_RUNNABLE);
	spin_lock(&wq->lock);
	list_del(&we->link);
	spin_unlock(&wq->lock);
}

void wake_up(struct wait_queue *wq)
{
	wake_up_poll(wq, 0);
}

/* wake_up_locked's body, inline in wake_up_poll too: every pipe or socket
 * transfer wakes a queue, and the call was a tenth of the wake-up. */
static inline void wake_entries(struct wait_queue *wq, unsigned int key)
{
	struct wait_entry *we, *next;
	bool exclusive_done = false;

	list_for_each_entry_safe(we, next, &wq->sleepers, link)
	{
		if (!we->func)
			sched_wake(we->task);
		else if (!we->exclusive)
			we->func(we, key);
		else if (!exclusive_done)
			exclusive_done = we->func(we, key);
	}
}

void wake_up_poll(struct wait_queue *wq, unsigned int key)
{
	spin_lock(&wq->lock);
	wake_entries(wq, key);
	spin_unlock(&wq->lock);
}

void wake_up_locked(struct wait_queue *wq, unsigned int key)
{
	wake_entries(wq, key);
}

bool wait_queue_active(struct wait_queue *wq)
{
	bool active;

	spin_lock(&wq->lock);
	active = !list_empty(&wq->sleepers);
	spin_unlock(&wq->lock);
	return active;
}

void wait_add(struct wait_queue *wq, struct wait_entry *we)
{
	spin_lock(&wq->lock);
	if (list_empty(&we->link))
		list_add_tail(&we->link, &wq->sleepers);
	spin_unlock(&wq->lock);
}

void wait_remove(struct wait_queue *wq, struct wait_entry *we)
{
	spin_lock(&wq->lock);
	list_del(&we->link);
	spin_unlock(&wq->lock);
}
