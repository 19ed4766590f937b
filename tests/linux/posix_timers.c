/* POSIX timers as Linux runs them: SIGEV_SIGNAL with si_code SI_TIMER,
 * si_value, si_timerid and si_overrun; the default sigevent (SIGALRM, the
 * id as value); timer_settime relative, TIMER_ABSTIME, interval and old
 * value; timer_gettime; overruns while the signal waits, since a time
 * long past, saturated at INT_MAX, and timer_getoverrun; SIGEV_NONE;
 * SIGEV_THREAD_ID to one thread; the CPU clocks; fork children and
 * exec'd images without the timers; every bad argument's errno; and a
 * process that leaks thousands of timers gives them back when it ends. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

#define MS 1000000L

struct kevent { /* struct sigevent as the kernel reads it */
	union sigval value;
	int signo, notify, tid;
	int pad[11];
};

static long sys(long nr, long a, long b, long c, long d)
{
	long r = syscall(nr, a, b, c, d);
	return r < 0 ? -errno : r;
}

static long create(clockid_t clk, int notify, int signo, int value, int tid, int *id)
{
	struct kevent ev = {.value.sival_int = value, .signo = signo, .notify = notify, .tid = tid};

	return sys(SYS_timer_create, clk, (long)&ev, (long)id, 0);
}

static long settime(int id, int flags, long value_ns, long interval_ns, struct itimerspec *old)
{
	struct itimerspec its = {{interval_ns / 1000000000, interval_ns % 1000000000},
				 {value_ns / 1000000000, value_ns % 1000000000}};

	return sys(SYS_timer_settime, id, flags, (long)&its, (long)old);
}

static sigset_t set_of(int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	return s;
}

/* Waits for sig (blocked) up to 10 s: the signal or -1. */
static int wait_for(int sig, siginfo_t *si)
{
	sigset_t s = set_of(sig);

	return sigtimedwait(&s, si, &(struct timespec){10, 0});
}

static void test_signal(void)
{
	siginfo_t si;
	int id = -1;

	ok(create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 42, 0, &id) == 0 && id >= 0,
	   "timer_create CLOCK_MONOTONIC, SIGEV_SIGNAL (id %d)", id);
	ok(settime(id, 0, 20 * MS, 0, NULL) == 0, "armed for 20 ms");
	ok(wait_for(SIGRTMIN, &si) == SIGRTMIN && si.si_code == SI_TIMER &&
	       si.si_value.sival_int == 42 && si.si_timerid == id && si.si_overrun == 0,
	   "its signal: SI_TIMER, the value, the timer id, no overrun");
	struct itimerspec cur;
	ok(sys(SYS_timer_gettime, id, (long)&cur, 0, 0) == 0 && cur.it_value.tv_sec == 0 &&
	       cur.it_value.tv_nsec == 0,
	   "a one-shot timer that fired reads disarmed");
	is_int(sys(SYS_timer_delete, id, 0, 0, 0), 0, "timer_delete");
	is_int(sys(SYS_timer_delete, id, 0, 0, 0), -EINVAL, "timer_delete again: EINVAL");

	ok(sys(SYS_timer_create, CLOCK_REALTIME, 0, (long)&id, 0) == 0, "no sigevent: the default");
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	now.tv_sec -= 1; /* an absolute time already past: at once */
	struct itimerspec abs = {{0, 0}, now};
	ok(sys(SYS_timer_settime, id, TIMER_ABSTIME, (long)&abs, 0) == 0 &&
	       wait_for(SIGALRM, &si) == SIGALRM && si.si_value.sival_int == id &&
	       si.si_code == SI_TIMER,
	   "TIMER_ABSTIME in the past fires at once: SIGALRM with the id as value");
	sys(SYS_timer_delete, id, 0, 0, 0);
}

static void test_settime(void)
{
	struct itimerspec cur, old;
	int id;

	create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id);
	settime(id, 0, 10000 * MS, 3000 * MS, NULL);
	ok(sys(SYS_timer_gettime, id, (long)&cur, 0, 0) == 0 && cur.it_value.tv_sec <= 9 &&
	       cur.it_value.tv_sec >= 5 && cur.it_interval.tv_sec == 3 &&
	       cur.it_interval.tv_nsec == 0,
	   "timer_gettime: time left and interval (%ld s)", (long)cur.it_value.tv_sec);
	ok(settime(id, 0, 0, 0, &old) == 0 && old.it_interval.tv_sec == 3 &&
	       old.it_value.tv_sec <= 9 && old.it_value.tv_sec >= 5,
	   "timer_settime returns the old setting");
	ok(sys(SYS_timer_gettime, id, (long)&cur, 0, 0) == 0 && !cur.it_value.tv_sec &&
	       !cur.it_value.tv_nsec && !cur.it_interval.tv_sec,
	   "a zero value disarms it");
	is_int(sys(SYS_timer_settime, id, 0, 0, 0), -EINVAL, "timer_settime NULL: EINVAL");
	struct itimerspec bad = {{0, 0}, {0, 1000000000}};
	is_int(sys(SYS_timer_settime, id, 0, (long)&bad, 0), -EINVAL, "tv_nsec 1e9: EINVAL");
	bad.it_value.tv_nsec = 0, bad.it_value.tv_sec = -1;
	is_int(sys(SYS_timer_settime, id, 0, (long)&bad, 0), -EINVAL, "negative: EINVAL");
	is_int(sys(SYS_timer_settime, id, 0, 8, 0), -EFAULT, "bad itimerspec: EFAULT");
	is_int(sys(SYS_timer_settime, id + 1000, 0, (long)&cur, 0), -EINVAL,
	       "no such timer: EINVAL");
	is_int(sys(SYS_timer_gettime, id + 1000, (long)&cur, 0, 0), -EINVAL,
	       "timer_gettime of no timer: EINVAL");
	is_int(sys(SYS_timer_gettime, id, 8, 0, 0), -EFAULT, "timer_gettime bad pointer: EFAULT");
	is_int(sys(SYS_timer_getoverrun, id + 1000, 0, 0, 0), -EINVAL,
	       "timer_getoverrun of no timer: EINVAL");
	sys(SYS_timer_delete, id, 0, 0, 0);
}

static void test_overrun(void)
{
	siginfo_t si;
	int id;

	create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN + 1, 5, 0, &id);
	settime(id, 0, 10 * MS, 10 * MS, NULL);
	usleep(200000); /* 20 periods at least, the signal blocked */
	ok(wait_for(SIGRTMIN + 1, &si) == SIGRTMIN + 1 && si.si_overrun >= 1,
	   "periods while the signal waited count as overruns (%d)", si.si_overrun);
	ok(sys(SYS_timer_getoverrun, id, 0, 0, 0) == si.si_overrun,
	   "timer_getoverrun gives the delivered signal's overrun");
	sys(SYS_timer_delete, id, 0, 0, 0);
	sigset_t s = set_of(SIGRTMIN + 1);
	sigtimedwait(&s, &si, &(struct timespec){0, 0}); /* one may have come since */
}

/* The overrun of the first signal of a CLOCK_REALTIME timer armed at an
 * absolute time ago_s seconds past, then every interval_ns: -1 if none
 * came, -2 if timer_getoverrun disagrees with si_overrun. */
static int overrun_since(long ago_s, long interval_ns)
{
	struct timespec now;
	siginfo_t si;
	int id, got;

	clock_gettime(CLOCK_REALTIME, &now);
	create(CLOCK_REALTIME, SIGEV_SIGNAL, SIGRTMIN + 1, 6, 0, &id);
	settime(id, TIMER_ABSTIME, (now.tv_sec - ago_s) * 1000000000L, interval_ns, NULL);
	got = wait_for(SIGRTMIN + 1, &si) == SIGRTMIN + 1 ? si.si_overrun : -1;
	if (sys(SYS_timer_getoverrun, id, 0, 0, 0) != got)
		got = -2;
	sys(SYS_timer_delete, id, 0, 0, 0);
	sigset_t s = set_of(SIGRTMIN + 1);
	sigtimedwait(&s, &si, &(struct timespec){0, 0}); /* one may have come since */
	return got;
}

/* A time long past (before fdkernel's boot): every period since is an
 * overrun of the first expiry, up to INT_MAX (Linux's DELAYTIMER_MAX). */
static void test_overrun_past(void)
{
	int n = overrun_since(1000000, 1000000000L);

	ok(n >= 1000000 && n < 1000000 + 3600,
	   "a time 10^6 s past, 1 s periods: 10^6 overruns (%d)", n);
	n = overrun_since(1000000, 1000);
	ok(n == INT_MAX, "10^15 periods: the overrun saturates at INT_MAX (%d)", n);
}

static void test_none(void)
{
	struct itimerspec a, b;
	siginfo_t si;
	int id;

	create(CLOCK_MONOTONIC, SIGEV_NONE, 0, 0, 0, &id);
	/* 60 s: it cannot expire before the first reading, however late. */
	settime(id, 0, 60000 * MS, 0, NULL);
	sys(SYS_timer_gettime, id, (long)&a, 0, 0);
	usleep(20000);
	sys(SYS_timer_gettime, id, (long)&b, 0, 0);
	ok(b.it_value.tv_sec * 1000 * MS + b.it_value.tv_nsec <
	       a.it_value.tv_sec * 1000 * MS + a.it_value.tv_nsec,
	   "SIGEV_NONE: the time left runs down");
	settime(id, 0, 60 * MS, 0, NULL);
	usleep(80000);
	sys(SYS_timer_gettime, id, (long)&b, 0, 0);
	sigset_t alrm = set_of(SIGALRM);
	ok(!b.it_value.tv_sec && !b.it_value.tv_nsec &&
	       sigtimedwait(&alrm, &si, &(struct timespec){0, 0}) == -1,
	   "then reads expired, and no signal came");
	sys(SYS_timer_delete, id, 0, 0, 0);
}

static volatile pid_t thread_tid;
static volatile int thread_got;

static void *target(void *arg)
{
	siginfo_t si;

	(void)arg;
	thread_tid = gettid();
	if (wait_for(SIGRTMIN + 2, &si) == SIGRTMIN + 2)
		thread_got = si.si_value.sival_int;
	return NULL;
}

static void test_thread_id(void)
{
	pthread_t t;
	int id;

	pthread_create(&t, NULL, target, NULL);
	while (!thread_tid)
		sched_yield();
	ok(create(CLOCK_MONOTONIC, SIGEV_THREAD_ID | SIGEV_SIGNAL, SIGRTMIN + 2, 31, thread_tid,
		  &id) == 0,
	   "SIGEV_THREAD_ID to a thread of ours");
	settime(id, 0, 10 * MS, 0, NULL);
	pthread_join(t, NULL);
	ok(thread_got == 31, "that thread takes the signal");
	sys(SYS_timer_delete, id, 0, 0, 0);
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	is_int(create(CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGRTMIN, 0, child, &id), -EINVAL,
	       "SIGEV_THREAD_ID to another process's thread: EINVAL");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static void test_cpu(void)
{
	siginfo_t si;
	sigset_t s = set_of(SIGRTMIN + 3);
	int id, got = -1;

	for (int clk = CLOCK_PROCESS_CPUTIME_ID; clk <= CLOCK_THREAD_CPUTIME_ID; clk++) {
		ok(create(clk, SIGEV_SIGNAL, SIGRTMIN + 3, clk, 0, &id) == 0 &&
		       settime(id, 0, 30 * MS, 0, NULL) == 0,
		   "a timer on CPU clock %d", clk);
		got = -1;
		/* Spin (bounded: a few seconds of CPU) until it fires. */
		for (long i = 0; i < 3000000000L && got < 0; i++)
			if (!(i & 0xfffff))
				got = sigtimedwait(&s, &si, &(struct timespec){0, 0});
		ok(got == SIGRTMIN + 3 && si.si_value.sival_int == clk,
		   "fires after 30 ms of CPU time");
		sys(SYS_timer_delete, id, 0, 0, 0);
	}
}

static void test_errors(void)
{
	int id;

	is_int(create(12345, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id), -EINVAL, "unknown clock: EINVAL");
	is_int(create(CLOCK_MONOTONIC_RAW, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id), -EOPNOTSUPP,
	       "CLOCK_MONOTONIC_RAW: EOPNOTSUPP");
	is_int(create(CLOCK_MONOTONIC, 99, SIGRTMIN, 0, 0, &id), -EINVAL,
	       "sigev_notify 99: EINVAL");
	is_int(create(CLOCK_MONOTONIC, SIGEV_SIGNAL, 0, 0, 0, &id), -EINVAL, "signal 0: EINVAL");
	is_int(create(CLOCK_MONOTONIC, SIGEV_SIGNAL, 65, 0, 0, &id), -EINVAL, "signal 65: EINVAL");
	is_int(sys(SYS_timer_create, CLOCK_MONOTONIC, 8, (long)&id, 0), -EFAULT,
	       "bad sigevent: EFAULT");
	is_int(create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 0, 0, (int *)8), -EFAULT,
	       "bad id pointer: EFAULT");
	/* That timer was not kept: the next id is free, created and deleted. */
	ok(create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id) == 0 &&
	       sys(SYS_timer_delete, id, 0, 0, 0) == 0,
	   "a timer still creates and deletes");
}

/* A child's view: its parent's timer id is none of its own. */
static void test_fork_exec(const char *self)
{
	int id, status;

	create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id);
	settime(id, 0, 100000 * MS, 0, NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(sys(SYS_timer_gettime, id, (long)&(struct itimerspec){0}, 0, 0) == -EINVAL
			  ? 0
			  : 1);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a fork child has no timers");
	if ((pid = fork()) == 0) {
		char arg[16];
		snprintf(arg, sizeof(arg), "%d", id);
		execl(self, self, "probe", arg, (char *)NULL);
		_exit(2);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "exec deletes the timers");
	sys(SYS_timer_delete, id, 0, 0, 0);
}

static void test_leak(void)
{
	struct rlimit r;
	int status, made = 0, id;

	pid_t pid = fork();
	if (pid == 0) {
		getrlimit(RLIMIT_SIGPENDING, &r);
		r.rlim_cur = 3000; /* the soft one only: the hard one stays */
		setrlimit(RLIMIT_SIGPENDING, &r);
		while (made < 5000 &&
		       create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id) == 0) {
			settime(id, 0, 1000 * MS, 1000 * MS, NULL);
			made++;
		}
		_exit(made > 1000 && made <= 3000 && errno == EAGAIN ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a process creates timers up to RLIMIT_SIGPENDING, then EAGAIN, and leaks them");
	ok(create(CLOCK_MONOTONIC, SIGEV_SIGNAL, SIGRTMIN, 0, 0, &id) == 0 &&
	       sys(SYS_timer_delete, id, 0, 0, 0) == 0,
	   "its end gave them back");
}

static volatile int hits;

static void count_hit(int sig)
{
	(void)sig;
	hits++;
}

/* Each thread churns timers aimed at itself, then exits leaving one armed
 * at its own (exited) tid. */
static void *churn(void *arg)
{
	int id;

	(void)arg;
	for (int i = 0; i < 200; i++) {
		if (create(CLOCK_MONOTONIC, SIGEV_THREAD_ID, SIGRTMIN + 4, i, gettid(), &id))
			continue;
		settime(id, 0, MS, MS, NULL);
		sys(SYS_timer_gettime, id, (long)&(struct itimerspec){0}, 0, 0);
		if (i % 50)
			sys(SYS_timer_delete, id, 0, 0, 0);
	}
	return NULL;
}

/* Hostile ends: threads exit with timers aimed at them still firing, the
 * process ends with exit_group while others churn; nothing may break (the
 * kernel's leak check counts what is left). */
static void test_teardown(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t t[8];
		sigset_t s = set_of(SIGRTMIN + 4);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
		signal(SIGRTMIN + 4, count_hit);
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, churn, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		usleep(20000);
		exit(0); /* the other four still churning */
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "threads and a process ending under firing timers end cleanly");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return sys(SYS_timer_gettime, atoi(argv[2]), (long)&(struct itimerspec){0}, 0, 0) ==
			       -EINVAL
			   ? 0
			   : 1;
	sigset_t all;
	sigemptyset(&all);
	for (int s = SIGRTMIN; s <= SIGRTMIN + 3; s++)
		sigaddset(&all, s);
	sigaddset(&all, SIGALRM);
	sigprocmask(SIG_BLOCK, &all, NULL);
	plan(45);
	test_signal();
	test_settime();
	test_overrun();
	test_overrun_past();
	test_none();
	test_thread_id();
	test_cpu();
	test_errors();
	test_fork_exec("/proc/self/exe");
	test_leak();
	test_teardown();
	return done();
}
