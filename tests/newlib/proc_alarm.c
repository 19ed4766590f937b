/* alarm, setitimer and getitimer (ITIMER_REAL): SIGALRM on time, the
 * interval reload, the time left, alarm's rounding, the default action,
 * cleared in a fork child, kept across execve, errors as Linux. */
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "sigutil.h"

#define MS 1000000L /* ns */

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static int set_real(long value_us, long interval_us, struct itimerval *old)
{
	struct itimerval it = {{interval_us / 1000000, interval_us % 1000000},
			       {value_us / 1000000, value_us % 1000000}};

	return setitimer(ITIMER_REAL, &it, old);
}

static long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

/* Waits (pause) until `count` SIGALRMs have come: the ns it took. */
static long wait_alarms(int count)
{
	long start = now_ns();

	while (alarms < count)
		pause();
	return now_ns() - start;
}

/*
 * The time left depends on how long the test was descheduled between two
 * calls (CI machines are loaded): each check allows exactly what the
 * measured time in between can explain, never a guess at the machine.
 */
static void test_alarm_calls(void)
{
	long start;
	unsigned int left;

	is_int(alarm(0), 0, "alarm(0) with none pending returns 0");
	start = now_ns();
	alarm(5);
	left = alarm(0);
	ok(left == 5 || (left == 4 && now_ns() - start >= 500 * MS),
	   "alarm(0) returns the 5 s left of alarm(5), rounded (%u)", left);
	start = now_ns();
	set_real(300000, 0, NULL);
	left = alarm(0);
	ok(left == 1 || (left == 0 && now_ns() - start >= 300 * MS),
	   "an alarm under a second away counts as 1 (%u)", left);
	alarms = 0;
}

static void test_one_shot(void)
{
	long took;

	alarms = 0;
	ok(set_real(100000, 0, NULL) == 0, "setitimer(ITIMER_REAL, 100 ms)");
	took = wait_alarms(1);
	ok(took >= 90 * MS, "SIGALRM came, not before its 100 ms (%ld ms)", took / MS);
}

static void test_interval(void)
{
	struct itimerval it;
	long took;

	alarms = 0;
	set_real(50000, 50000, NULL);
	took = wait_alarms(4);
	set_real(0, 0, &it);
	ok(took >= 180 * MS, "an interval of 50 ms: 4 SIGALRMs, not before 200 ms (%ld ms)",
	   took / MS);
	is_int(tv_us(&it.it_interval), 50000, "setitimer's old value shows the 50 ms interval");
	getitimer(ITIMER_REAL, &it);
	ok(tv_us(&it.it_value) == 0 && tv_us(&it.it_interval) == 0,
	   "a zero it_value disarms it (getitimer shows zeroes)");
}

/* Time left of 10 s armed at `start`: at most 10 s, at least what the time
 * since allows (one 10 ms tick of rounding). */
static bool left_of_10s(long value_us, long start)
{
	return value_us <= 10000000 && value_us >= 10000000 - (now_ns() - start) / 1000 - 10000;
}

static void test_remaining(void)
{
	struct itimerval it, old;
	long start = now_ns();

	set_real(10000000, 2500000, NULL);
	memset(&it, 0xff, sizeof it);
	getitimer(ITIMER_REAL, &it);
	ok(left_of_10s(tv_us(&it.it_value), start) && tv_us(&it.it_interval) == 2500000,
	   "getitimer: %ld us left of 10 s, interval 2.5 s", tv_us(&it.it_value));
	set_real(0, 0, &old);
	ok(left_of_10s(tv_us(&old.it_value), start) && tv_us(&old.it_value) <= tv_us(&it.it_value),
	   "setitimer returns the old value");
}

static void child_pauses(void)
{
	alarm(0);
	set_real(50000, 0, NULL);
	pause();
}

/* A fork child starts without its parent's timer. */
static void child_checks_timer(void)
{
	struct itimerval it;

	getitimer(ITIMER_REAL, &it);
	if (tv_us(&it.it_value) || alarm(0))
		_exit(1);
}

static void test_fork_and_default(void)
{
	lsig_handle(LSIGALRM, NULL, 0); /* SIG_DFL in the children */
	ok(killed_by(child_status(child_pauses), SIGALRM),
	   "SIGALRM's default action ends the process");
	set_real(10000000, 0, NULL);
	ok(exited_with(child_status(child_checks_timer), 0), "a fork child has no timer");
	set_real(0, 0, NULL);
	lsig_handle(LSIGALRM, on_alarm, 0);
}

static void test_exec(const char *argv0)
{
	char path[300];
	char *argv[] = {"sleep", "5", NULL}, *envp[] = {NULL};
	int status = -1;
	pid_t pid;

	test_bin_path(argv0, "sleep", path, sizeof path);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		lsig_handle(LSIGALRM, NULL, 0);
		set_real(200000, 0, NULL);
		execve(path, argv, envp);
		_exit(100);
	}
	waitpid(pid, &status, 0);
	ok(killed_by(status, SIGALRM), "the timer survives execve: 'sleep 5' ends by SIGALRM");
}

static void test_errors(void)
{
	struct itimerval it = {{0, 0}, {0, 1000000}};

	is_errno(setitimer(ITIMER_REAL, &it, NULL), EINVAL, "tv_usec of 1000000: EINVAL");
	it.it_value = (struct timeval){-1, 0};
	is_errno(setitimer(ITIMER_REAL, &it, NULL), EINVAL, "a negative tv_sec: EINVAL");
	it.it_value = (struct timeval){0, 0};
	is_errno(setitimer(99, &it, NULL), EINVAL, "an unknown timer: EINVAL");
	is_errno(getitimer(99, &it), EINVAL, "getitimer of an unknown timer: EINVAL");
	is_errno(getitimer(ITIMER_REAL, (struct itimerval *)8), EFAULT,
		 "getitimer to an unwritable address: EFAULT");
	is_errno(setitimer(ITIMER_REAL, (struct itimerval *)8, NULL), EFAULT,
		 "setitimer from an unreadable address: EFAULT");
}

int main(int argc, char **argv)
{
	(void)argc;
	plan(19);
	require(lsig_handle(LSIGALRM, on_alarm, 0) == 0, "sigaction");
	test_alarm_calls();
	test_one_shot();
	test_interval();
	test_remaining();
	test_fork_and_default();
	test_exec(argv[0]);
	test_errors();
	return tap_failed != 0;
}
