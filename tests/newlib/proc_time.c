/* Tests of time and system identity: the monotonic clock moves forward,
 * nanosleep sleeps at least as asked, the real-time clock, time(2) and
 * uname are sane. */
#include <errno.h>
#include <string.h>
#include <fdkernel.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <time.h>

#include "tap.h"
#include "testutil.h"

static long long ns_of(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static long long monotonic_ns(void)
{
	struct timespec ts = {0, 0};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ns_of(&ts);
}

static void test_monotonic(void)
{
	struct timespec ts;
	long long first = monotonic_ns(), last = first;
	bool never_back = true;
	ok(clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000,
	   "clock_gettime(CLOCK_MONOTONIC) succeeds with a valid tv_nsec");
	for (int i = 0; i < 1000 && last == first; i++) {
		long long now = monotonic_ns();
		never_back &= now >= last;
		last = now;
	}
	ok(never_back && last > first, "the monotonic clock never goes back and moves forward");
}

static void test_nanosleep(void)
{
	struct timespec req = {0, 20 * 1000000L};
	long long before = monotonic_ns(), slept;
	ok(nanosleep(&req, NULL) == 0, "nanosleep(20 ms) returns 0");
	slept = monotonic_ns() - before;
	ok(slept >= 20 * 1000000LL, "it slept at least 20 ms (%lld us)", slept / 1000);
}

static void test_realtime_and_uname(void)
{
	struct timespec ts = {0, 0};
	struct utsname u = {0};
	ok(clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec > 1577836800,
	   "CLOCK_REALTIME is past 2020 (%lld)", (long long)ts.tv_sec);
	ok(uname(&u) == 0 && u.sysname[0] && strcmp(u.machine, "x86_64") == 0,
	   "uname: sysname \"%s\", machine \"%s\"", u.sysname, u.machine);
}

/* time(2) by the raw call (glibc's time() would use the vDSO). */
static void test_time_call(void)
{
	struct timespec ts;
	long t1, t2 = 0, t0;
	clock_gettime(CLOCK_REALTIME, &ts);
	t0 = ts.tv_sec;
	t1 = syscall(__NR_time, NULL);
	/* Linux's time() reads the second the tick last stored, which may
	 * trail clock_gettime's just after a second begins. */
	ok(t1 >= t0 - 1 && t1 <= t0 + 2, "time(NULL) %ld is CLOCK_REALTIME's second %ld", t1, t0);
	ok(syscall(__NR_time, &t2) >= t1 && t2 >= t1 && t2 <= t1 + 2, "time(&t) stores it (%ld)",
	   t2);
	is_errno(syscall(__NR_time, (void *)1), EFAULT, "time((void *)1): EFAULT");
}

int main(void)
{
	plan(9);
	test_monotonic();
	test_nanosleep();
	test_realtime_and_uname();
	test_time_call();
	return done();
}
