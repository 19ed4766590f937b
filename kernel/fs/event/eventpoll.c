/*
 * epoll's objects (see eventpoll.h): the epoll, its interest items and
 * their wake-up hooks on the watched files' queues, the ready list those
 * hooks feed, the loop check, and the epoll file.  The system calls that
 * check arguments and sleep are in sys_epoll.c.
 *
 * Locks, outermost first:
 *   epoll_lock (one, global): every epoll's items and hash, the hooks, the
 *     files' ep_links, the loop check.  Held while a watched file's poll
 *     runs (ctl, and the scan of the ready list), so an item and its file
 *     cannot go away under the scan: a file's release takes it to remove
 *     the file's items before the file's own state goes.
 *   the watched files' locks and wait-queue locks (taken by their poll and
 *     wake_up).
 *   ep->lock: the ready list; taken by the wake-up callback, which runs
 *     under a watched file's queue lock, so it is innermost.
 * Nested epolls take the same locks in the order of the (acyclic, at most
 * EP_MAX_NESTS deep) watch graph.
 */
#include "fs/event/eventpoll.h"
#include "lib/list.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "mm/heap.h"
#include "sched/wait.h"
#include "fs/event/poll.h"
#include <uapi/errno.h>

#define EP_MAX_NESTS	 4 /* Linux's: longest chain of epolls watching epolls */
#define EP_PRIVATE_BITS	 (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
#define EP_FIRST_BUCKETS 8

static struct spinlock epoll_lock = SPINLOCK_INIT("epoll");
static unsigned long watches;	   /* items in every epoll; under epoll_lock */
static unsigned long loop_gen = 1; /* loop check pass; under epoll_lock */

struct eventpoll {
	struct spinlock lock;	  /* protects rdllist, nready, the items' rdlink */
	struct list_head rdllist; /* items a wake-up (or ctl) found ready */
	unsigned int nready;	  /* items on rdllist or a scan's private list */
	struct wait_queue wq;	  /* epoll_wait sleepers; holds no reference */
	/* pollers of the epoll file itself: poll() and outer epolls, which
	 * leave before the epoll file is released (poll.h's rule) */
	struct wait_queue poll_wq;
	/* Under epoll_lock: */
	struct list_head *buckets; /* nbuckets lists of items by (file, fd) */
	unsigned int nbuckets, nitems;
	struct file *file; /* the epoll file: owns ep (freed at its release) */
	unsigned long gen; /* loop_gen of the loop check that set depth */
	int depth;	   /* that check's result for ep */
};

/* One wait-queue registration of an item (an item may poll several queues). */
struct ep_hook {
	struct wait_entry we; /* func = ep_wake, no task */
	/* the watched file's queue: lives as long as the file (poll.h); the
	 * hook comes off it in ep_remove, before the file's release.  NULL
	 * once a queue that can die first (a process's signalfd queue) went:
	 * eventpoll_wq_gone.  Under epoll_lock. */
	struct wait_queue *wq;
	struct epitem *epi; /* owns the hook */
	struct ep_hook *next;
};

struct epitem {
	struct list_head hlink;	 /* in ep->buckets[], under epoll_lock */
	struct list_head flink;	 /* in file->ep_links, under epoll_lock */
	struct list_head rdlink; /* on a ready list, or empty; under ep->lock */
	struct eventpoll *ep;	 /* owner: the item never outlives it */
	/* no reference (Linux's rule): the file's last put removes the item */
	struct file *file;
	int fd;
	uint32_t events;       /* under epoll_lock and ep->lock (read by ep_wake) */
	uint64_t data;	       /* under epoll_lock */
	struct ep_hook *hooks; /* under epoll_lock */
};

/* The table ep_item_poll hands to the watched file's poll. */
struct ep_pqueue {
	struct poll_table pt; /* queue = ep_queue */
	struct epitem *epi;
	int error; /* -ENOMEM if a hook could not be allocated */
};

static const struct file_ops eventpoll_ops;

/* ---- The ready list ---- */

/* Under ep->lock: puts epi on the ready list unless it is on one. */
static bool ep_mark_ready(struct eventpoll *ep, struct epitem *epi)
{
	if (!list_empty(&epi->rdlink))
		return false;
	list_add_tail(&epi->rdlink, &ep->rdllist);
	ep->nready++;
	return true;
}

/* Under ep->lock: takes epi off the ready list (or a scan's list). */
static void ep_unmark_ready(struct eventpoll *ep, struct epitem *epi)
{
	if (list_empty(&epi->rdlink))
		return;
	list_del(&epi->rdlink);
	ep->nready--;
}

/* Wakes epoll_wait sleepers and the pollers of the epoll file. */
static void ep_notify(struct eventpoll *ep)
{
	wake_up(&ep->wq);
	wake_up(&ep->poll_wq);
}

/*
 * Queues epi as ready unless it is disarmed (one-shot) or queued already.
 * True if it is armed and ep has an epoll_wait sleeper, who will see it.
 * The sleeper queues itself before it looks at the ready list and we look
 * at its queue after queuing epi, both under locks: one of us sees the
 * other.
 */
static bool ep_make_ready(struct eventpoll *ep, struct epitem *epi)
{
	bool queued = false, armed;

	spin_lock(&ep->lock);
	armed = epi->events & ~EP_PRIVATE_BITS;
	if (armed)
		queued = ep_mark_ready(ep, epi);
	spin_unlock(&ep->lock);
	armed = armed && wait_queue_active(&ep->wq);
	if (queued)
		ep_notify(ep);
	return armed;
}

/*
 * The wake-up callback, under the watched queue's lock: epoll_wait polls
 * the item again to learn what is ready.  A wake-up about events (key)
 * epi does not watch passes it by.  An EPOLLEXCLUSIVE item's hook is
 * exclusive (wait.h): Linux's ep_poll_callback rule ends the wake-up at
 * the first such item whose epoll has a sleeper and that watches what the
 * key says (IN or OUT, not both; any for a wake-up of unknown kind), so
 * a wake-up goes on past epolls nobody waits on.
 */
static bool ep_wake(struct wait_entry *we, unsigned int key)
{
	struct epitem *epi = container_of(we, struct ep_hook, we)->epi;
	unsigned int inout = key & (EPOLLIN | EPOLLOUT);

	if (key && !(key & epi->events))
		return false;
	if (!ep_make_ready(epi->ep, epi))
		return false;
	return !inout || (inout != (EPOLLIN | EPOLLOUT) && (inout & epi->events));
}

/* ---- Polling a watched file ---- */

/* poll_wait for an item: hooks ep_wake on wq, once per queue. */
static void ep_queue(struct file *f, struct wait_queue *wq, struct poll_table *pt)
{
	struct ep_pqueue *q = container_of(pt, struct ep_pqueue, pt);
	struct ep_hook *h;

	(void)f; /* no reference: see epitem.file */
	for (h = q->epi->hooks; h; h = h->next)
		if (h->wq == wq)
			return;
	h = kmalloc(sizeof(*h));
	if (!h) {
		q->error = -ENOMEM;
		return;
	}
	*h = (struct ep_hook){.we = {.func = ep_wake,
				     .exclusive = q->epi->events & EPOLLEXCLUSIVE,
				     .link = LIST_HEAD_INIT(h->we.link)},
			      .wq = wq,
			      .epi = q->epi,
			      .next = q->epi->hooks};
	q->epi->hooks = h;
	wait_add(wq, &h->we);
}

/*
 * Under epoll_lock: which of epi's events its file has now.  Each poll
 * also hooks the queues the file did not offer before (a stream socket's
 * peer, once connected); *err gets -ENOMEM if a hook could not be made.
 */
static uint32_t ep_item_poll(struct epitem *epi, int *err)
{
	struct ep_pqueue q = {.pt.queue = ep_queue, .epi = epi};
	uint32_t mask = epi->file->ops->poll(epi->file, &q.pt);

	if (err)
		*err = q.error;
	return mask & epi->events;
}

/* ---- The interest list ---- */

static unsigned int ep_hash(const struct eventpoll *ep, const struct file *f, int fd)
{
	uint64_t k = ((uintptr_t)f >> 4) ^ ((uint64_t)(unsigned int)fd * 0x9e3779b97f4a7c15ULL);

	return (unsigned int)(k ^ (k >> 29)) & (ep->nbuckets - 1);
}

/* Under epoll_lock: ep's item for (f, fd), or NULL. */
static struct epitem *ep_find(struct eventpoll *ep, struct file *f, int fd)
{
	struct epitem *epi;

	list_for_each_entry(epi, &ep->buckets[ep_hash(ep, f, fd)], hlink)
	{
		if (epi->file == f && epi->fd == fd)
			return epi;
	}
	return NULL;
}

/* Under epoll_lock: doubles the buckets past two items each (kept as they
 * are if memory is short: only slower). */
static void ep_grow(struct eventpoll *ep)
{
	unsigned int old = ep->nbuckets;
	struct list_head *b = ep->buckets, *nb;
	struct epitem *epi, *next;

	if (ep->nitems <= 2 * old || !(nb = kmalloc(2 * old * sizeof(*nb))))
		return;
	ep->buckets = nb;
	ep->nbuckets = 2 * old;
	for (unsigned int i = 0; i < 2 * old; i++)
		list_init(&nb[i]);
	for (unsigned int i = 0; i < old; i++)
		list_for_each_entry_safe(epi, next, &b[i], hlink)
		    list_add_tail(&epi->hlink, &nb[ep_hash(ep, epi->file, epi->fd)]);
	kfree(b);
}

/* Linux's max_user_watches: 4% of memory, here for all users together. */
static unsigned long max_watches(void)
{
	return frame_total_count() * PAGE_SIZE / 25 /
	       (sizeof(struct epitem) + 2 * sizeof(struct ep_hook));
}

/* Under epoll_lock: unhooks and frees epi. */
static void ep_remove(struct epitem *epi)
{
	struct eventpoll *ep = epi->ep;
	struct ep_hook *h, *next;

	for (h = epi->hooks; h; h = next) {
		next = h->next;
		if (h->wq)
			wait_remove(h->wq, &h->we); /* no ep_wake of h runs after this */
		kfree(h);
	}
	spin_lock(&ep->lock);
	ep_unmark_ready(ep, epi);
	spin_unlock(&ep->lock);
	list_del(&epi->hlink);
	list_del(&epi->flink);
	ep->nitems--;
	watches--;
	kfree(epi);
}

/* Under epoll_lock: a new item for (tf, fd), ready at once if tf is. */
static int ep_insert(struct eventpoll *ep, int fd, struct file *tf, const struct epoll_event *ev)
{
	struct epitem *epi;
	uint32_t ready;
	int err;

	if (watches >= max_watches())
		return -ENOSPC;
	epi = kzalloc(sizeof(*epi));
	if (!epi)
		return -ENOMEM;
	list_init(&epi->rdlink);
	epi->ep = ep;
	epi->file = tf;
	epi->fd = fd;
	epi->events = ev->events;
	epi->data = ev->data.u64;
	list_add_tail(&epi->hlink, &ep->buckets[ep_hash(ep, tf, fd)]);
	list_add_tail(&epi->flink, &tf->ep_links);
	ep->nitems++;
	watches++;
	ep_grow(ep);
	ready = ep_item_poll(epi, &err);
	if (err) {
		ep_remove(epi);
		return err;
	}
	if (ready)
		ep_make_ready(ep, epi);
	return 0;
}

/* Under epoll_lock: new events re-arm a one-shot item. */
static int ep_modify(struct eventpoll *ep, struct epitem *epi, const struct epoll_event *ev)
{
	spin_lock(&ep->lock);
	epi->events = ev->events;
	spin_unlock(&ep->lock);
	epi->data = ev->data.u64;
	if (ep_item_poll(epi, NULL))
		ep_make_ready(ep, epi);
	return 0;
}

/* ---- The loop check (Linux's ep_loop_check) ---- */

/*
 * Under epoll_lock: how deep the epolls that ep watches nest (0: none),
 * or more than EP_MAX_NESTS if target is among them.  Each epoll is
 * visited once per check (gen); the graph has no cycle, every ADD checks.
 */
static int ep_depth_down(struct eventpoll *ep, struct eventpoll *target, int depth)
{
	struct eventpoll *child;
	struct epitem *epi;
	int d, result = 0;

	if (ep->gen == loop_gen)
		return ep->depth;
	ep->gen = loop_gen;
	for (unsigned int i = 0; i < ep->nbuckets && result <= EP_MAX_NESTS; i++) {
		list_for_each_entry(epi, &ep->buckets[i], hlink)
		{
			child = eventpoll_of(epi->file);
			if (!child)
				continue;
			if (child == target || depth > EP_MAX_NESTS)
				d = EP_MAX_NESTS + 1;
			else
				d = ep_depth_down(child, target, depth + 1) + 1;
			if (d > result)
				result = d;
			if (result > EP_MAX_NESTS)
				break;
		}
	}
	ep->depth = result;
	return result;
}

/* Under epoll_lock: how many epolls deep ep is watched (0: by none). */
static int ep_depth_up(struct eventpoll *ep)
{
	struct epitem *epi;
	int result = 0;

	if (ep->gen == loop_gen)
		return ep->depth;
	list_for_each_entry(epi, &ep->file->ep_links, flink)
	{
		int d = ep_depth_up(epi->ep) + 1;

		if (d > result)
			result = d;
	}
	ep->gen = loop_gen;
	ep->depth = result;
	return result;
}

/* Under epoll_lock: -ELOOP if ep watching to would close a loop or nest
 * epolls deeper than EP_MAX_NESTS, counting those above ep. */
static int ep_loop_check(struct eventpoll *ep, struct eventpoll *to)
{
	int down;

	loop_gen++;
	down = ep_depth_down(to, ep, 0);
	if (down > EP_MAX_NESTS || down + 1 + ep_depth_up(ep) > EP_MAX_NESTS)
		return -ELOOP;
	return 0;
}

int eventpoll_ctl(struct eventpoll *ep, int op, int fd, struct file *tf,
		  const struct epoll_event *ev)
{
	struct eventpoll *tep = eventpoll_of(tf);
	struct epoll_event e = {0};
	struct epitem *epi;
	int err = -EINVAL;

	if (ev)
		e = (struct epoll_event){.events = ev->events | EPOLLERR | EPOLLHUP,
					 .data = ev->data};
	spin_lock(&epoll_lock);
	if (op == EPOLL_CTL_ADD && tep && ep_loop_check(ep, tep)) {
		err = -ELOOP;
		goto out;
	}
	epi = ep_find(ep, tf, fd);
	switch (op) {
	case EPOLL_CTL_ADD:
		err = epi ? -EEXIST : ep_insert(ep, fd, tf, &e);
		break;
	case EPOLL_CTL_DEL:
		err = -ENOENT;
		if (epi) {
			ep_remove(epi);
			err = 0;
		}
		break;
	case EPOLL_CTL_MOD:
		if (!epi)
			err = -ENOENT;
		else if (!(epi->events & EPOLLEXCLUSIVE))
			err = ep_modify(ep, epi, &e);
		break;
	}
out:
	spin_unlock(&epoll_lock);
	return err;
}

int eventpoll_target(struct eventpoll *ep, int tfd, unsigned long toff, uintptr_t *id)
{
	struct epitem *epi;
	int err = -ENOENT;

	spin_lock(&epoll_lock);
	for (unsigned int i = 0; i < ep->nbuckets && err; i++)
		list_for_each_entry(epi, &ep->buckets[i], hlink)
		{
			if (epi->fd == tfd && toff-- == 0) {
				*id = (uintptr_t)epi->file;
				err = 0;
				break;
			}
		}
	spin_unlock(&epoll_lock);
	return err;
}

/* ---- Collecting events ---- */

/*
 * Under epoll_lock: polls the ready items in turn.  With out, up to max
 * events go there and the items are consumed: level-triggered ones go back
 * to the tail of the ready list, edge-triggered ones wait for a wake-up,
 * one-shot ones are disarmed.  Without out (the epoll file's poll), it
 * stops at the first item really ready and leaves it queued.  Items no
 * longer ready are dropped either way: a wake-up queues them again.
 */
static int ep_scan(struct eventpoll *ep, struct epoll_event *out, int max)
{
	struct list_head tx; /* the items this scan took; their rdlink is in it */
	struct epitem *epi;
	uint32_t mask;
	int n = 0;

	list_init(&tx);
	spin_lock(&ep->lock);
	list_splice_init(&ep->rdllist, &tx);
	spin_unlock(&ep->lock);
	while (n < max) {
		spin_lock(&ep->lock);
		if (list_empty(&tx)) {
			spin_unlock(&ep->lock);
			break;
		}
		epi = list_first_entry(&tx, struct epitem, rdlink);
		ep_unmark_ready(ep, epi); /* a wake-up during the poll queues it again */
		spin_unlock(&ep->lock);
		mask = ep_item_poll(epi, NULL);
		if (!mask)
			continue;
		spin_lock(&ep->lock);
		if (!out) {
			/* Not a bare list_add: a wake-up during the poll may
			 * have queued it again (ep_wake takes no epoll_lock),
			 * and it would be on two lists. */
			ep_mark_ready(ep, epi);
			spin_unlock(&ep->lock);
			n = 1;
			break;
		}
		out[n++] = (struct epoll_event){.events = mask, .data.u64 = epi->data};
		if (epi->events & EPOLLONESHOT)
			epi->events &= EP_PRIVATE_BITS;
		else if (!(epi->events & EPOLLET))
			ep_mark_ready(ep, epi);
		spin_unlock(&ep->lock);
	}
	spin_lock(&ep->lock);
	list_splice_init(&tx, &ep->rdllist); /* the rest first next time */
	spin_unlock(&ep->lock);
	return n;
}

int eventpoll_collect(struct eventpoll *ep, struct epoll_event *out, int max)
{
	int n;

	spin_lock(&epoll_lock);
	n = ep_scan(ep, out, max);
	spin_unlock(&epoll_lock);
	return n;
}

unsigned int eventpoll_nready(struct eventpoll *ep)
{
	unsigned int n;

	spin_lock(&ep->lock);
	n = ep->nready;
	spin_unlock(&ep->lock);
	return n;
}

struct wait_queue *eventpoll_waitq(struct eventpoll *ep)
{
	return &ep->wq;
}

/* ---- Release ---- */

void eventpoll_release_file(struct file *f)
{
	spin_lock(&epoll_lock);
	while (!list_empty(&f->ep_links))
		ep_remove(list_first_entry(&f->ep_links, struct epitem, flink));
	spin_unlock(&epoll_lock);
}

void eventpoll_wq_gone(struct wait_queue *wq)
{
	struct wait_entry *we, *next;

	spin_lock(&epoll_lock);
	spin_lock(&wq->lock);
	list_for_each_entry_safe(we, next, &wq->sleepers, link)
	{
		if (we->func != ep_wake)
			continue;
		container_of(we, struct ep_hook, we)->wq = NULL;
		list_del(&we->link);
	}
	spin_unlock(&wq->lock);
	spin_unlock(&epoll_lock);
}

unsigned long eventpoll_watch_count(void)
{
	unsigned long n;

	spin_lock(&epoll_lock);
	n = watches;
	spin_unlock(&epoll_lock);
	return n;
}

/* ---- The epoll file ---- */

/*
 * Readable when an item is really ready.  Runs from poll() (epoll_lock
 * free) or from an outer epoll's ctl or scan, which holds it on this CPU.
 */
static unsigned int ep_file_poll(struct file *f, struct poll_table *pt)
{
	struct eventpoll *ep = f->priv;
	bool held = spin_held(&epoll_lock);
	int ready;

	poll_wait(f, &ep->poll_wq, pt);
	if (!held)
		spin_lock(&epoll_lock);
	ready = ep_scan(ep, NULL, 1);
	if (!held)
		spin_unlock(&epoll_lock);
	return ready ? POLLIN | POLLRDNORM : 0;
}

/* The last reference: nobody sleeps in epoll_wait on it or polls it. */
static void ep_release(struct file *f)
{
	struct eventpoll *ep = f->priv;

	spin_lock(&epoll_lock);
	for (unsigned int i = 0; i < ep->nbuckets; i++)
		while (!list_empty(&ep->buckets[i]))
			ep_remove(list_first_entry(&ep->buckets[i], struct epitem, hlink));
	spin_unlock(&epoll_lock);
	kfree(ep->buckets);
	kfree(ep);
}

static const struct file_ops eventpoll_ops = {
    .anon_name = "anon_inode:[eventpoll]",
    .poll = ep_file_poll,
    .release = ep_release,
};

struct eventpoll *eventpoll_of(struct file *f)
{
	return f->ops == &eventpoll_ops ? f->priv : NULL;
}

struct file *eventpoll_file_new(void)
{
	struct eventpoll *ep = kzalloc(sizeof(*ep));
	struct file *f = NULL;

	if (ep)
		ep->buckets = kmalloc(EP_FIRST_BUCKETS * sizeof(*ep->buckets));
	if (ep && ep->buckets)
		f = file_alloc(&eventpoll_ops, O_RDWR, ep);
	if (!f) {
		if (ep)
			kfree(ep->buckets);
		kfree(ep);
		return NULL;
	}
	spin_init(&ep->lock, "eventpoll");
	list_init(&ep->rdllist);
	wait_queue_init(&ep->wq, "epoll_wait");
	wait_queue_init(&ep->poll_wq, "epoll_poll");
	ep->nbuckets = EP_FIRST_BUCKETS;
	for (unsigned int i = 0; i < EP_FIRST_BUCKETS; i++)
		list_init(&ep->buckets[i]);
	ep->file = f;
	return f;
}
