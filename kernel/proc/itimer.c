/*
 * alarm, setitimer and getitimer (see itimer.h).  ITIMER_REAL is a kernel
 * timer whose interval reloads when it fires (Linux reloads when SIGALRM
 * is dequeued; the difference only shows while SIGALRM is blocked, where
 * one pending signal stands for all).  The CPU-time timers are counted
 * down a tick at a time, so their resolution is the tick, as on Linux
 * with tick-based accounting.
 */
#include "proc/itimer.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "lib/spinlock.h"
#include "proc/group.h"
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

/* Protects every process's struct itimers (which the ktimer lock alone
 * would not keep consistent with the interval).  Taken before
 * ktimer_lock; also by the tick. */
static struct spinlock itimer_lock = SPINLOCK_INIT("itimer");

/* The first deadline after now on the timer's period, as hrtimer_forward. */
static uint64_t next_period(uint64_t expired, uint64_t interval, uint64_t now)
{
	uint64_t next = expired + interval;

	if (next <= now)
		next += ((now - next) / interval + 1) * interval;
	return next;
}

/* ITIMER_REAL's ktimer callback, from the tick.  Lifetime: g is freed
 * only after itimer_release waited for this callback to end; if g died
 * meanwhile (itimer_exit cancels without waiting: it holds proc_lock,
 * which signal_send_process takes), the send finds it no longer live. */
static void real_fired(struct ktimer *k)
{
	struct thread_group *g = container_of(k, struct thread_group, itimers.real);
	uint64_t interval;

	spin_lock(&itimer_lock);
	interval = g->itimers.real_interval_ns;
	if (interval)
		ktimer_arm(k, next_period(k->expires, interval, clock_monotonic_ns()));
	spin_unlock(&itimer_lock);
	signal_send_process(g, SIGALRM);
}

void itimer_init(struct thread_group *g)
{
	g->itimers = (struct itimers){0};
	ktimer_init(&g->itimers.real, real_fired);
}

void itimer_exit(struct thread_group *g)
{
	spin_lock(&itimer_lock);
	ktimer_cancel(&g->itimers.real);
	g->itimers.real_interval_ns = 0;
	g->itimers.virt = g->itimers.prof = (struct cpu_itimer){0, 0};
	spin_unlock(&itimer_lock);
}

void itimer_release(struct thread_group *g)
{
	ktimer_cancel_sync(&g->itimers.real);
}

/* Charges a tick to c: true if that expired it (then reloaded or
 * disarmed).  itimer_lock held. */
static bool charge_locked(struct cpu_itimer *c)
{
	if (!c->left_ns)
		return false;
	if (c->left_ns > TICK_NS) {
		c->left_ns -= TICK_NS;
		return false;
	}
	c->left_ns = c->interval_ns;
	return true;
}

void itimer_tick(struct task *t, bool user)
{
	struct thread_group *g = t->group;
	bool virt, prof;

	if (!g || task_exited(t))
		return; /* the idle task; an exiting thread */
	spin_lock(&itimer_lock);
	virt = user && charge_locked(&g->itimers.virt);
	prof = charge_locked(&g->itimers.prof);
	spin_unlock(&itimer_lock);
	if (virt)
		signal_send_process(g, SIGVTALRM);
	if (prof)
		signal_send_process(g, SIGPROF);
}

static struct cpu_itimer *cpu_timer(struct itimers *its, int which)
{
	return which == ITIMER_VIRTUAL ? &its->virt : &its->prof;
}

/* Timer which's time left and interval in ns (itimer_lock held).  A real
 * timer due but not yet fired shows 1 us, as on Linux: 0 means disarmed. */
static void itimer_read_locked(struct itimers *its, int which, uint64_t now, uint64_t *left,
			       uint64_t *interval)
{
	uint64_t expires;

	if (which != ITIMER_REAL) {
		*left = cpu_timer(its, which)->left_ns;
		*interval = cpu_timer(its, which)->interval_ns;
		return;
	}
	expires = ktimer_expires(&its->real);
	*left = !expires ? 0 : expires > now ? expires - now : NSEC_PER_USEC;
	*interval = its->real_interval_ns;
}

/* Sets the caller's timer which to fire in value ns (0 disarms it), then
 * every interval ns; returns the old setting in *old_left, *old_interval. */
static void itimer_set(int which, uint64_t value, uint64_t interval, uint64_t *old_left,
		       uint64_t *old_interval)
{
	struct itimers *its = &current()->group->itimers;
	uint64_t now;

	spin_lock(&itimer_lock);
	now = clock_monotonic_ns();
	itimer_read_locked(its, which, now, old_left, old_interval);
	if (which == ITIMER_REAL) {
		ktimer_cancel(&its->real);
		its->real_interval_ns = value ? interval : 0;
		if (value)
			ktimer_arm(&its->real, now + value);
	} else {
		/* Plus a tick, as Linux: the current tick is only partly ours. */
		*cpu_timer(its, which) = (struct cpu_itimer){value ? value + TICK_NS : 0, interval};
	}
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

static int check_which(int which)
{
	return which >= ITIMER_REAL && which <= ITIMER_PROF ? 0 : -EINVAL;
}

SYSCALL_DEFINE2(getitimer, int, which, struct itimerval_k *, ucur)
{
	uint64_t value, interval;
	struct itimerval_k cur;
	int err = check_which(which);

	if (err)
		return err;
	spin_lock(&itimer_lock);
	itimer_read_locked(&current()->group->itimers, which, clock_monotonic_ns(), &value,
			   &interval);
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
	itimer_set(which, (uint64_t)value, (uint64_t)interval, &old_value, &old_interval);
	old = (struct itimerval_k){ns_to_timeval(old_interval), ns_to_timeval(old_value)};
	return uold ? copy_to_user(uold, &old, sizeof(old)) : 0;
}

SYSCALL_DEFINE1(alarm, unsigned int, seconds)
{
	uint64_t old, interval;
	uint64_t secs, frac;

	itimer_set(ITIMER_REAL, (uint64_t)seconds * NSEC_PER_SEC, 0, &old, &interval);
	secs = old / NSEC_PER_SEC, frac = old % NSEC_PER_SEC;
	/* Rounded to the nearest second, but a pending alarm never reads 0. */
	return (long)(secs + ((!secs && frac) || frac >= NSEC_PER_SEC / 2));
}
