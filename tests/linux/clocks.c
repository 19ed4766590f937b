/* Time through musl: clock_gettime (by the vDSO on Linux when there is one,
 * else the system call), gettimeofday (and its system call's timezone and
 * EFAULTs) and time agree, nanosleep and
 * clock_nanosleep sleep long enough, and bad arguments give EINVAL. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

static long long ns(struct timespec ts)
{
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns(ts);
}

int main(void)
{
	struct timespec a, b, res;
	struct timeval tv;

	plan(15);
	ok(clock_gettime(CLOCK_REALTIME, &a) == 0 && a.tv_sec > 1577836800,
	   "realtime is past 2020");
	ok(gettimeofday(&tv, NULL) == 0 && tv.tv_sec - a.tv_sec <= 2 && tv.tv_sec >= a.tv_sec,
	   "gettimeofday agrees");
	struct {
		int minuteswest, dsttime;
	} tz = {0x55555555, 0x55555555};
	ok(syscall(SYS_gettimeofday, &tv, &tz) == 0 && tz.minuteswest != 0x55555555 &&
	       tz.minuteswest >= -24 * 60 && tz.minuteswest <= 24 * 60 && tz.dsttime != 0x55555555,
	   "the gettimeofday call fills in the timezone too (%d, %d)", tz.minuteswest, tz.dsttime);
	is_errno(syscall(SYS_gettimeofday, &tv, (void *)-1), EFAULT,
		 "an unwritable timezone: EFAULT, as Linux still copies it");
	is_errno(syscall(SYS_gettimeofday, (void *)-1, NULL), EFAULT,
		 "an unwritable timeval: EFAULT");
	time_t t = time(NULL);
	ok(t >= a.tv_sec && t - a.tv_sec <= 2, "time() agrees");
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ok(ns(b) >= ns(a) && a.tv_nsec < 1000000000, "monotonic does not go back");
	ok(clock_getres(CLOCK_MONOTONIC, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0,
	   "clock_getres gives a resolution under a second");

	long long start = mono_ns();
	ok(nanosleep(&(struct timespec){0, 30000000}, NULL) == 0 && mono_ns() - start >= 30000000,
	   "nanosleep(30 ms) sleeps at least 30 ms");
	clock_gettime(CLOCK_MONOTONIC, &a);
	a.tv_nsec += 20000000;
	if (a.tv_nsec >= 1000000000) {
		a.tv_sec++;
		a.tv_nsec -= 1000000000;
	}
	ok(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &a, NULL) == 0 && mono_ns() >= ns(a),
	   "clock_nanosleep to an absolute time");
	ok(usleep(10000) == 0, "usleep");

	errno = 0;
	is_errno(nanosleep(&(struct timespec){0, 1000000000}, NULL), EINVAL,
		 "nanosleep tv_nsec 1e9: EINVAL");
	is_errno(clock_gettime(12345, &a), EINVAL, "clock_gettime of an unknown clock: EINVAL");
	is_int(clock_nanosleep(CLOCK_MONOTONIC, 0, &(struct timespec){-1, 0}, NULL), EINVAL,
	       "clock_nanosleep returns EINVAL for a negative time");

	struct tm tm;
	time_t epoch_day = 86400 * 365;
	gmtime_r(&epoch_day, &tm);
	ok(tm.tm_year == 71 && tm.tm_yday == 0, "gmtime_r: 1971-01-01");
	return done();
}
