/* ITIMER_VIRTUAL and ITIMER_PROF count the process's CPU time: SIGVTALRM
 * and SIGPROF come after that much computing, not while it sleeps; the
 * time left and the interval read back; a fork child has neither. */
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "sigutil.h"

static volatile sig_atomic_t fired[65];

static void on_signal(int sig)
{
	fired[sig]++;
}

static long tv_us(const struct timeval *tv)
{
	return tv->tv_sec * 1000000L + tv->tv_usec;
}

static int set_timer(int which, long value_us, long interval_us)
{
	struct itimerval it = {{interval_us / 1000000, interval_us % 1000000},
			       {value_us / 1000000, value_us % 1000000}};

	return setitimer(which, &it, NULL);
}

/* Computes until sig has come `count` times (or 20 s of wall time). */
static void spin_until(int sig, int count)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (volatile int i = 0; i < 100000; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (fired[sig] < count && now.tv_sec - start.tv_sec < 20);
}

static void check_timer(int which, int sig, const char *name)
{
	struct itimerval it;

	fired[sig] = 0;
	ok(set_timer(which, 200000, 0) == 0, "%s: setitimer(200 ms)", name);
	sleep_ms(300);
	getitimer(which, &it);
	ok(fired[sig] == 0 && tv_us(&it.it_value) > 100000,
	   "%s: 300 ms asleep use no CPU time: no signal, %ld us left", name, tv_us(&it.it_value));
	spin_until(sig, 1);
	is_int(fired[sig], 1, "%s: the signal comes after computing", name);
	set_timer(which, 30000, 30000);
	spin_until(sig, 4);
	getitimer(which, &it);
	set_timer(which, 0, 0);
	ok(fired[sig] >= 4 && tv_us(&it.it_interval) == 30000,
	   "%s: an interval of 30 ms reloads it (%d signals)", name, (int)fired[sig]);
}

/* A fork child starts with both timers disarmed. */
static void child_checks(void)
{
	struct itimerval v, p;

	getitimer(ITIMER_VIRTUAL, &v);
	getitimer(ITIMER_PROF, &p);
	_exit(tv_us(&v.it_value) || tv_us(&p.it_value));
}

int main(void)
{
	plan(9);
	require(lsig_handle(LSIGVTALRM, on_signal, UAPI_SA_RESTART) == 0 &&
		    lsig_handle(LSIGPROF, on_signal, UAPI_SA_RESTART) == 0,
		"sigaction");
	check_timer(ITIMER_VIRTUAL, LSIGVTALRM, "ITIMER_VIRTUAL");
	check_timer(ITIMER_PROF, LSIGPROF, "ITIMER_PROF");
	set_timer(ITIMER_VIRTUAL, 10000000, 0);
	set_timer(ITIMER_PROF, 10000000, 0);
	ok(exited_with(child_status(child_checks), 0), "a fork child has no CPU timers");
	set_timer(ITIMER_VIRTUAL, 0, 0);
	set_timer(ITIMER_PROF, 0, 0);
	return tap_failed != 0;
}
