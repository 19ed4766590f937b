/*
 * syscall_indirect(SYSIND_ASYNC, ...): the article's "run this call
 * asynchronously" flag, on the engine io_uring uses.  The call is handed
 * to one of the caller's workers at once and syscall_indirect returns a
 * token; the worker runs it with the other per-call flags in force (fd
 * flags, NOFOLLOW, the signal mask: async_signal_sent), and its (token, result) record goes to the
 * completion queue named by the fifth argument, an fd made by
 * sysind_queue() that read() drains and poll/epoll watch.
 * docs/syscall_indirect.md, "SYSIND_ASYNC".
 */
#include "arch/x86_64/uaccess.h"
#include "async/async.h"
#include "fd/fd_install.h"
#include "fs/event/poll.h"
#include "fs/file.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "proc/group.h"
#include "proc/proc.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/dispatch.h"
#include <uapi/errno.h>
#include <uapi/syscall_indirect.h>
#include <uapi/syscalls.h>

/* Calls a queue holds at most, outstanding or finished and unread, and
 * calls a process has so in all its queues: past either, SYSIND_ASYNC is
 * EAGAIN, so a flood from one process stays bounded however many queues
 * it opens (the engine bounds its workers). */
#define QUEUE_MAX   256
#define PROCESS_MAX 1024
#define READ_MAX    64 /* records one read returns at most */

/*
 * A completion queue.  Lifetime: refs counts its file (dropped by its
 * release) and each call not yet freed.
 */
struct sysind_queue {
	int refs; /* atomic */
	/* Protects done, calls, ncalls, dead and next_token; wake-ups of wq
	 * under it.  Taken before an engine's lock (a cancel). */
	struct spinlock lock;
	struct list_head calls; /* outstanding (struct async_call, by link) */
	struct list_head done;	/* finished, unread, in completion order */
	unsigned int ncalls;	/* outstanding + unread */
	uint64_t next_token;
	bool dead;	      /* its file was released: records are dropped */
	struct wait_queue wq; /* readers and pollers */
};

struct async_call {
	struct async_req ar;
	struct sysind_queue *q; /* referenced until the call is freed */
	/* The submitter, referenced until the call is freed: that keeps its
	 * thread group, charged for the call, allocated (task_free drops
	 * the task's reference on it). */
	struct task *owner;
	/* Its charge on the owner's process was given back when its queue
	 * was closed under it (q->lock): call_free does not again. */
	bool uncharged;
	struct list_head link; /* on q->calls, then q->done (q->lock) */
	uint64_t token;
	long result;
	unsigned long flags; /* the per-call flags, SYSIND_ASYNC cleared */
	int nr;
	uint64_t args[6];
	/* With SYSIND_SIGMASK: the signals that do not interrupt it.  While
	 * it runs, it is on its process's async_masked list by sig_link
	 * (siglock), with worker the task that runs it; a sender that
	 * interrupts it pins it (pins, siglock to raise, atomic to drop)
	 * and its worker waits for the pins to go before it takes the call
	 * off, so no SIGKILL of the sender reaches the worker's next call. */
	bool masked;
	uint64_t sigmask;
	struct list_head sig_link;
	struct task *worker;
	int pins;
};

static unsigned long nqueues; /* atomic: the leak check's count */

unsigned long sysind_queue_count(void)
{
	return __atomic_load_n(&nqueues, __ATOMIC_RELAXED);
}

static void queue_put(struct sysind_queue *q)
{
	if (__atomic_sub_fetch(&q->refs, 1, __ATOMIC_ACQ_REL))
		return;
	kfree(q);
	__atomic_sub_fetch(&nqueues, 1, __ATOMIC_RELAXED);
}

/* A call's charge on its submitter's process: 0 or -EAGAIN. */
static int process_charge(struct thread_group *g)
{
	if (__atomic_add_fetch(&g->async_calls, 1, __ATOMIC_RELAXED) <= PROCESS_MAX)
		return 0;
	__atomic_sub_fetch(&g->async_calls, 1, __ATOMIC_RELAXED);
	return -EAGAIN;
}

static void call_free(struct async_call *c)
{
	struct sysind_queue *q = c->q;
	struct task *owner = c->owner;

	if (!c->uncharged)
		__atomic_sub_fetch(&owner->group->async_calls, 1, __ATOMIC_RELAXED);
	async_req_release(&c->ar);
	kfree(c);
	task_put(owner);
	queue_put(q);
}

/*
 * The calls that may run on a worker: those that wait for something
 * (the point of running them asynchronously) and touch nothing of the
 * calling thread itself.  A call that changes the thread (its signal
 * mask, its registers, exec, exit, clone) or its identity is EINVAL.
 */
static bool async_allowed(int nr)
{
	switch (nr) {
	case __NR_read:
	case __NR_write:
	case __NR_pread64:
	case __NR_pwrite64:
	case __NR_readv:
	case __NR_writev:
	case __NR_poll:
	case __NR_select:
	case __NR_nanosleep:
	case __NR_clock_nanosleep:
	case __NR_accept:
	case __NR_accept4:
	case __NR_connect:
	case __NR_sendto:
	case __NR_recvfrom:
	case __NR_sendmsg:
	case __NR_recvmsg:
	case __NR_wait4:
	case __NR_waitid:
	case __NR_futex:
	case __NR_fsync:
	case __NR_fdatasync:
	case __NR_openat:
	case __NR_close:
	case __NR_epoll_wait:
		return true;
	default:
		return false;
	}
}

/* c, with a mask, is running on worker t: signals may interrupt it. */
static void masked_begin(struct async_call *c, struct task *t)
{
	c->worker = t;
	spin_lock(&t->group->siglock);
	list_add_tail(&c->sig_link, &t->group->async_masked);
	spin_unlock(&t->group->siglock);
}

/* c is done running: no sender finds it, and none still interrupts it
 * once the pins are gone (each ends with its SIGKILL sent, so the
 * worker's flush after the call takes it). */
static void masked_end(struct async_call *c, struct task *t)
{
	spin_lock(&t->group->siglock);
	list_del(&c->sig_link);
	spin_unlock(&t->group->siglock);
	while (__atomic_load_n(&c->pins, __ATOMIC_ACQUIRE))
		sched_yield();
}

void async_signal_sent(struct thread_group *g, struct task *t, int sig)
{
	struct async_call *c, *hit;

	/* Most processes run no masked call: no lock then.  A call listed
	 * as this is read started after the signal, which it need not see. */
	if (__atomic_load_n(&g->async_masked.next, __ATOMIC_RELAXED) == &g->async_masked)
		return;
	/* One at a time: the SIGKILL is sent with siglock dropped (it takes
	 * it), the call pinned meanwhile; a call hit is taken off the list,
	 * so no sender hits it twice. */
	for (;;) {
		hit = NULL;
		spin_lock(&g->siglock);
		list_for_each_entry(c, &g->async_masked, sig_link)
		{
			if ((!t || c->owner == t) && !(c->sigmask & SIGBIT(sig))) {
				hit = c;
				hit->pins++;
				list_del(&hit->sig_link); /* masked_end's del: harmless */
				list_init(&hit->sig_link);
				break;
			}
		}
		spin_unlock(&g->siglock);
		if (!hit)
			return;
		signal_kill_thread(hit->worker); /* its blocking call: -EINTR */
		__atomic_sub_fetch(&hit->pins, 1, __ATOMIC_RELEASE);
	}
}

static long call_run(struct async_req *ar)
{
	struct async_call *c = container_of(ar, struct async_call, ar);
	struct task *t = current();
	long res;

	if (c->masked)
		masked_begin(c, t);
	/* The flags as the synchronous call would have them; a worker never
	 * leaves by the system-call exit that clears them, so it clears them. */
	t->indirect_flags = c->flags | SYSIND_ACTIVE;
	res = syscall_call((uint64_t)c->nr, c->args);
	t->indirect_flags = 0;
	if (c->masked)
		masked_end(c, t);
	return res;
}

/* The record goes to the queue; a dead queue's is dropped. */
static void call_done(struct async_req *ar, long res)
{
	struct async_call *c = container_of(ar, struct async_call, ar);
	struct sysind_queue *q = c->q;
	bool keep;

	spin_lock(&q->lock);
	list_del(&c->link);
	keep = !q->dead;
	if (keep) {
		c->result = res;
		list_add_tail(&c->link, &q->done);
		wake_up_poll(&q->wq, POLLIN | POLLRDNORM);
	} else {
		q->ncalls--;
	}
	spin_unlock(&q->lock);
	if (!keep)
		call_free(c);
}

static const struct file_ops sysind_queue_ops;

long sysind_async_submit(unsigned long flags, uint64_t sigmask, int nr, const uint64_t *uargs,
			 int qfd)
{
	struct file *f;
	struct sysind_queue *q;
	struct async_call *c;
	unsigned int nargs = syscall_params[nr]->n;
	long err;

	if (!async_allowed(nr))
		return -EINVAL;
	if (!(f = files_lookup(current()->files, qfd)))
		return -EBADF;
	err = -EINVAL;
	if (f->ops != &sysind_queue_ops)
		goto out;
	err = -ENOMEM;
	if (!(c = kzalloc(sizeof(*c))))
		goto out;
	err = -EFAULT;
	if (nargs && copy_from_user(c->args, uargs, nargs * sizeof(c->args[0])))
		goto free;
	q = f->priv;
	c->q = q;
	c->nr = nr;
	c->flags = flags & ~(SYSIND_ASYNC | SYSIND_SIGMASK);
	c->masked = flags & SYSIND_SIGMASK;
	c->sigmask = sigmask & ~SIG_UNBLOCKABLE;
	c->ar.run = call_run;
	c->ar.done = call_done;
	if ((err = process_charge(current()->group)))
		goto free;
	c->owner = current();
	task_get(c->owner);
	__atomic_add_fetch(&q->refs, 1, __ATOMIC_RELAXED);
	spin_lock(&q->lock);
	err = q->ncalls >= QUEUE_MAX ? -EAGAIN : 0;
	if (!err) {
		q->ncalls++;
		c->token = ++q->next_token;
		list_add_tail(&c->link, &q->calls);
	}
	spin_unlock(&q->lock);
	if (err) {
		call_free(c);
		goto out;
	}
	err = (long)c->token;
	if (async_punt(&c->ar)) { /* no worker could be made: nothing ran */
		spin_lock(&q->lock);
		list_del(&c->link);
		q->ncalls--;
		spin_unlock(&q->lock);
		call_free(c);
		err = -EAGAIN;
	}
	goto out;
free:
	kfree(c);
out:
	file_put(f);
	return err;
}

/* ---- the queue's file ---- */

/* Takes up to n records off q, waiting for one unless nonblock: how many,
 * or -EAGAIN, -ERESTARTSYS. */
static long take_records(struct sysind_queue *q, struct sysind_completion *out, size_t n,
			 bool nonblock)
{
	size_t got = 0;
	struct async_call *c;
	int err;

	for (;;) {
		spin_lock(&q->lock);
		while (got < n && !list_empty(&q->done)) {
			c = list_first_entry(&q->done, struct async_call, link);
			list_del(&c->link);
			q->ncalls--;
			out[got++] = (struct sysind_completion){c->token, c->result};
			spin_unlock(&q->lock);
			call_free(c);
			spin_lock(&q->lock);
		}
		spin_unlock(&q->lock);
		if (got)
			return (long)got;
		if (nonblock)
			return -EAGAIN;
		if ((err = wait_event_interruptible(
			 &q->wq, __atomic_load_n(&q->done.next, __ATOMIC_ACQUIRE) != &q->done)))
			return err;
	}
}

/* Whole records only: a buffer for none is EINVAL; a fault loses the
 * records taken (as an eventfd's value), EFAULT. */
static long queue_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct sysind_completion recs[READ_MAX];
	size_t n = iov_iter_count(to) / sizeof(recs[0]);
	long got;

	(void)pos;
	if (!n)
		return -EINVAL;
	got = take_records(f->priv, recs, n < READ_MAX ? n : READ_MAX, file_nonblock(f));
	if (got <= 0)
		return got;
	return copy_to_iter_full(recs, (size_t)got * sizeof(recs[0]), to)
		   ? -EFAULT
		   : got * (long)sizeof(recs[0]);
}

static unsigned queue_poll(struct file *f, struct poll_table *pt)
{
	struct sysind_queue *q = f->priv;
	bool ready;

	poll_wait(f, &q->wq, pt);
	spin_lock(&q->lock);
	ready = !list_empty(&q->done);
	spin_unlock(&q->lock);
	return ready ? POLLIN | POLLRDNORM : 0;
}

/* The last close: outstanding calls are cancelled (queued ones freed
 * here, running ones interrupted and freed by their worker), unread
 * records dropped.  Every call gives its charge back now, so a process
 * can submit again at once: those still running are bounded by their
 * engines' workers. */
static void queue_release(struct file *f)
{
	struct sysind_queue *q = f->priv;
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct async_call *c, *n;

	spin_lock(&q->lock);
	q->dead = true;
	list_splice_init(&q->done, &gone);
	list_for_each_entry_safe(c, n, &q->calls, link)
	{
		if (async_cancel(&c->ar) == 0) {
			list_del(&c->link);
			list_add_tail(&c->link, &gone);
		} else {
			__atomic_sub_fetch(&c->owner->group->async_calls, 1, __ATOMIC_RELAXED);
			c->uncharged = true;
		}
	}
	spin_unlock(&q->lock);
	list_for_each_entry_safe(c, n, &gone, link)
	{
		list_del(&c->link);
		call_free(c);
	}
	queue_put(q);
}

static const struct file_ops sysind_queue_ops = {
    .anon_name = "anon_inode:[sysind_queue]",
    .nowait = true,
    .read_iter = queue_read,
    .poll = queue_poll,
    .release = queue_release,
};

/* sysind_queue(flags): a completion queue for SYSIND_ASYNC calls; flags
 * O_CLOEXEC, O_CLOFORK, O_NONBLOCK, O_NONSEQFD (and the per-call ones). */
SYSCALL_DEFINE1(sysind_queue, unsigned int, flags)
{
	struct sysind_queue *q;
	struct file *f;
	int fd;

	if (flags & ~(O_CLOEXEC | O_CLOFORK | O_NONBLOCK | O_NONSEQFD))
		return -EINVAL;
	if (!(q = kzalloc(sizeof(*q))))
		return -ENOMEM;
	q->refs = 1;
	spin_init(&q->lock, "sysind_queue");
	list_init(&q->calls);
	list_init(&q->done);
	wait_queue_init(&q->wq, "sysind_queue");
	__atomic_add_fetch(&nqueues, 1, __ATOMIC_RELAXED);
	if (!(f = file_alloc(&sysind_queue_ops, O_RDONLY | (flags & O_NONBLOCK), q))) {
		queue_put(q);
		return -ENOMEM;
	}
	fd = fd_install_new(f, flags);
	if (fd < 0)
		file_put(f);
	return fd;
}
