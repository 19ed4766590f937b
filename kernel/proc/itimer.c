/*
 * alarm, setitimer and getitimer on ITIMER_REAL (see itimer.h), built on
 * a kernel timer.  The interval reloads when the timer fires (Linux
 * reloads when SIGALRM is dequeued; the difference only shows while
 * SIGALRM is blocked, where one pending signal stands for all).
 */
#include "proc/itimer.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define ITIMER_REAL    0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF    2

struct timeval_k {
	int64_t tv_sec, tv_usec;
};

struct itimerval_k {
	struct timeval_k interval, value;
};

/* Protects every process's itimer: its interval and the arming of its
 * timer (which the ktimer lock alone would not keep consistent with the
 * interval).  Taken before ktimer_lock; also by the tick. */
static struct spinlock itimer_lock = SPINLOCK_INIT("itimer");

/* The first deadline after now on the timer's period, as hrtimer_forward. */
static uint64_t next_period(uint64_t expired, uint64_t interval, uint64_t now)
{
	uint64_t next = expired + interval;

	if (next <= now)
		next += ((now - next) / interval + 1) * interval;
	return next;
}

/* The ktimer callback, from the tick. */
static void itimer_fire(struct ktimer *k)
{
	struct itimer *it = container_of(k, struct itimer, timer);
	struct task *t = container_of(it, struct task, itimer);

	spin_lock(&itimer_lock);
	if (it->interval_ns)
		ktimer_arm(k, next_period(k->expires, it->interval_ns, clock_monotonic_ns()));
	spin_unlock(&itimer_lock);
	signal_send(t, SIGALRM);
}

void itimer_init(struct task *t)
{
	ktimer_init(&t->itimer.timer, itimer_fire);
	t->itimer.interval_ns = 0;
}

void itimer_exit(struct task *t)
{
	spin_lock(&itimer_lock);
	ktimer_cancel(&t->itimer.timer);
	t->itimer.interval_ns = 0;
	spin_unlock(&itimer_lock);
}

/* The time left and the interval, in ns (itimer_lock held).  A timer due
 * but not yet fired shows 1 us, as on Linux: 0 would mean disarmed. */
static void itimer_read_locked(struct itimer *it, uint64_t now, uint64_t *value, uint64_t *interval)
{
	uint64_t expires = ktimer_expires(&it->timer);

	*value = !expires ? 0 : expires > now ? expires - now : NSEC_PER_USEC;
	*interval = it->interval_ns;
}

/* Arms the caller's timer for value ns (0 disarms it), then every
 * interval ns; returns the old setting in *old_value and *old_interval. */
static void itimer_set(uint64_t value, uint64_t interval, uint64_t *old_value,
		       uint64_t *old_interval)
{
	struct itimer *it = &current()->itimer;
	uint64_t now;

	spin_lock(&itimer_lock);
	now = clock_monotonic_ns();
	itimer_read_locked(it, now, old_value, old_interval);
	ktimer_cancel(&it->timer);
	it->interval_ns = value ? interval : 0;
	if (value)
		ktimer_arm(&it->timer, now + value);
	spin_unlock(&itimer_lock);
}

/* A timeval in ns, or -EINVAL (negative, or tv_usec out of [0, 1e6)). */
static int64_t timeval_to_ns(const struct timeval_k *tv)
{
	if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= NSEC_PER_SEC / NSEC_PER_USEC)
		return -EINVAL;
	return ktime_from(tv->tv_sec, tv->tv_usec * NSEC_PER_USEC);
}

static struct timeval_k ns_to_timeval(uint64_t ns)
{
	return (struct timeval_k){ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / NSEC_PER_USEC};
}

/* Only ITIMER_REAL exists: the CPU-time timers give EINVAL (docs). */
static int check_which(int which)
{
	return which == ITIMER_REAL ? 0 : -EINVAL;
}

SYSCALL_DEFINE2(getitimer, int, which, struct itimerval_k *, ucur)
{
	uint64_t value, interval;
	struct itimerval_k cur;
	int err = check_which(which);

	if (err)
		return err;
	spin_lock(&itimer_lock);
	itimer_read_locked(&current()->itimer, clock_monotonic_ns(), &value, &interval);
	spin_unlock(&itimer_lock);
	cur = (struct itimerval_k){ns_to_timeval(interval), ns_to_timeval(value)};
	return copy_to_user(ucur, &cur, sizeof(cur));
}

SYSCALL_DEFINE3(setitimer, int, which, const struct itimerval_k *, unew, struct itimerval_k *, uold)
{
	struct itimerval_k new = {{0, 0}, {0, 0}}, old; /* NULL new: disarm, as Linux */
	uint64_t old_value, old_interval;
	int64_t value, interval;
	int err = check_which(which);

	if (err)
		return err;
	if (unew && copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	value = timeval_to_ns(&new.value);
	interval = timeval_to_ns(&new.interval);
	if (value < 0 || interval < 0)
		return -EINVAL;
	itimer_set((uint64_t)value, (uint64_t)interval, &old_value, &old_interval);
	old = (struct itimerval_k){ns_to_timeval(old_interval), ns_to_timeval(old_value)};
	return uold ? copy_to_user(uold, &old, sizeof(old)) : 0;
}

SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	uint64_t old, interval;
	uint64_t secs, frac;

	itimer_set((uint64_t)seconds * NSEC_PER_SEC, 0, &old, &interval);
	secs = old / NSEC_PER_SEC, frac = old % NSEC_PER_SEC;
	/* Rounded to the nearest second, but a pending alarm never reads 0. */
	return (long)(secs + ((!secs && frac) || frac >= NSEC_PER_SEC / 2));
}
