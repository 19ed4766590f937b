/*
 * Process-information and time system calls.  Argument checking and
 * translation only; the work is in sched/sched.c, signal.c and the clock.
 */
#include "arch/x86_64/rtc.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/vclock.h"
#include "lib/string.h"
#include "proc/cpuclock.h"
#include "sched/ktimer.h"
#include "proc/group.h"
#include "proc/pid_ns.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "proc/rusage.h"
#include "proc/signal.h"
#include "proc/sysinfo.h"
#include "sys/syscall.h"
#include "time/timens.h"
#include <uapi/errno.h>
#include <uapi/time.h>

struct timeval_k {
	int64_t tv_sec;
	int64_t tv_usec;
};

struct tms_k {
	int64_t utime, stime, cutime, cstime;
};

/* The real time starts from the CMOS clock; clock_settime moves it. */
void proc_time_init(void)
{
	vclock_set(rtc_read_epoch() * (int64_t)NSEC_PER_SEC, false);
}

int64_t clock_realtime_offset_ns(void)
{
	return vclock_realtime_offset();
}

SYSCALL_DEFINE0(getpid)
{
	return pid_vnr(current()->group->tgid);
}

SYSCALL_DEFINE0(gettid)
{
	return task_nr(current());
}

/* Where the thread's exit zeroes its tid (glibc and musl pass it at start-up). */
SYSCALL_DEFINE1(set_tid_address, uint64_t, tidptr)
{
	current()->clear_child_tid = tidptr;
	return task_nr(current());
}

SYSCALL_DEFINE0(sched_yield)
{
	sched_yield();
	return 0;
}

static int64_t clock_now_ns(int clk)
{
	uint64_t ns;
	int err;

	switch (clk) {
	case CLOCK_REALTIME:
		return clock_realtime_offset_ns() + (int64_t)clock_monotonic_ns();
	case CLOCK_TAI: /* Linux's TAI offset is 0 until adjtimex sets it */
		return clock_realtime_offset_ns() + vclock_tai_offset() * (int64_t)NSEC_PER_SEC +
		       (int64_t)clock_monotonic_ns();
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
		return (int64_t)clock_monotonic_ns() + timens_offset(clk);
	case CLOCK_MONOTONIC_RAW: /* the rate adjtimex does not discipline */
		return (int64_t)clock_monotonic_raw_ns() + timens_offset(clk);
	case CLOCK_REALTIME_COARSE: /* the last tick's time, as the vDSO reads it */
	case CLOCK_MONOTONIC_COARSE:
		return vclock_coarse_ns(clk) + timens_offset(clk);
	}
	if (!cpuclock_id(clk))
		return -EINVAL;
	err = cpuclock_read(clk, &ns);
	return err ? err : (int64_t)ns;
}

SYSCALL_DEFINE2(clock_gettime, int, clk, struct timespec_k *, uts)
{
	int64_t ns = clock_now_ns(clk);
	struct timespec_k ts;

	if (ns < 0)
		return ns;
	ts.tv_sec = ns / NSEC_PER_SEC;
	ts.tv_nsec = ns % NSEC_PER_SEC;
	return copy_to_user(uts, &ts, sizeof(ts));
}

/* The resolution of a clock, as Linux reports it, is that of the timers
 * armed on it (hrtimer_resolution), not of its reading: every clock here
 * reads the TSC to the ns, but every timer, sleep and timeout fires on the
 * tick (sched/ktimer.h), as in Linux's low-resolution mode, whose
 * clock_getres gives TICK_NSEC for every clock.  Programs size their
 * timing margins by it (LTP's select, poll and epoll sleep checks allow
 * twice the resolution per call). */
SYSCALL_DEFINE2(clock_getres, int, clk, struct timespec_k *, uts)
{
	struct timespec_k ts = {0, (int64_t)TICK_NS};

	if (clock_now_ns(clk) < 0)
		return -EINVAL;
	return uts ? copy_to_user(uts, &ts, sizeof(ts)) : 0;
}

/* struct timezone: obsolete, but Linux still copies it out when asked
 * (EFAULT for a bad pointer).  It is what settimeofday last set there
 * (UTC, Linux's value at boot, until then). */
struct timezone_k {
	int32_t tz_minuteswest, tz_dsttime;
};

SYSCALL_DEFINE2(gettimeofday, struct timeval_k *, utv, struct timezone_k *, utz)
{
	int64_t ns = clock_now_ns(CLOCK_REALTIME);
	struct timeval_k tv = {ns / NSEC_PER_SEC, ns % NSEC_PER_SEC / 1000};
	struct timezone_k tz;

	vclock_timezone(&tz.tz_minuteswest, &tz.tz_dsttime);

	if (utv && copy_to_user(utv, &tv, sizeof(tv)))
		return -EFAULT;
	return utz && copy_to_user(utz, &tz, sizeof(tz)) ? -EFAULT : 0;
}

/* Seconds since the epoch at the last tick (Linux's
 * ktime_get_real_seconds, what the vDSO's time() reads), also stored at
 * tloc if not NULL (-EFAULT if it cannot be). */
SYSCALL_DEFINE1(time, int64_t *, tloc)
{
	int64_t secs = clock_now_ns(CLOCK_REALTIME_COARSE) / NSEC_PER_SEC;

	if (tloc && copy_to_user(tloc, &secs, sizeof(secs)))
		return -EFAULT;
	return secs;
}

#define TIMER_ABSTIME 1

/* Reads a sleep request from user memory: its nanoseconds or -errno. */
static int64_t get_sleep_request(const struct timespec_k *ureq)
{
	struct timespec_k req;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	return timespec_to_ns(&req);
}

/* Sleeps until the monotonic deadline.  Cut short by a signal: -EINTR,
 * and the time left goes to urem if given. */
static long sleep_until(uint64_t deadline, struct timespec_k *urem)
{
	int ret = sched_sleep_until(deadline);

	if (ret == -EINTR && urem) {
		uint64_t now = clock_monotonic_ns(), left = deadline > now ? deadline - now : 0;
		struct timespec_k rem = {left / NSEC_PER_SEC, left % NSEC_PER_SEC};
		if (copy_to_user(urem, &rem, sizeof(rem)))
			return -EFAULT;
	}
	return ret;
}

SYSCALL_DEFINE2(nanosleep, const struct timespec_k *, ureq, struct timespec_k *, urem)
{
	int64_t ns = get_sleep_request(ureq);

	if (ns < 0)
		return ns;
	return sleep_until(clock_monotonic_ns() + (uint64_t)ns, urem);
}

int clock_wall_offset(int clk, int64_t *off)
{
	switch (clk) {
	case CLOCK_REALTIME:
		*off = clock_realtime_offset_ns();
		return 0;
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
		*off = timens_offset(clk);
		return 0;
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}

/* clock_wall_offset for a sleep; of the CPU clocks, the thread clock has
 * no sleep on Linux (EOPNOTSUPP), an encoded clock of the caller's own
 * thread would never advance while it sleeps (EINVAL, as Linux's
 * posix_cpu_nsleep), and the process clocks, which Linux sleeps on, are
 * EOPNOTSUPP here. */
static int sleep_clock_offset(int clk, int64_t *off)
{
	int err = clock_wall_offset(clk, off);

	if (err != -EINVAL || !cpuclock_id(clk))
		return err;
	if (clk == CLOCK_THREAD_CPUTIME_ID)
		return -EOPNOTSUPP;
	return cpuclock_is_own_thread(clk) ? -EINVAL : -EOPNOTSUPP;
}

SYSCALL_DEFINE4(clock_nanosleep, int, clk, int, flags, const struct timespec_k *, ureq,
		struct timespec_k *, urem)
{
	int64_t offset, ns;
	int err = sleep_clock_offset(clk, &offset);

	if (err)
		return err;
	if ((ns = get_sleep_request(ureq)) < 0)
		return ns;
	if (!(flags & TIMER_ABSTIME))
		return sleep_until(clock_monotonic_ns() + (uint64_t)ns, urem);
	/* An absolute time, on clk's scale; one already past returns at once.
	 * The real-time clock set back while it slept: it sleeps on to the
	 * time asked (set forward: it still wakes at the old deadline). */
	long ret;
	do
		ret = sleep_until(ns > offset ? (uint64_t)(ns - offset) : 0, NULL);
	while (!ret && clk == CLOCK_REALTIME &&
	       (offset = clock_realtime_offset_ns()) + (int64_t)clock_monotonic_ns() < ns);
	return ret;
}

/* The CPU ticks of g's threads, exited and live, and of its reaped
 * children. */
static struct tms_k process_times(struct thread_group *g)
{
	uint64_t u, s;
	struct tms_k tms;

	spin_lock(&proc_lock);
	group_cpu_ticks_locked(g, &u, &s);
	tms = (struct tms_k){(int64_t)u, (int64_t)s, (int64_t)g->children_utime,
			     (int64_t)g->children_stime};
	spin_unlock(&proc_lock);
	return tms;
}

SYSCALL_DEFINE1(times, struct tms_k *, ubuf)
{
	struct tms_k tms = process_times(current()->group);

	if (ubuf && copy_to_user(ubuf, &tms, sizeof(tms)))
		return -EFAULT;
	return (long)timer_ticks();
}
