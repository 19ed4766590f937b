/*
 * Grace periods on the host (sched/grace.h): the tests have no CPUs to
 * wait for, so a retired object waits in a queue until grace_drain(), which
 * stands for "every reader is done".
 */
#include <pthread.h>
#include <stddef.h>
#include "sched/grace.h"

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct grace_head *queue, **queue_tail = &queue; /* oldest first */

void grace_defer(struct grace_head *head, void (*fn)(struct grace_head *head))
{
	head->fn = fn;
	head->next = NULL;
	pthread_mutex_lock(&queue_lock);
	*queue_tail = head;
	queue_tail = &head->next;
	pthread_mutex_unlock(&queue_lock);
}

void grace_drain(void)
{
	struct grace_head *h, *next;

	pthread_mutex_lock(&queue_lock);
	h = queue;
	queue = NULL;
	queue_tail = &queue;
	pthread_mutex_unlock(&queue_lock);
	for (; h; h = next) {
		next = h->next;
		h->fn(h);
	}
}
