/*
 * timerfd: a timer whose expirations are read from an fd (docs/events.md).
 * Built on the kernel timers (sched/ktimer.h): an unarmed timerfd costs
 * nothing, an armed one is one node of their heap.  A read returns
 * the 8-byte count of expirations since the last read or settime, waiting
 * while it is 0.
 */
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "fs/event/timerfd.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "sched/wait.h"
#include "sys/syscall.h"
#include "time/timens.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/time.h>
#include <uapi/timerfd.h>

#define TICKS_SIZE sizeof(uint64_t)

struct itimerspec_k {
	struct timespec_k interval, value;
};

struct timerfd {
	/* Protects ticks and interval_ns, and orders arming and cancelling
	 * the timer.  Taken before ktimer_lock (the callback arms under it)
	 * and before the wait queue's lock; taken from the tick. */
	struct spinlock lock;
	/*
	 * Lifetime: the callback finds this timerfd through the timer
	 * (container_of).  The timer is armed only while the file is open:
	 * release cancels it with ktimer_cancel_sync, which also waits for a
	 * callback running on CPU 0, before freeing.
	 * Fork, dup and SCM_RIGHTS share the file, so the timer runs until the
	 * last of them closes it.
	 */
	struct ktimer timer;
	int clockid;
	uint64_t ticks;	      /* expirations not read yet */
	uint64_t interval_ns; /* reload period, 0: one-shot */
	/*
	 * An interval timer that fired is not re-armed from the tick, as on
	 * Linux: it waits, expired, until a read, gettime or settime counts the
	 * periods missed since expired_at and re-arms it (forward_locked).  So
	 * the tick does one callback per timer per read however short the
	 * interval, and a timer nobody reads stops costing anything.
	 */
	bool expired;
	int64_t expired_at;   /* monotonic ns; negative: a real-time deadline before boot */
	struct wait_queue wq; /* readers and pollers: ticks became non-zero */
	/* Armed with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET on the
	 * real-time clock: on cancel_list (under cancel_lock, until settime
	 * or release), and canceled (under the lock) once the clock was set,
	 * until a read reports it (ECANCELED). */
	struct list_head cancel_link;
	bool canceled;
};

/* The timerfds a setting of the real-time clock cancels (Linux's
 * cancel_list).  Taken before a timerfd's lock. */
static struct spinlock cancel_lock = SPINLOCK_INIT("timerfd_cancel");
static struct list_head cancel_list = LIST_HEAD_INIT(cancel_list);

void timerfd_clock_was_set(void)
{
	struct timerfd *t;

	spin_lock(&cancel_lock);
	list_for_each_entry(t, &cancel_list, cancel_link)
	{
		spin_lock(&t->lock);
		t->canceled = true;
		wake_up(&t->wq);
		spin_unlock(&t->lock);
	}
	spin_unlock(&cancel_lock);
}

/* Whether t may be canceled: on cancel_list or not (settime). */
static void set_might_cancel(struct timerfd *t, bool might)
{
	spin_lock(&cancel_lock);
	list_del(&t->cancel_link);
	if (might)
		list_add_tail(&t->cancel_link, &cancel_list);
	spin_unlock(&cancel_lock);
}

static uint64_t ticks_now(struct timerfd *t)
{
	return __atomic_load_n(&t->ticks, __ATOMIC_RELAXED);
}

static bool readable(struct timerfd *t)
{
	return ticks_now(t) || __atomic_load_n(&t->canceled, __ATOMIC_RELAXED);
}

/* Under the lock: the timer, due at expired (see expired_at), has expired:
 * one more expiration; an interval timer waits for forward_locked. */
static void expire_locked(struct timerfd *t, int64_t expired)
{
	__atomic_store_n(&t->ticks, t->ticks + 1, __ATOMIC_RELAXED);
	t->expired = t->interval_ns != 0;
	t->expired_at = expired;
	wake_up(&t->wq);
}

/* Under the lock: an expired interval timer counts the periods that passed
 * since (hrtimer_forward_now) and is re-armed for its first deadline after
 * now. */
static void forward_locked(struct timerfd *t, uint64_t now)
{
	uint64_t late = (uint64_t)((int64_t)now - t->expired_at);

	if (!t->expired)
		return;
	t->expired = false;
	__atomic_store_n(&t->ticks, t->ticks + late / t->interval_ns, __ATOMIC_RELAXED);
	/* now + a KTIME_MAX interval cannot overflow (ktimer.h) */
	ktimer_arm(&t->timer, now + t->interval_ns - late % t->interval_ns);
}

/* The ktimer callback, from the tick (see the lifetime rule at timer). */
static void timerfd_fired(struct ktimer *k)
{
	struct timerfd *t = container_of(k, struct timerfd, timer);

	spin_lock(&t->lock);
	expire_locked(t, (int64_t)k->expires);
	spin_unlock(&t->lock);
}

static long timerfd_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct timerfd *t = f->priv;
	uint64_t n;
	int err;

	(void)pos;
	if (iov_iter_count(to) < TICKS_SIZE)
		return -EINVAL;
	spin_lock(&t->lock);
	while (!t->ticks && !t->canceled) {
		spin_unlock(&t->lock);
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(&t->wq, readable(t));
		if (err)
			return err;
		spin_lock(&t->lock);
	}
	if (t->canceled) { /* the expirations go too, as Linux's */
		t->canceled = t->expired = false;
		__atomic_store_n(&t->ticks, 0, __ATOMIC_RELAXED);
		spin_unlock(&t->lock);
		return -ECANCELED;
	}
	forward_locked(t, clock_monotonic_ns());
	n = t->ticks;
	__atomic_store_n(&t->ticks, 0, __ATOMIC_RELAXED);
	spin_unlock(&t->lock);
	return copy_to_iter_full(&n, TICKS_SIZE, to) ? -EFAULT : (long)TICKS_SIZE;
}

static unsigned timerfd_poll(struct file *f, struct poll_table *pt)
{
	struct timerfd *t = f->priv;

	poll_wait(f, &t->wq, pt); /* t lives as long as f */
	return readable(t) ? POLLIN | POLLRDNORM : 0;
}

/* The last reference: cancel before freeing (the lifetime rule at timer). */
static void timerfd_release(struct file *f)
{
	struct timerfd *t = f->priv;

	ktimer_cancel_sync(&t->timer); /* no lock held: the callback takes t->lock */
	set_might_cancel(t, false);
	kfree(t);
}

static const struct file_ops timerfd_ops = {
    .anon_name = "anon_inode:[timerfd]",
    .read_iter = timerfd_read,
    .poll = timerfd_poll,
    .release = timerfd_release,
};

#define TFD_FD_FLAGS (TFD_CLOEXEC | TFD_CLOFORK) /* the open flags' bits */

SYSCALL_DEFINE2(timerfd_create, int, clockid, int, flags)
{
	struct timerfd *t;
	struct file *f;
	int fd;

	if ((flags & ~(TFD_NONBLOCK | TFD_FD_FLAGS)) ||
	    (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC && clockid != CLOCK_BOOTTIME))
		return -EINVAL;
	t = kzalloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	spin_init(&t->lock, "timerfd");
	wait_queue_init(&t->wq, "timerfd");
	list_init(&t->cancel_link);
	ktimer_init(&t->timer, timerfd_fired);
	t->clockid = clockid;
	f = file_alloc(&timerfd_ops, O_RDWR | (flags & TFD_NONBLOCK), t);
	if (!f) {
		kfree(t);
		return -ENOMEM;
	}
	fd = fd_install_new(f, flags & TFD_FD_FLAGS);
	if (fd < 0)
		file_put(f); /* its release frees t */
	return fd;
}

/* The timerfd behind fd, referenced: -EBADF, or -EINVAL for another file. */
static struct file *timerfd_get(int fd, long *err)
{
	struct file *f = files_lookup(current()->files, fd);

	*err = !f ? -EBADF : f->ops != &timerfd_ops ? -EINVAL : 0;
	if (*err && f)
		file_put(f);
	return *err ? NULL : f;
}

static struct timespec_k ns_to_timespec(uint64_t ns)
{
	return (struct timespec_k){ns / NSEC_PER_SEC, ns % NSEC_PER_SEC};
}

/* Under the lock: the time left (an expired interval timer forwarded
 * first, as Linux) and the interval.  A timer due but not fired yet (up to
 * a tick) shows 1 ns: 0 would read as disarmed. */
static struct itimerspec_k gettime_locked(struct timerfd *t, uint64_t now)
{
	uint64_t expires;

	forward_locked(t, now);
	expires = ktimer_expires(&t->timer);
	uint64_t left = !expires ? 0 : expires > now ? expires - now : 1;

	return (struct itimerspec_k){ns_to_timespec(t->interval_ns), ns_to_timespec(left)};
}

/* The monotonic deadline of a value in ns (absolute on t's clock with
 * TFD_TIMER_ABSTIME): negative for a real-time one before boot. */
static int64_t deadline_of(struct timerfd *t, int64_t value, int flags, uint64_t now)
{
	if (!(flags & TFD_TIMER_ABSTIME))
		return value > KTIME_MAX - (int64_t)now ? KTIME_MAX : (int64_t)now + value;
	return value - (t->clockid == CLOCK_REALTIME ? clock_realtime_offset_ns()
						     : timens_offset(t->clockid));
}

/*
 * Arms (value > 0) or disarms t, dropping unread expirations; returns the
 * old setting.  A deadline already past expires now, as Linux's immediate
 * hrtimer expiry.  With TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET on the
 * real-time clock, a setting of that clock cancels it (Linux's
 * might_cancel).
 */
static struct itimerspec_k timerfd_set(struct timerfd *t, int flags, int64_t value,
				       int64_t interval)
{
	struct itimerspec_k old;
	int64_t deadline;
	uint64_t now;

	set_might_cancel(t, t->clockid == CLOCK_REALTIME && (flags & TFD_TIMER_ABSTIME) &&
				(flags & TFD_TIMER_CANCEL_ON_SET));
	spin_lock(&t->lock);
	t->canceled = false;
	now = clock_monotonic_ns();
	old = gettime_locked(t, now);
	ktimer_cancel(&t->timer);
	__atomic_store_n(&t->ticks, 0, __ATOMIC_RELAXED);
	t->interval_ns = (uint64_t)interval;
	t->expired = false;
	if (value) {
		deadline = deadline_of(t, value, flags, now);
		if (deadline <= (int64_t)now)
			expire_locked(t, deadline);
		else
			ktimer_arm(&t->timer, (uint64_t)deadline);
	}
	spin_unlock(&t->lock);
	return old;
}

SYSCALL_DEFINE4(timerfd_settime, int, fd, int, flags, const struct itimerspec_k *, unew,
		struct itimerspec_k *, uold)
{
	struct itimerspec_k new, old;
	int64_t value, interval;
	struct file *f;
	long err;

	if (copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	value = timespec_to_ns(&new.value);
	interval = timespec_to_ns(&new.interval);
	if ((flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)) || value < 0 || interval < 0)
		return -EINVAL;
	if (!(f = timerfd_get(fd, &err)))
		return err;
	old = timerfd_set(f->priv, flags, value, interval);
	file_put(f);
	return uold ? copy_to_user(uold, &old, sizeof(old)) : 0;
}

SYSCALL_DEFINE2(timerfd_gettime, int, fd, struct itimerspec_k *, ucur)
{
	struct timerfd *t;
	struct itimerspec_k cur;
	struct file *f;
	long err;

	if (!(f = timerfd_get(fd, &err)))
		return err;
	t = f->priv;
	spin_lock(&t->lock);
	cur = gettime_locked(t, clock_monotonic_ns());
	spin_unlock(&t->lock);
	file_put(f);
	return copy_to_user(ucur, &cur, sizeof(cur));
}
