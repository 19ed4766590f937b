/* nanosleep and clock_nanosleep at the edges: INT64_MAX seconds sleeps
 * (until a signal), relative or absolute; bad timespecs and clocks are
 * EINVAL; an absolute time in the past returns at once.  Raw system calls:
 * Linux's clock ids and flags. */
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#include "sigutil.h"

#define NR_clock_nanosleep 230
#define LCLOCK_REALTIME	   0
#define LCLOCK_MONOTONIC   1
#define LTIMER_ABSTIME	   1
#define SLEEPING_MS	   200

struct lts {
	int64_t sec, nsec;
};

static long lnanosleep(const struct lts *req, struct lts *rem)
{
	return syscall(__NR_nanosleep, req, rem);
}

static long lclock_nanosleep(int clk, int flags, const struct lts *req, struct lts *rem)
{
	return syscall(NR_clock_nanosleep, clk, flags, req, rem);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* How a sleep of INT64_MAX seconds went, in a child. */
enum { SLEEP_NANOSLEEP, SLEEP_CLOCK_REL, SLEEP_CLOCK_ABS };

static void sleep_forever(int how)
{
	struct lts req = {INT64_MAX, 999999999}, rem = {0, 0};
	long r;

	lsig_handle(LSIGUSR1, on_usr1, 0);
	if (how == SLEEP_NANOSLEEP)
		r = lnanosleep(&req, &rem);
	else
		r = lclock_nanosleep(LCLOCK_MONOTONIC, how == SLEEP_CLOCK_ABS ? LTIMER_ABSTIME : 0,
				     &req, &rem);
	if (r == 0)
		_exit(1); /* returned: the deadline overflowed */
	if (errno != EINTR)
		_exit(2);
	/* Relative sleeps report what is left: Linux caps a sleep at
	 * INT64_MAX ns (292 years), so at least 9e9 s. */
	_exit(how == SLEEP_CLOCK_ABS || rem.sec >= 9000000000LL ? 0 : 3);
}

/* A child sleeping INT64_MAX seconds still sleeps after SLEEPING_MS and
 * ends with EINTR (and the time left) when a handled signal comes. */
static void check_forever(int how, const char *what)
{
	int status = -1, asleep;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		sleep_forever(how);
	require(pid > 0, "fork");
	sleep_ms(SLEEPING_MS);
	asleep = waitpid(pid, &status, WNOHANG) == 0;
	kill(pid, SIGUSR1);
	if (asleep)
		waitpid(pid, &status, 0);
	ok(asleep && exited_with(status, 0), "%s of INT64_MAX s sleeps until a signal: EINTR",
	   what);
	if (!asleep || !exited_with(status, 0))
		diag("asleep %d, status %#x", asleep, status);
}

static void test_bad_times(void)
{
	static const struct lts bad[] = {{0, 1000000000}, {0, -1}, {-1, 0}, {INT64_MIN, 0}};

	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		is_errno(lnanosleep(&bad[i], NULL), EINVAL, "nanosleep {%lld, %lld}: EINVAL",
			 (long long)bad[i].sec, (long long)bad[i].nsec);
		is_errno(lclock_nanosleep(LCLOCK_MONOTONIC, LTIMER_ABSTIME, &bad[i], NULL), EINVAL,
			 "clock_nanosleep absolute {%lld, %lld}: EINVAL", (long long)bad[i].sec,
			 (long long)bad[i].nsec);
	}
}

static void test_clocks_and_flags(void)
{
	struct lts zero = {0, 0}, short_sleep = {0, 1000000};

	is_errno(lclock_nanosleep(99, 0, &short_sleep, NULL), EINVAL, "unknown clock: EINVAL");
	is_int(lclock_nanosleep(LCLOCK_REALTIME, LTIMER_ABSTIME, &zero, NULL), 0,
	       "an absolute CLOCK_REALTIME time in the past returns 0 at once");
	is_int(lclock_nanosleep(LCLOCK_MONOTONIC, 0, &short_sleep, NULL), 0,
	       "a 1 ms relative CLOCK_MONOTONIC sleep returns 0");
	is_errno(lclock_nanosleep(LCLOCK_MONOTONIC, 0, (struct lts *)8, NULL), EFAULT,
		 "an unreadable request: EFAULT");
}

int main(void)
{
	plan(15);
	check_forever(SLEEP_NANOSLEEP, "nanosleep");
	check_forever(SLEEP_CLOCK_REL, "relative clock_nanosleep");
	check_forever(SLEEP_CLOCK_ABS, "absolute clock_nanosleep");
	test_bad_times();
	test_clocks_and_flags();
	return tap_failed != 0;
}
