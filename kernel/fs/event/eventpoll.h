/*
 * epoll: an interest list of (file, fd) items whose wake-up callbacks feed
 * a ready list, so epoll_wait costs O(ready).  An item lives as long as the
 * open file description it watches (not the fd number): the file's last
 * put removes it.  docs/epoll.md has the lifetime and wake-up rules.
 */
#ifndef FS_EVENTPOLL_H
#define FS_EVENTPOLL_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/file.h"
#include <uapi/eventpoll.h>

struct eventpoll;

/* A new epoll file (one reference), or NULL when memory runs out. */
struct file *eventpoll_file_new(void);
/* The epoll behind f, or NULL if f is not an epoll file. */
struct eventpoll *eventpoll_of(struct file *f);
/*
 * EPOLL_CTL_ADD / MOD / DEL of (tf, fd) on ep, the arguments checked
 * already (sys_epoll.c); ev is the user's event for ADD and MOD.  0, or
 * -EEXIST, -ENOENT, -EINVAL, -ELOOP, -ENOSPC, -ENOMEM.
 */
int eventpoll_ctl(struct eventpoll *ep, int op, int fd, struct file *tf,
		  const struct epoll_event *ev);
/* epoll_ctl once its event is read into ev (NULL for EPOLL_CTL_DEL):
 * the fd lookups, Linux's checks (EBADF, EPERM, EINVAL) and
 * eventpoll_ctl.  io_uring's EPOLL_CTL runs it on the event its
 * preparation copied. */
long epoll_ctl_kernel(int epfd, int op, int fd, struct epoll_event *ev);
/*
 * kcmp's KCMP_EPOLL_TFD: the toff-th item of ep registered under fd number
 * tfd (counted in the order of ep's buckets, as Linux counts in its tree's
 * order), its file's address in *id: only to compare, never to use (no
 * reference is taken).  0 or -ENOENT.
 */
int eventpoll_target(struct eventpoll *ep, int tfd, unsigned long toff, uintptr_t *id);
/*
 * Moves up to max ready events into the kernel buffer out: how many.
 * Level-triggered items stay ready, edge-triggered ones wait for the next
 * wake-up, one-shot ones are disarmed.
 */
int eventpoll_collect(struct eventpoll *ep, struct epoll_event *out, int max);
/* Items on the ready list now (a bound for the next collect). */
unsigned int eventpoll_nready(struct eventpoll *ep);
/* The queue epoll_wait sleeps on: woken when an item gets ready. */
struct wait_queue *eventpoll_waitq(struct eventpoll *ep);

void eventpoll_release_file(struct file *f);
/* Takes f off every epoll watching it: called by the last file_put. */
static inline void eventpoll_release(struct file *f)
{
	/*
	 * Unlocked: items are added only through a reference to f, which
	 * the acquire-release of the last put orders before this test.
	 */
	if (!list_empty(&f->ep_links))
		eventpoll_release_file(f);
}

/*
 * wq is about to be freed while files polled through it may stay open (a
 * process's signalfd queue, Linux's POLLFREE): every epoll hook on it comes
 * off, the items stay (they are polled again through another queue).
 */
void eventpoll_wq_gone(struct wait_queue *wq);

/* Items registered in every epoll (leak accounting). */
unsigned long eventpoll_watch_count(void);

#endif
