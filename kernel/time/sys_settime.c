/*
 * Setting the real-time clock: clock_settime(CLOCK_REALTIME) and
 * settimeofday, with Linux's checks in Linux's order.  The new time goes
 * into the vDSO's data page at once (arch/x86_64/vclock.c), so user space
 * reads it without a system call; CLOCK_MONOTONIC does not move.  Nothing
 * writes it back to the CMOS clock (Linux's NTP sync does, every 11
 * minutes, only while synchronised).
 */
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/vclock.h"
#include "proc/cpuclock.h"
#include "proc/cred.h"
#include "fs/event/timerfd.h"
#include "sched/ktimer.h"
#include "sys/syscall.h"
#include "time/settime.h"
#include <uapi/capability.h>
#include <uapi/errno.h>
#include <uapi/time.h>

/* Linux's TIME_SETTOD_SEC_MAX: KTIME_SEC_MAX less 30 years of uptime. */
#define SETTOD_SEC_MAX (KTIME_MAX / NSEC_PER_SEC - 30LL * 365 * 86400)

struct timeval_k {
	int64_t tv_sec, tv_usec;
};

struct timezone_k {
	int32_t tz_minuteswest, tz_dsttime;
};

/* Linux's do_sys_settimeofday64 for the time: a valid time before
 * SETTOD_SEC_MAX (EINVAL), CAP_SYS_TIME (EPERM). */
static int settime_checks(int64_t sec, int64_t nsec)
{
	if (sec < 0 || nsec < 0 || nsec >= (int64_t)NSEC_PER_SEC || sec >= SETTOD_SEC_MAX)
		return -EINVAL;
	return capable(CAP_SYS_TIME) ? 0 : -EPERM;
}

int clock_set_realtime(int64_t ns, bool relative)
{
	int err = vclock_set(ns, relative);

	if (!err)
		timerfd_clock_was_set();
	return err;
}

static long set_realtime(int64_t sec, int64_t nsec)
{
	int err = settime_checks(sec, nsec);

	return err ? err : clock_set_realtime(sec * (int64_t)NSEC_PER_SEC + nsec, false);
}

/* The other clocks cannot be set: EINVAL, and EPERM for an encoded
 * CPU-time clock ("you can never reset a CPU clock"), as Linux. */
SYSCALL_DEFINE2(clock_settime, int, clk, const struct timespec_k *, uts)
{
	struct timespec_k ts;

	if (clk != CLOCK_REALTIME && !(clk < 0 && cpuclock_id(clk)))
		return -EINVAL;
	if (copy_from_user(&ts, uts, sizeof(ts)))
		return -EFAULT;
	if (clk != CLOCK_REALTIME)
		return -EPERM;
	return set_realtime(ts.tv_sec, ts.tv_nsec);
}

/* Either may be NULL.  The time zone (within 15 hours of UTC) is only
 * what gettimeofday reports back; Linux's first-call warp of a CMOS
 * clock kept in local time does not apply (it is read as UTC). */
SYSCALL_DEFINE2(settimeofday, const struct timeval_k *, utv, const struct timezone_k *, utz)
{
	struct timeval_k tv;
	struct timezone_k tz;
	int err;

	if (utv && copy_from_user(&tv, utv, sizeof(tv)))
		return -EFAULT;
	if (utv && (tv.tv_usec < 0 || tv.tv_usec > 1000000))
		return -EINVAL;
	if (utz && copy_from_user(&tz, utz, sizeof(tz)))
		return -EFAULT;
	if (utv && (err = settime_checks(tv.tv_sec, tv.tv_usec * 1000)))
		return err;
	if (!capable(CAP_SYS_TIME))
		return -EPERM;
	if (utz) {
		if (tz.tz_minuteswest > 15 * 60 || tz.tz_minuteswest < -15 * 60)
			return -EINVAL;
		vclock_set_timezone(tz.tz_minuteswest, tz.tz_dsttime);
	}
	return utv ? set_realtime(tv.tv_sec, tv.tv_usec * 1000) : 0;
}
