/*
 * Kernel timers: a callback run from the timer tick once the monotonic
 * clock reaches a deadline.  The kernel's one timer mechanism: deadline
 * sleeps (nanosleep, poll, through sched.h), the interval timers (alarm,
 * setitimer: proc/itimer.c) and timerfd (fs/event/timerfd.c) are built on it.
 *
 * Armed timers sit in one pairing heap ordered by deadline (ktimer_lock):
 * arming costs O(1), cancelling and each expiry O(log armed timers)
 * amortised, the tick's check O(1); an unarmed timer costs nothing.
 * Resolution is the tick (TIMER_HZ): a timer fires at the first tick at or
 * after its deadline.
 */
#ifndef SCHED_KTIMER_H
#define SCHED_KTIMER_H

#include <stdbool.h>
#include <stdint.h>
#include <uapi/errno.h>

#define NSEC_PER_SEC  1000000000L
#define NSEC_PER_USEC 1000L
/* Linux's longest time (ktime_t): INT64_MAX ns, 292 years, "forever".
 * now + KTIME_MAX cannot overflow a 64-bit deadline. */
#define KTIME_MAX INT64_MAX

struct ktimer {
	uint64_t expires; /* monotonic ns; meaningful while armed */
	/* Runs from the tick with interrupts off and the timer disarmed: it
	 * must not sleep, and may re-arm it for a deadline after now. */
	void (*fn)(struct ktimer *t);
	/* The heap (ktimer.c), all under ktimer_lock: the order among equal
	 * deadlines, the links, and whether the timer is in the heap. */
	uint64_t seq;
	struct ktimer *child, *next, *prev;
	bool armed;
};

void ktimer_init(struct ktimer *t, void (*fn)(struct ktimer *t));
/* Arms t for expires (monotonic ns), moving it if it was armed. */
void ktimer_arm(struct ktimer *t, uint64_t expires);
/* Disarms t; true if it was armed.  Its callback may still be running on
 * CPU 0: before freeing t, use ktimer_cancel_sync. */
bool ktimer_cancel(struct ktimer *t);
/* Disarms t and waits until its callback, if the tick is running it on
 * another CPU, has returned: then t may be freed, provided the callback
 * cannot arm it again (the caller's own state says so).  The caller holds
 * no lock the callback takes. */
void ktimer_cancel_sync(struct ktimer *t);
/* Whether t is armed or its callback running: a check before its free. */
bool ktimer_busy(struct ktimer *t);
/* t's deadline, or 0 if it is not armed. */
uint64_t ktimer_expires(struct ktimer *t);
/* The tick: runs the callback of every timer whose deadline has passed. */
void ktimer_run_expired(void);

/* sec seconds and nsec nanoseconds (both >= 0, nsec < 1e9) in ns,
 * saturated at KTIME_MAX as Linux's ktime_set does. */
static inline int64_t ktime_from(int64_t sec, int64_t nsec)
{
	if (sec >= KTIME_MAX / NSEC_PER_SEC)
		return KTIME_MAX;
	return sec * NSEC_PER_SEC + nsec;
}

/* struct timespec as the x86_64 ABI lays it out. */
struct timespec_k {
	int64_t tv_sec, tv_nsec;
};

/* A timespec in ns, saturated at KTIME_MAX (292 years) as Linux does, so
 * that now + a timeout cannot overflow; or -EINVAL for a negative one or tv_nsec out of [0, 1e9).
 */
static inline int64_t timespec_to_ns(const struct timespec_k *ts)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= NSEC_PER_SEC)
		return -EINVAL;
	return ktime_from(ts->tv_sec, ts->tv_nsec);
}

#endif
