/* The real-time policies honoured, as Linux as root: SCHED_FIFO and
 * SCHED_RR set and read back (sched_getparam, sched_getattr,
 * sched_rr_get_interval, /proc/<pid>/stat's priority, rt_priority and
 * policy), RLIMIT_RTPRIO for an ordinary user, SCHED_RESET_ON_FORK, and
 * what the scheduler does with them on one CPU: a FIFO task keeps the CPU
 * until it yields, even from a normal task; its wake-up preempts a normal
 * one; RR tasks of one priority take turns; and RT throttling lets a
 * normal task run beside a FIFO task that never stops.  Nothing here
 * depends on speed: the orderings are the scheduler's rules, and the
 * clock only bounds a wait that would otherwise never end. */
#define _GNU_SOURCE
#include <sched.h>
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

/* Shared between the parent and its children (MAP_SHARED). */
static volatile struct shared {
	char log[16];
	int len;
	int started, after_write, stop;
	long turns[2];
} * sh;

static int set_policy(int policy, int prio)
{
	struct sched_param p = {.sched_priority = prio};
	return (int)sys(SYS_sched_setscheduler, 0, policy, (long)&p, 0);
}

static int get_prio(pid_t pid)
{
	struct sched_param p = {.sched_priority = -1};
	return sys(SYS_sched_getparam, pid, (long)&p, 0, 0) ? -1 : p.sched_priority;
}

static void log_char(char c)
{
	sh->log[__atomic_fetch_add(&sh->len, 1, __ATOMIC_SEQ_CST)] = c;
}

static void set_and_read(void)
{
	struct timespec ts;
	struct attr a;
	char buf[64];

	is_int(set_policy(SCHED_FIFO, 50), 0, "SCHED_FIFO 50 is taken");
	is_int(sys(SYS_sched_getscheduler, 0, 0, 0, 0), SCHED_FIFO, "getscheduler: SCHED_FIFO");
	is_int(get_prio(0), 50, "getparam: 50");
	ok(stat_field(18) == -51 && stat_field(40) == 50 && stat_field(41) == SCHED_FIFO,
	   "/proc/self/stat: priority -51, rt_priority 50, policy 1 (%ld %ld %ld)", stat_field(18),
	   stat_field(40), stat_field(41));
	ts.tv_sec = ts.tv_nsec = -1;
	ok(sys(SYS_sched_rr_get_interval, 0, (long)&ts, 0, 0) == 0 && ts.tv_sec == 0 &&
	       ts.tv_nsec == 0,
	   "a FIFO task has no quantum: 0");
	struct sched_param p = {.sched_priority = 0};
	is_int(sys(SYS_sched_setparam, 0, (long)&p, 0, 0), -EINVAL, "setparam 0 on FIFO: EINVAL");
	p.sched_priority = 100;
	is_int(sys(SYS_sched_setscheduler, 0, SCHED_RR, (long)&p, 0), -EINVAL, "RR 100: EINVAL");
	p.sched_priority = 7;
	ok(sys(SYS_sched_setparam, 0, (long)&p, 0, 0) == 0 && get_prio(0) == 7 &&
	       sys(SYS_sched_getscheduler, 0, 0, 0, 0) == SCHED_FIFO,
	   "setparam 7 keeps FIFO");

	is_int(set_policy(SCHED_RR, 10), 0, "SCHED_RR 10 is taken");
	long ms = read_text("/proc/sys/kernel/sched_rr_timeslice_ms", buf, sizeof buf) > 0
		      ? strtol(buf, NULL, 10)
		      : -1;
	ok(sys(SYS_sched_rr_get_interval, 0, (long)&ts, 0, 0) == 0 &&
	       ts.tv_sec * 1000 + ts.tv_nsec / 1000000 == ms && ms == 100,
	   "RR's quantum: sched_rr_timeslice_ms, 100 ms (%ld ms, %ld ns)", ms, (long)ts.tv_nsec);
	memset(&a, 0, sizeof a);
	ok(syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) == 0 && a.policy == SCHED_RR &&
	       a.prio == 10,
	   "getattr: SCHED_RR, priority 10");
	ok(read_text("/proc/sys/kernel/sched_rt_period_us", buf, sizeof buf) > 0 &&
	       atol(buf) == 1000000 &&
	       read_text("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof buf) > 0 &&
	       atol(buf) == 950000,
	   "RT throttling: 950000 us of each 1000000");
	int w = write_text("/proc/sys/kernel/sched_rt_runtime_us", "2000000") ? errno : 0;
	ok(w == EINVAL || (!on_fdkernel() && (w == EROFS || w == EACCES)),
	   "a runtime beyond the period: EINVAL (%s)", strerror(w));
	is_int(set_policy(SCHED_OTHER, 0), 0, "back to SCHED_OTHER");
	ok(get_prio(0) == 0 && stat_field(18) == 20 && stat_field(40) == 0 && stat_field(41) == 0,
	   "priority 0, stat's priority 20 again");
}

static void forks(void)
{
	pid_t pid;

	set_policy(SCHED_FIFO, 30);
	if ((pid = fork()) == 0)
		_exit(
		    !(sys(SYS_sched_getscheduler, 0, 0, 0, 0) == SCHED_FIFO && get_prio(0) == 30));
	ok(exited_with(reap(pid), 0), "a child inherits SCHED_FIFO 30");
	set_policy(SCHED_FIFO | SCHED_RESET_ON_FORK, 30);
	is_int(sys(SYS_sched_getscheduler, 0, 0, 0, 0), SCHED_FIFO | SCHED_RESET_ON_FORK,
	       "FIFO with SCHED_RESET_ON_FORK");
	if ((pid = fork()) == 0)
		_exit(
		    !(sys(SYS_sched_getscheduler, 0, 0, 0, 0) == SCHED_OTHER && get_prio(0) == 0));
	ok(exited_with(reap(pid), 0), "with SCHED_RESET_ON_FORK the child is SCHED_OTHER, 0");
	set_policy(SCHED_OTHER, 0);
	struct sched_param p = {.sched_priority = 1};
	is_int(sys(SYS_sched_setscheduler, 999999, SCHED_FIFO, (long)&p, 0), -ESRCH,
	       "no such pid: ESRCH");
}

/* An ordinary user's RLIMIT_RTPRIO: 20 allows priorities up to 20; 0
 * refuses a real-time policy.  Raising the hard limit from 0 takes
 * CAP_SYS_RESOURCE, which a host container may not have: then only the
 * limit 0 is tried (exit status 1 says so). */
static void rtprio_limit(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct rlimit rl = {20, 20};
		bool raised = setrlimit(RLIMIT_RTPRIO, &rl) == 0;
		int bad = 0;
		if (setresuid(65534, 65534, 65534))
			_exit(99);
		if (raised) {
			bad |= (set_policy(SCHED_FIFO, 10) != 0) << 1;
			bad |= (set_policy(SCHED_FIFO, 30) != -EPERM) << 2;
			bad |= (set_policy(SCHED_OTHER, 0) != 0) << 3;
		}
		rl.rlim_cur = rl.rlim_max = 0;
		setrlimit(RLIMIT_RTPRIO, &rl);
		bad |= (set_policy(SCHED_RR, 1) != -EPERM) << 4;
		_exit(bad | !raised);
	}
	int status = reap(pid);
	if (on_fdkernel() || !exited_with(status, 1))
		ok(exited_with(status, 0),
		   "uid 65534: RLIMIT_RTPRIO 20 allows FIFO 10, not 30 (EPERM); 0 none (%#x)",
		   WIFEXITED(status) ? WEXITSTATUS(status) : status);
	else
		skip("no CAP_SYS_RESOURCE here to raise RLIMIT_RTPRIO",
		     "uid 65534: RLIMIT_RTPRIO 0 allows no real-time policy (EPERM)");
}

/* Everything below on CPU 0 only, so that the order is the scheduler's. */
static void pin(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	require(sched_setaffinity(0, sizeof set, &set) == 0, "sched_setaffinity");
}

static void fifo_yield_order(void)
{
	memset((void *)sh, 0, sizeof *sh);
	set_policy(SCHED_FIFO, 10);
	pid_t pid = fork(); /* the child waits behind its equal */
	for (int i = 0; i < 3; i++) {
		log_char(pid ? 'P' : 'C');
		sched_yield();
	}
	if (pid == 0)
		_exit(0);
	reap(pid);
	set_policy(SCHED_OTHER, 0);
	sh->log[sh->len] = 0;
	ok(!strcmp((char *)sh->log, "PCPCPC"), "two FIFO tasks take turns only at yields: %s",
	   sh->log);
}

static void fifo_over_normal(void)
{
	int fds[2];

	memset((void *)sh, 0, sizeof *sh);
	require(pipe(fds) == 0, "pipe");
	set_policy(SCHED_FIFO | SCHED_RESET_ON_FORK, 20);
	pid_t pid = fork();
	if (pid == 0) { /* SCHED_OTHER */
		sh->started = 1;
		write(fds[1], "x", 1);
		sh->after_write = 1;
		_exit(0);
	}
	for (int i = 0; i < 100; i++)
		sched_yield();
	int started = sh->started;
	char c;
	read(fds[0], &c, 1); /* the child runs only now */
	int after = sh->after_write;
	set_policy(SCHED_OTHER, 0);
	reap(pid);
	close(fds[0]), close(fds[1]);
	ok(!started, "a FIFO task that yields keeps the CPU from a normal one");
	ok(!after, "its wake-up preempts the normal task at once");
}

/* Task me of two spinning RR tasks of one priority counts its turns: the
 * times it saw the other's count move, which the other moves only while
 * it runs.  Three each means they took turns; never, if they did not (the
 * clock only bounds that wait). */
static void rr_spin(int me)
{
	double end = now_s() + 30;
	long last = -1;

	while ((sh->turns[me] < 3 || sh->turns[!me] < 3) && now_s() < end) {
		long other = sh->turns[!me];
		if (other != last) {
			last = other;
			sh->turns[me]++;
		}
	}
}

static void rr_turns(void)
{
	memset((void *)sh, 0, sizeof *sh);
	set_policy(SCHED_RR, 10);
	pid_t pid = fork();
	rr_spin(pid != 0);
	if (pid == 0)
		_exit(0);
	reap(pid);
	set_policy(SCHED_OTHER, 0);
	ok(sh->turns[0] >= 3 && sh->turns[1] >= 3,
	   "two spinning RR tasks of one priority take turns (%ld, %ld)", sh->turns[0],
	   sh->turns[1]);
}

static void throttling(void)
{
	memset((void *)sh, 0, sizeof *sh);
	set_policy(SCHED_FIFO | SCHED_RESET_ON_FORK, 10);
	pid_t pid = fork();
	if (pid == 0) {
		sh->started = 1;
		_exit(0);
	}
	double end = now_s() + 30;
	while (!sh->started && now_s() < end)
		; /* never blocks, never yields */
	int started = sh->started;
	set_policy(SCHED_OTHER, 0);
	reap(pid);
	ok(started, "RT throttling: a normal task runs beside a spinning FIFO task");
}

int main(void)
{
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(sh != MAP_FAILED, "mmap");
	plan(25);
	set_and_read();
	forks();
	rtprio_limit();
	pin();
	fifo_yield_order();
	fifo_over_normal();
	rr_turns();
	throttling();
	return done();
}
