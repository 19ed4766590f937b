/*
 * Polling: how a file tells poll() it may become ready.  A file's .poll
 * operation calls poll_wait() on each wait queue whose wake_up() can change
 * its readiness, then returns its current mask (POLLIN, POLLOUT, POLLHUP,
 * ...).  poll.c owns struct poll_table: it queues the polling task on those
 * queues so a sleeping poll() wakes when any of them is woken.
 */
#ifndef FS_POLL_H
#define FS_POLL_H

#include <uapi/poll.h>

struct file;
struct poll_table;
struct wait_queue;

/* Registers the caller of poll() on wq; does nothing when pt is NULL
 * (a readiness check that will not sleep). */
void poll_wait(struct file *f, struct wait_queue *wq, struct poll_table *pt);

#endif
