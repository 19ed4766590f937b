/*
 * Polling: how a file tells poll() it may become ready.  A file's .poll
 * operation calls poll_wait() on each wait queue whose wake_up() can change
 * its readiness, then returns its current mask (POLLIN, POLLOUT, POLLHUP,
 * ...).  The poll_table says what registering means: poll() (poll.c)
 * queues the polling task so a sleeping poll() wakes when any of the queues
 * is woken; epoll (eventpoll.c) hooks a wake-up callback of its interest
 * entry on them.
 */
#ifndef FS_POLL_H
#define FS_POLL_H

#include <stdint.h>
#include <uapi/poll.h>

struct file;
struct wait_queue;

/* How poll_wait registers: embedded in the poller's own state (container_of). */
struct poll_table {
	void (*queue)(struct file *f, struct wait_queue *wq, struct poll_table *pt);
	/* The events the poller waits for (Linux's _key), 0 for any: a
	 * file may leave out a queue that only tells of others. */
	unsigned int events;
};

/* Whether the poller (NULL: a readiness check) may want any of events. */
static inline int poll_wants(const struct poll_table *pt, unsigned int events)
{
	return !pt || !pt->events || (pt->events & events);
}

/*
 * Registers the poller on wq; does nothing when pt is NULL (a readiness
 * check that will not sleep).  The entry stays on wq until the poll ends
 * (poll() keeps f referenced until then) or, for epoll, until f's release
 * (eventpoll_release, before f's own release): so wq must live as long as f.
 * That holds for a queue of f's own object, or of an object it references
 * and lets go only when f is released (a stream socket's peer); a static
 * queue (the console).  A queue whose owner can go while f stays open (a
 * datagram socket's peer, which connect() replaces) must never be passed
 * here: relay its wake-ups onto a queue f owns (net/dgram.c peer_wake).
 * The one exception is a signalfd, whose queue is the polling process's
 * (signals are the reader's): poll() sleepers keep their process alive,
 * and the process's end takes epoll's hooks off (eventpoll_wq_gone).
 */
static inline void poll_wait(struct file *f, struct wait_queue *wq, struct poll_table *pt)
{
	if (pt) /* inline: poll() with timeout 0 and every later pass check only */
		pt->queue(f, wq, pt);
}

#define POLL_FOREVER UINT64_MAX /* deadline of a poll without timeout */

struct timespec_k;
/* The deadline of a user timespec timeout (ppoll, pselect6, epoll_pwait2):
 * POLL_FOREVER for NULL, 0 for zero (check once); -EFAULT, or -EINVAL
 * for a negative one or tv_nsec out of [0, 1e9). */
long poll_timespec_deadline(const struct timespec_k *uts, uint64_t *deadline);

/*
 * The poll core, on a kernel array: fills each entry's revents with what of
 * its events | always is ready (POLLNVAL for a closed fd) until something
 * is, the monotonic clock reaches deadline_ns (0: check once,
 * POLL_FOREVER: no limit) or a signal comes.  Returns how many entries have
 * revents, 0 on timeout, -ENOMEM, -ERESTARTNOHAND.  poll passes always =
 * POLLERR | POLLHUP (reported unasked); select 0.
 */
long poll_kernel(struct pollfd *fds, unsigned long nfds, short always, uint64_t deadline_ns);

/*
 * poll() on the user array ufds[nfds] until something is ready or the
 * monotonic clock reaches deadline_ns (0: check once, POLL_FOREVER: no
 * limit).  Returns how many entries have revents, 0 on timeout, or -EINVAL
 * (nfds > RLIMIT_NOFILE), -EFAULT, -ENOMEM, -ERESTARTNOHAND (a signal).
 * ppoll (fs/event/select.c) and syscall_indirect's SIGMASK build on it.
 */
long poll_user(struct pollfd *ufds, unsigned long nfds, uint64_t deadline_ns);

#endif
