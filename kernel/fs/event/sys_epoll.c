/*
 * epoll system calls: argument checks in Linux's order and with its errno,
 * and epoll_wait's sleep.  The objects are in eventpoll.c.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fs/event/eventpoll.h"
#include "fd/fd_install.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "mm/heap.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define EP_MAX_EVENTS (0x7fffffff / (int)sizeof(struct epoll_event)) /* Linux's */
#define EXCLUSIVE_OK                                                                               \
	(EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)
#define NSEC_PER_MS	1000000ULL
#define EP_STACK_EVENTS 16 /* 192 bytes of kernel stack */

static long do_epoll_create(unsigned int flags)
{
	struct file *f = eventpoll_file_new();
	int fd;

	if (!f)
		return -ENOMEM;
	fd = fd_install_new(f, flags);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* size is only a hint since Linux 2.6.8, but must be positive. */
SYSCALL_DEFINE1(epoll_create, int, size)
{
	if (size <= 0)
		return -EINVAL;
	return do_epoll_create(0);
}

SYSCALL_DEFINE1(epoll_create1, int, flags)
{
	if (flags & ~(EPOLL_CLOEXEC | EPOLL_CLOFORK))
		return -EINVAL;
	return do_epoll_create((unsigned int)flags);
}

/* Linux's checks after the fd lookups: EPERM, EINVAL. */
static int ctl_check(struct file *ef, struct file *tf, int op, const struct epoll_event *ev)
{
	if (!tf->ops->poll)
		return -EPERM; /* regular files and the like, as Linux */
	if (ef == tf || !eventpoll_of(ef))
		return -EINVAL;
	if (ev && (ev->events & EPOLLEXCLUSIVE)) {
		if (op == EPOLL_CTL_MOD)
			return -EINVAL;
		if (op == EPOLL_CTL_ADD && (eventpoll_of(tf) || (ev->events & ~EXCLUSIVE_OK)))
			return -EINVAL;
	}
	return 0;
}

long epoll_ctl_kernel(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct file *ef, *tf = NULL;
	long ret = -EBADF;

	if (ev)
		ev->events &= ~EPOLLWAKEUP; /* needs CAP_BLOCK_SUSPEND: dropped */
	ef = files_lookup(current()->files, epfd);
	if (ef)
		tf = files_lookup(current()->files, fd);
	if (tf)
		ret = ctl_check(ef, tf, op, ev);
	if (tf && !ret)
		ret = eventpoll_ctl(eventpoll_of(ef), op, fd, tf, ev);
	if (tf)
		file_put(tf);
	if (ef)
		file_put(ef);
	return ret;
}

SYSCALL_DEFINE4(epoll_ctl, int, epfd, int, op, int, fd, const struct epoll_event *, uevent)
{
	struct epoll_event ev, *evp = op == EPOLL_CTL_DEL ? NULL : &ev;

	if (evp && copy_from_user(&ev, uevent, sizeof(ev)))
		return -EFAULT;
	return epoll_ctl_kernel(epfd, op, fd, evp);
}

/*
 * Moves what is ready to the user's array: how many, or -EFAULT before
 * anything is consumed (the array is cleared first, as far as the ready
 * list goes, so only a racing munmap can lose events).  Up to
 * EP_STACK_EVENTS go through the stack, more through the heap.
 */
static long ep_copy_events(struct eventpoll *ep, struct epoll_event *uevents, int maxevents)
{
	unsigned int nready = eventpoll_nready(ep);
	int max = nready < (unsigned int)maxevents ? (int)nready : maxevents;
	struct epoll_event stack_buf[EP_STACK_EVENTS], *buf = stack_buf;
	long n;

	if (max == 0)
		return 0;
	if (clear_user(uevents, (size_t)max * sizeof(*buf)))
		return -EFAULT;
	if (max > EP_STACK_EVENTS && !(buf = kmalloc((size_t)max * sizeof(*buf))))
		return -ENOMEM;
	n = eventpoll_collect(ep, buf, max);
	if (n && copy_to_user(uevents, buf, (size_t)n * sizeof(*buf)))
		n = -EFAULT;
	if (buf != stack_buf)
		kfree(buf);
	return n;
}

/* Sleeps on ep until an event, the deadline (0: none; POLL_FOREVER) or a signal. */
static long ep_wait(struct eventpoll *ep, struct epoll_event *uevents, int maxevents,
		    uint64_t deadline)
{
	struct wait_queue *wq = eventpoll_waitq(ep);
	long n;

	for (;;) {
		n = ep_copy_events(ep, uevents, maxevents);
		if (n || !deadline || clock_monotonic_ns() >= deadline)
			return n;
		if (signal_pending()) {
			if (!sched_run_task_work())
				return -EINTR; /* never restarted, as Linux */
			/* Task work ran: a CQE it posted may be an event. */
			continue;
		}
		DEFINE_WAIT(we);
		prepare_to_wait(wq, &we);
		if (deadline != POLL_FOREVER)
			sched_arm_deadline(deadline);
		if (!eventpoll_nready(ep) && !signal_pending() && clock_monotonic_ns() < deadline)
			schedule();
		if (deadline != POLL_FOREVER)
			sched_disarm_deadline();
		finish_wait(wq, &we);
	}
}

/* The deadline of a timeout in ms: negative waits forever, 0 not at all. */
static uint64_t ms_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return POLL_FOREVER;
	return timeout_ms ? clock_monotonic_ns() + (uint64_t)timeout_ms * NSEC_PER_MS : 0;
}

/* Linux's order: EBADF, EINVAL (maxevents), EFAULT, EINVAL (not an epoll).
 * deadline: monotonic ns, 0 for no wait, POLL_FOREVER. */
static long do_epoll_wait(int epfd, struct epoll_event *uevents, int maxevents, uint64_t deadline)
{
	bool put;
	struct file *ef = files_lookup_light(current()->files, epfd, &put);
	long ret = -EINVAL;

	if (!ef)
		return -EBADF;
	if (maxevents <= 0 || maxevents > EP_MAX_EVENTS)
		ret = -EINVAL;
	else if (!user_range_ok((uint64_t)uevents, (size_t)maxevents * sizeof(*uevents)))
		ret = -EFAULT;
	else if (eventpoll_of(ef))
		ret = ep_wait(eventpoll_of(ef), uevents, maxevents, deadline);
	if (put)
		file_put(ef);
	return ret;
}

/* epoll_wait with a timeout to count down: its own function, so that the
 * common waits (0, or -1 for ever) read no clock and jump straight to
 * do_epoll_wait, their handler saving no register for the clock's call
 * (epoll_10000_1 paid 18 instructions for it; docs/bench.md). */
static __attribute__((noinline)) long epoll_wait_ms(int epfd, struct epoll_event *uevents,
						    int maxevents, int timeout_ms)
{
	return do_epoll_wait(epfd, uevents, maxevents, ms_deadline(timeout_ms));
}

SYSCALL_DEFINE4(epoll_wait, int, epfd, struct epoll_event *, uevents, int, maxevents, int,
		timeout_ms)
{
	if (timeout_ms > 0)
		return epoll_wait_ms(epfd, uevents, maxevents, timeout_ms);
	return do_epoll_wait(epfd, uevents, maxevents, timeout_ms ? POLL_FOREVER : 0);
}

/* The mask is in force for the wait; the caller's returns on the way out
 * (signal_deliver), after the handler of a signal it let through. */
SYSCALL_DEFINE6(epoll_pwait, int, epfd, struct epoll_event *, uevents, int, maxevents, int,
		timeout_ms, const uint64_t *, usigmask, size_t, sigsetsize)
{
	long err = signal_set_user_mask(usigmask, sigsetsize);

	return err ? err : do_epoll_wait(epfd, uevents, maxevents, ms_deadline(timeout_ms));
}

/* epoll_pwait with a timespec (NULL: forever; zero: no wait), read and
 * checked first (EFAULT, EINVAL), as Linux. */
SYSCALL_DEFINE6(epoll_pwait2, int, epfd, struct epoll_event *, uevents, int, maxevents,
		const struct timespec_k *, uts, const uint64_t *, usigmask, size_t, sigsetsize)
{
	uint64_t deadline;
	long err;

	if ((err = poll_timespec_deadline(uts, &deadline)) ||
	    (err = signal_set_user_mask(usigmask, sigsetsize)))
		return err;
	return do_epoll_wait(epfd, uevents, maxevents, deadline);
}
