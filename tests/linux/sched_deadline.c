/* SCHED_DEADLINE as Linux as root: sched_setattr's checks of struct
 * sched_attr (its size, flags and Linux's __checkparam_dl), the
 * parameters read back (sched_getattr, sched_getscheduler, /proc's stat),
 * the calls that cannot move into the class (sched_setscheduler,
 * sched_setparam: EINVAL), an ordinary user's EPERM, fork and
 * pthread_create refused (EAGAIN) unless SCHED_FLAG_RESET_ON_FORK,
 * admission control (EBUSY once the admitted runtime/period would pass
 * sched_rt_runtime_us/sched_rt_period_us of every CPU, released when a
 * task exits or leaves the class), and CBS throttling: deadline tasks of
 * 10 ms every 100 ms spinning on every CPU leave a normal task room to
 * run.  Nothing here depends on speed: the clock only bounds a wait that
 * would otherwise never end. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "sched_attr.h"

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#define FLAG_RESET_ON_FORK 0x01
#define FLAG_KEEP_PARAMS   0x10
#define MS		   1000000ull

#define MAX_KIDS 64

/* Shared between the parent and its children (MAP_SHARED). */
static volatile struct shared {
	int started, stop;
} * sh;

/* A deadline attr: runtime, deadline and period in ns. */
static struct attr dl(uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a, a.policy = SCHED_DEADLINE;
	a.runtime = runtime, a.deadline = deadline, a.period = period;
	return a;
}

static long setattr(pid_t pid, struct attr *a, long flags)
{
	return sys(SYS_sched_setattr, pid, (long)a, flags, 0);
}

static int to_other(pid_t pid)
{
	struct sched_param p = {0};
	return (int)sys(SYS_sched_setscheduler, pid, SCHED_OTHER, (long)&p, 0);
}

static void bad_attrs(void)
{
	struct attr a = dl(10 * MS, 30 * MS, 30 * MS), big[2];
	pid_t gone = fork();

	if (gone == 0)
		_exit(0);
	reap(gone);
	is_int(setattr(gone, &a, 0), -ESRCH, "an exited pid: ESRCH");
	is_int(setattr(0, NULL, 0), -EINVAL, "NULL attr: EINVAL");
	is_int(setattr(0, &a, 1000), -EINVAL, "flags 1000: EINVAL");
	is_int(setattr(-1, &a, 0), -EINVAL, "pid -1: EINVAL");
	is_int(sys(SYS_sched_setattr, 0, 8, 0, 0), -EFAULT, "attr at 8: EFAULT");
	a.size = 47;
	ok(setattr(0, &a, 0) == -E2BIG && a.size == sizeof a,
	   "size 47: E2BIG, our size %zu written back (%u)", sizeof a, a.size);
	memset(big, 0, sizeof big);
	big[0] = dl(10 * MS, 30 * MS, 30 * MS);
	big[0].size = sizeof big;
	((char *)big)[sizeof big - 1] = 1;
	ok(setattr(0, big, 0) == -E2BIG && big[0].size == sizeof a,
	   "a longer attr with a non-zero tail: E2BIG, size %zu written back (%u)", sizeof a,
	   big[0].size);

	a = dl(10 * MS, 30 * MS, 30 * MS);
	a.flags = 0x80;
	is_int(setattr(0, &a, 0), -EINVAL, "sched_flags 0x80: EINVAL");
	a = dl(10 * MS, 30 * MS, 30 * MS);
	a.prio = 1;
	is_int(setattr(0, &a, 0), -EINVAL, "a priority with SCHED_DEADLINE: EINVAL");
	struct {
		uint64_t r, d, p;
		const char *what;
	} bad[] = {
	    {10 * MS, 0, 30 * MS, "deadline 0"},
	    {1023, 30 * MS, 30 * MS, "runtime 1023 ns"},
	    {20 * MS, 10 * MS, 30 * MS, "runtime > deadline"},
	    {10 * MS, 30 * MS, 20 * MS, "deadline > period"},
	    {10 * MS, 30 * MS, 30 * MS | (1ull << 63), "period bit 63"},
	    {10 * MS, 30 * MS | (1ull << 63), 0, "deadline bit 63"},
	    {20000, 50000, 50000, "period 50 us, under sched_deadline_period_min_us"},
	    {10 * MS, 30 * MS, 5000 * MS, "period 5 s, over sched_deadline_period_max_us"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		a = dl(bad[i].r, bad[i].d, bad[i].p);
		is_int(setattr(0, &a, 0), -EINVAL, "%s: EINVAL", bad[i].what);
	}
	is_int(sys(SYS_sched_getscheduler, 0, 0, 0, 0), SCHED_OTHER, "still SCHED_OTHER");

	struct sched_param p = {0};
	is_int(sys(SYS_sched_setscheduler, 0, SCHED_DEADLINE, (long)&p, 0), -EINVAL,
	       "sched_setscheduler(SCHED_DEADLINE): EINVAL (no parameters)");
	is_int(sys(SYS_sched_getattr, 0, (long)&a, 47, 0), -EINVAL, "getattr size 47: EINVAL");
	is_int(sys(SYS_sched_getattr, 0, (long)&a, sizeof a, 1), -EINVAL,
	       "getattr flags 1: EINVAL");
	is_int(sys(SYS_sched_getattr, gone, (long)&a, sizeof a, 0), -ESRCH,
	       "getattr of an exited pid: ESRCH");
	is_int(sys(SYS_sched_getattr, 0, 8, sizeof a, 0), -EFAULT, "getattr at 8: EFAULT");
}

static void *thread_fn(void *arg)
{
	return arg;
}

static void set_and_read(void)
{
	struct attr a = dl(10 * MS, 30 * MS, 0), got;
	struct timespec ts;
	struct sched_param p = {0};

	pid_t pid = fork();
	if (pid == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(0, &one);
		_exit(sched_setaffinity(0, sizeof one, &one) || setattr(0, &a, 0) != -EPERM);
	}
	int status = reap(pid);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		ok(exited_with(status, 0), "a task bound to CPU 0 alone: EPERM");
	else
		skip("one CPU", "a task bound to CPU 0 alone: EPERM");
	a.size = 0; /* read as SCHED_ATTR_SIZE_VER0 */
	is_int(setattr(0, &a, 0), 0, "10 ms of 30 ms (size 0, period 0) is admitted");
	memset(&got, 0xff, sizeof got);
	ok(sys(SYS_sched_getattr, 0, (long)&got, sizeof got, 0) == 0 && got.size == sizeof got &&
	       got.policy == SCHED_DEADLINE && got.prio == 0 && got.runtime == 10 * MS &&
	       got.deadline == 30 * MS && got.period == 30 * MS,
	   "getattr: SCHED_DEADLINE, 10 ms, deadline 30 ms, period 30 ms (the deadline)");
	is_int(sys(SYS_sched_getscheduler, 0, 0, 0, 0), SCHED_DEADLINE, "getscheduler: 6");
	p.sched_priority = -1;
	ok(sys(SYS_sched_getparam, 0, (long)&p, 0, 0) == 0 && p.sched_priority == 0,
	   "getparam: priority 0");
	ok(stat_field(18) == -101 && stat_field(40) == 0 && stat_field(41) == SCHED_DEADLINE,
	   "stat: priority -101, rt_priority 0, policy 6 (%ld %ld %ld)", stat_field(18),
	   stat_field(40), stat_field(41));
	ts.tv_sec = ts.tv_nsec = -1;
	ok(sys(SYS_sched_rr_get_interval, 0, (long)&ts, 0, 0) == 0 && ts.tv_sec == 0 &&
	       ts.tv_nsec == 0,
	   "a deadline task has no quantum: 0");
	p.sched_priority = 0;
	is_int(sys(SYS_sched_setparam, 0, (long)&p, 0, 0), -EINVAL,
	       "sched_setparam on a deadline task: EINVAL");
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		is_int(sys(SYS_sched_setaffinity, 0, sizeof one, (long)&one, 0), -EBUSY,
		       "bound to CPU 0 alone: EBUSY (admission counted every CPU)");
	else
		skip("one CPU", "bound to CPU 0 alone: EBUSY");
	a = dl(0, 0, 0);
	a.flags = FLAG_KEEP_PARAMS;
	memset(&got, 0, sizeof got);
	ok(setattr(0, &a, 0) == 0 && sys(SYS_sched_getattr, 0, (long)&got, sizeof got, 0) == 0 &&
	       got.runtime == 10 * MS && got.deadline == 30 * MS,
	   "SCHED_FLAG_KEEP_PARAMS keeps the reservation");
	a = dl(20 * MS, 50 * MS, 100 * MS);
	memset(&got, 0, sizeof got);
	ok(setattr(0, &a, 0) == 0 && sys(SYS_sched_getattr, 0, (long)&got, sizeof got, 0) == 0 &&
	       got.runtime == 20 * MS && got.deadline == 50 * MS && got.period == 100 * MS,
	   "new parameters replace the old");

	pid = fork();
	if (pid == 0)
		_exit(0);
	ok(pid < 0 && errno == EAGAIN, "a deadline task's fork: EAGAIN");
	if (pid > 0)
		reap(pid);
	pthread_t th;
	is_int(pthread_create(&th, NULL, thread_fn, NULL), EAGAIN, "its pthread_create: EAGAIN");

	a = dl(20 * MS, 50 * MS, 100 * MS);
	a.flags = FLAG_RESET_ON_FORK;
	is_int(setattr(0, &a, 0), 0, "with SCHED_FLAG_RESET_ON_FORK");
	memset(&got, 0, sizeof got);
	ok(sys(SYS_sched_getattr, 0, (long)&got, sizeof got, 0) == 0 &&
	       got.flags == FLAG_RESET_ON_FORK &&
	       sys(SYS_sched_getscheduler, 0, 0, 0, 0) == (SCHED_DEADLINE | SCHED_RESET_ON_FORK),
	   "getattr and getscheduler show the flag");
	if ((pid = fork()) == 0)
		_exit(sys(SYS_sched_getscheduler, 0, 0, 0, 0) == SCHED_OTHER ? 0 : 1);
	ok(pid > 0 && exited_with(reap(pid), 0), "its child starts SCHED_OTHER, without the flag");
	is_int(sched_yield(), 0, "sched_yield ends the instance: 0");
	is_int(to_other(0), 0, "back to SCHED_OTHER");
	ok(stat_field(18) == 20 && stat_field(41) == SCHED_OTHER, "stat: priority 20, policy 0");
}

/* An ordinary user may not enter the class, whatever RLIMIT_RTPRIO says. */
static void unprivileged(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = {99, 99};
		setrlimit(RLIMIT_RTPRIO, &rl);
		if (setresuid(65534, 65534, 65534))
			_exit(99);
		struct attr a = dl(10 * MS, 30 * MS, 30 * MS);
		_exit(setattr(0, &a, 0) == -EPERM ? 0 : 1);
	}
	ok(exited_with(reap(pid), 0), "uid 65534: EPERM");
}

/* A child that waits for the parent to close the pipe fds's write end. */
static pid_t blocked_child(const int fds[2])
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		close(fds[1]);
		read(fds[0], &c, 1);
		_exit(0);
	}
	return pid;
}

/* setattr(pid, a) until the class has room: a bandwidth given up is
 * free at once in fdkernel, at the task's 0-lag time in Linux (GRUB),
 * within its period.  The clock only bounds the wait. */
static long setattr_when_free(pid_t pid, struct attr *a)
{
	double end = now_s() + 20;
	long err;

	while ((err = setattr(pid, a, 0)) == -EBUSY && now_s() < end)
		sleep_ms(10);
	return err;
}

/*
 * Each task asks for 90 ms of every 100 ms: one per CPU fits in 950000 us
 * of every 1000000 on each (the default RT tunables), one more does not.
 * The parent is the first of them; the children sleep: admission is about
 * what is reserved, not used.
 */
static void admission(void)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), fds[2], n;
	pid_t kids[MAX_KIDS + 1];
	struct attr a = dl(90 * MS, 100 * MS, 100 * MS);
	long err = 0;

	require(ncpu > 0 && ncpu < MAX_KIDS && pipe(fds) == 0, "CPUs, pipe");
	for (int i = 0; i < ncpu; i++)
		require((kids[i] = blocked_child(fds)) > 0, "fork");
	err = setattr_when_free(0, &a);
	for (n = 0; !err && n < ncpu - 1; n++) /* what an earlier test left goes */
		err = setattr_when_free(kids[n], &a);
	if (!err)
		err = setattr(kids[n++], &a, 0);
	ok(n == ncpu && err == -EBUSY,
	   "%d tasks of 90 ms/100 ms admitted on %d CPUs, then EBUSY (%d, %ld)", ncpu, ncpu, n,
	   err);
	int w = write_text("/proc/sys/kernel/sched_rt_runtime_us", "100000") ? errno : 0;
	if (on_fdkernel() || (w != EROFS && w != EACCES))
		is_int(w, EBUSY, "sched_rt_runtime_us below what is admitted: EBUSY");
	else
		skip("/proc/sys is read-only here",
		     "sched_rt_runtime_us below the admitted: EBUSY");
	if (!w)
		write_text("/proc/sys/kernel/sched_rt_runtime_us", "950000");
	is_int(to_other(0), 0, "one leaves the class");
	is_int(setattr_when_free(kids[ncpu - 1], &a), 0, "its bandwidth is freed: admitted");
	kill(kids[0], SIGKILL);
	reap(kids[0]);
	is_int(setattr_when_free(0, &a), 0, "another exits: its bandwidth is freed");
	is_int(to_other(0), 0, "the parent back to SCHED_OTHER");
	close(fds[1]);
	for (int i = 1; i < ncpu; i++)
		reap(kids[i]);
	close(fds[0]);
}

/*
 * A deadline task of 10 ms every 100 ms spinning on every CPU: without
 * throttling nothing else would run.  The parent, SCHED_OTHER, must see
 * them all start and stop them; each spinner exits 0 if stopped, 1 if
 * only its 60 s bound ended it.
 */
static void throttling(void)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), bad = 0;
	pid_t kids[MAX_KIDS];

	memset((void *)sh, 0, sizeof *sh);
	for (int i = 0; i < ncpu; i++) {
		if ((kids[i] = fork()) == 0) {
			struct attr a = dl(10 * MS, 100 * MS, 100 * MS);
			if (setattr_when_free(0, &a))
				_exit(2);
			double end = now_s() + 60;
			__atomic_fetch_add(&sh->started, 1, __ATOMIC_SEQ_CST);
			while (!sh->stop && now_s() < end)
				; /* never blocks, never yields */
			_exit(sh->stop ? 0 : 1);
		}
	}
	double end = now_s() + 60;
	while (sh->started < ncpu && now_s() < end)
		sched_yield();
	for (int i = 0; i < 1000; i++) /* more of the normal task's work */
		getppid();
	sh->stop = 1;
	for (int i = 0; i < ncpu; i++) {
		int status = reap(kids[i]);
		bad += !exited_with(status, 0);
	}
	ok(!bad, "%d deadline tasks spinning (10 ms/100 ms) leave a normal task room to run", ncpu);
}

int main(void)
{
	if (geteuid() != 0)
		skip_all("SCHED_DEADLINE takes root");
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(sh != MAP_FAILED, "mmap");
	plan(50);
	bad_attrs();
	set_and_read();
	unprivileged();
	admission();
	throttling();
	return done();
}
