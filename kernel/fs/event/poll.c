/*
 * poll(2) and the poll table: a sleeping poll() is queued on the wait queue
 * of every file it watches (file_ops.poll -> poll_wait), so any wake_up()
 * that can change readiness wakes it to scan again.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define POLL_CHUNK  32 /* entries per allocation */
#define NSEC_PER_MS 1000000ULL

/* One registration: the polling task queued on wq, which f keeps alive. */
struct poll_entry {
	struct wait_queue *wq;
	struct wait_entry we;
	struct file *file; /* referenced until the poll ends */
};

struct poll_chunk {
	struct poll_chunk *next;
	unsigned int used;
	struct poll_entry entries[POLL_CHUNK];
};

/*
 * The registrations of one poll() call.  Only the polling task touches it
 * (it lives on that task's stack), so it needs no lock; each wait queue's
 * own lock covers the entry's link.
 */
struct poll_wqueues {
	struct poll_table pt; /* queue = poll_queue */
	struct poll_chunk *chunks;
	int error; /* -ENOMEM if a registration could not be recorded */
};

/* A free entry in pt, or NULL when memory runs out. */
static struct poll_entry *poll_entry_new(struct poll_wqueues *pt)
{
	struct poll_chunk *c = pt->chunks;

	if (!c || c->used == POLL_CHUNK) {
		c = kmalloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = pt->chunks;
		c->used = 0;
		pt->chunks = c;
	}
	return &c->entries[c->used++];
}

/* poll()'s registration: the task itself sleeps on wq, f referenced. */
static void poll_queue(struct file *f, struct wait_queue *wq, struct poll_table *table)
{
	struct poll_wqueues *pt = container_of(table, struct poll_wqueues, pt);
	struct poll_entry *e;

	if (pt->error)
		return;
	e = poll_entry_new(pt);
	if (!e) {
		pt->error = -ENOMEM;
		return;
	}
	file_get(f);
	e->file = f;
	e->wq = wq;
	e->we = (struct wait_entry){.task = current(), .link = LIST_HEAD_INIT(e->we.link)};
	prepare_to_wait(wq, &e->we);
}

/* Takes the task off every queue it joined and drops the files. */
static void poll_table_free(struct poll_wqueues *pt)
{
	struct poll_chunk *c, *next;

	for (c = pt->chunks; c; c = next) {
		next = c->next;
		for (unsigned int i = 0; i < c->used; i++) {
			finish_wait(c->entries[i].wq, &c->entries[i].we);
			file_put(c->entries[i].file);
		}
		kfree(c);
	}
	pt->chunks = NULL;
}

/* revents for one pollfd (its events and always, plus POLLNVAL); registers
 * on the file's queues when pt is set. */
static short poll_one(const struct pollfd *pfd, short always, struct poll_table *pt)
{
	struct file *f;
	unsigned int mask = POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM;
	bool put;

	if (pfd->fd < 0)
		return 0;
	f = files_lookup_light(current()->files, pfd->fd, &put);
	if (!f)
		return POLLNVAL;
	if (f->ops->poll)
		mask = f->ops->poll(f, pt); /* a registration takes its own reference */
	if (put)
		file_put(f);
	return (short)(mask & (unsigned short)(pfd->events | always));
}

/* One pass over fds: how many have revents. */
static int poll_scan(struct pollfd *fds, unsigned long nfds, short always, struct poll_table *pt)
{
	int count = 0;

	for (unsigned long i = 0; i < nfds; i++) {
		fds[i].revents = poll_one(&fds[i], always, pt);
		if (fds[i].revents) {
			count++;
			pt = NULL; /* something is ready: no sleep, no more queues */
		}
	}
	return count;
}

/* Marks the task sleeping before a scan, so a wake-up during it is not lost. */
static void poll_prepare(uint64_t deadline_ns)
{
	if (deadline_ns == POLL_FOREVER)
		sched_set_state(current(), TASK_SLEEPING);
	else if (deadline_ns)
		sched_arm_deadline(deadline_ns);
}

/* Undoes poll_prepare(): running again, the sleep timer disarmed. */
static void poll_finish(uint64_t deadline_ns)
{
	if (deadline_ns == POLL_FOREVER)
		sched_set_state(current(), TASK_RUNNABLE);
	else if (deadline_ns)
		sched_disarm_deadline();
}

/*
 * Scans until something is ready, the deadline passes or a signal comes.
 * As Linux's do_poll, a pending signal wins over a timeout: even a poll that
 * only checks (deadline 0) and finds nothing ready is interrupted.
 */
long poll_kernel(struct pollfd *fds, unsigned long nfds, short always, uint64_t deadline_ns)
{
	struct poll_wqueues table = {.pt.queue = poll_queue};
	struct poll_table *pt = deadline_ns ? &table.pt : NULL;
	long count;

	for (;;) {
		poll_prepare(deadline_ns);
		count = poll_scan(fds, nfds, always, pt);
		pt = NULL; /* queued once, on the first pass */
		if (!count)
			count = table.error;
		if (!count && signal_pending())
			count = -ERESTARTNOHAND;
		if (count || clock_monotonic_ns() >= deadline_ns)
			break;
		schedule();
	}
	poll_finish(deadline_ns);
	poll_table_free(&table);
	return count;
}

long poll_user(struct pollfd *ufds, unsigned long nfds, uint64_t deadline_ns)
{
	size_t size = nfds * sizeof(struct pollfd);
	struct pollfd *fds;
	long ret;

	if (nfds > files_get_nofile(current()->files))
		return -EINVAL;
	fds = kmalloc(size + 1);
	if (!fds)
		return -ENOMEM;
	ret = size ? copy_from_user(fds, ufds, size) : 0;
	if (!ret) {
		ret = poll_kernel(fds, nfds, POLLERR | POLLHUP, deadline_ns);
		if (size && copy_to_user(ufds, fds, size)) /* revents, even when interrupted */
			ret = -EFAULT;
	}
	kfree(fds);
	return ret;
}

/* A negative timeout waits forever; 0 only checks. */
SYSCALL_DEFINE3(poll, struct pollfd *, ufds, unsigned long, nfds, int, timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? POLL_FOREVER : 0;

	if (timeout_ms > 0)
		deadline = clock_monotonic_ns() + (uint64_t)timeout_ms * NSEC_PER_MS;
	return poll_user(ufds, nfds, deadline);
}
