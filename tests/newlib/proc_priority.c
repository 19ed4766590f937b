/* getpriority/setpriority: the raw call's 20 - nice encoding, clamping to
 * -20..19, root lowering a nice value, PRIO_PROCESS of another process
 * and of one thread only (nice is per thread), PRIO_PGRP, PRIO_USER,
 * inheritance by fork, /proc/<pid>/stat fields 18-19; EINVAL, ESRCH.
 * Values are relative to the nice the test starts with (the host may run
 * it niced). */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"
#include "thread.h"

#define NR_getpriority 140
#define NR_setpriority 141
#define PRIO_PROCESS   0
#define PRIO_PGRP      1
#define PRIO_USER      2

/* The raw getpriority: 20 - nice, or -1 with errno. */
static long get_raw(int which, int who)
{
	return syscall(NR_getpriority, which, who);
}

static int nice_of(int which, int who)
{
	return 20 - (int)get_raw(which, who);
}

static long set_nice(int which, int who, int nice)
{
	return syscall(NR_setpriority, which, who, nice);
}

/* Fields 18 (priority) and 19 (nice) of /proc/<pid>/stat. */
static bool stat_prio(pid_t pid, int *prio, int *nice)
{
	char path[64], buf[512], *p;
	int fd, n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0 || !(p = strrchr(buf, ')')))
		return false;
	buf[n] = 0;
	/* After ") ": fields 3 .. 17 are 15 words, then 18 and 19. */
	p += 2;
	for (int i = 0; i < 15 && p; i++)
		p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
	return p && sscanf(p, "%d %d", prio, nice) == 2;
}

static volatile int thread_go, thread_nice = 99;

static int thread_body(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&thread_go, __ATOMIC_ACQUIRE))
		thread_sys(__NR_sched_yield, 0, 0, 0);
	thread_nice = 20 - (int)thread_sys(NR_getpriority, PRIO_PROCESS, 0, 0);
	return 0;
}

int main(void)
{
	int n0, prio, nice, status, fds[2];
	bool root = geteuid() == 0;
	struct thread t;
	pid_t pid;
	char c;

	plan(21);
	n0 = nice_of(PRIO_PROCESS, 0);
	/* The fuzzer's setpriority(PRIO_USER, 0, ...) may have niced every
	 * process, this one included: start from 0 where allowed (root). */
	if (n0 > 15 && set_nice(PRIO_PROCESS, 0, 0) == 0)
		n0 = 0;
	ok(get_raw(PRIO_PROCESS, 0) >= 1 && get_raw(PRIO_PROCESS, 0) <= 40,
	   "the raw getpriority is 20 - nice, 1..40 (%ld)", get_raw(PRIO_PROCESS, 0));
	ok(get_raw(PRIO_PROCESS, getpid()) == 20 - n0 && get_raw(PRIO_PGRP, 0) >= 20 - n0,
	   "who = own pid, or own group");
	ok(set_nice(PRIO_PROCESS, 0, n0 + 3) == 0 && nice_of(PRIO_PROCESS, 0) == n0 + 3,
	   "setpriority raises it by 3");
	ok(stat_prio(getpid(), &prio, &nice) && nice == n0 + 3 && prio == 20 + nice,
	   "/proc/<pid>/stat: nice %d, priority %d", nice, prio);
	ok(set_nice(PRIO_PROCESS, 0, 1000) == 0 && nice_of(PRIO_PROCESS, 0) == 19,
	   "a value above 19 is clamped to 19");
	if (root) {
		ok(set_nice(PRIO_PROCESS, 0, -1000) == 0 && nice_of(PRIO_PROCESS, 0) == -20,
		   "root may lower it; below -20 is clamped to -20");
		ok(set_nice(PRIO_PROCESS, 0, n0) == 0 && nice_of(PRIO_PROCESS, 0) == n0,
		   "and back to where it started");
	} else {
		skip("lowering a nice value needs root", "lowering");
		skip("lowering a nice value needs root", "lowering");
	}

	/* fork: inherited; another process set by pid. */
	set_nice(PRIO_PROCESS, 0, n0 + 2);
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(nice_of(PRIO_PROCESS, 0) - n0);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 2),
	   "a fork child inherits the nice value");
	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		read(fds[0], &c, 1);
		_exit(nice_of(PRIO_PROCESS, 0) == n0 + 5 ? 0 : 1);
	}
	ok(set_nice(PRIO_PROCESS, pid, n0 + 5) == 0 && nice_of(PRIO_PROCESS, pid) == n0 + 5,
	   "setpriority of a child by pid");
	ok(nice_of(PRIO_PROCESS, 0) == n0 + 2, "... the caller's own is unchanged");
	write(fds[1], "x", 1);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "the child sees the value set for it");
	close(fds[0]);
	close(fds[1]);

	/* Per thread. */
	require(thread_start(&t, thread_body, NULL) > 0, "thread");
	ok(set_nice(PRIO_PROCESS, t.tid, n0 + 7) == 0, "setpriority of a thread by its tid");
	__atomic_store_n(&thread_go, 1, __ATOMIC_RELEASE);
	thread_join(&t);
	ok(thread_nice == n0 + 7 && nice_of(PRIO_PROCESS, 0) == n0 + 2,
	   "only that thread changed (%d), not the process's other thread", thread_nice);

	/* Groups and users. */
	ok(set_nice(PRIO_PGRP, 0, n0 + 4) == 0 && nice_of(PRIO_PGRP, 0) == n0 + 4 &&
	       nice_of(PRIO_PROCESS, 0) == n0 + 4,
	   "PRIO_PGRP 0: the caller's process group");
	ok(get_raw(PRIO_USER, 0) >= 1 && get_raw(PRIO_USER, getuid()) == get_raw(PRIO_USER, 0),
	   "PRIO_USER 0 is the caller's user");

	/* Errors. */
	is_errno(get_raw(3, 0), EINVAL, "getpriority which 3: EINVAL");
	is_errno(set_nice(-1, 0, 0), EINVAL, "setpriority which -1: EINVAL");
	is_errno(get_raw(PRIO_PROCESS, -5), ESRCH, "pid -5: ESRCH");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	is_errno(set_nice(PRIO_PROCESS, pid, 0), ESRCH, "a reaped child's pid: ESRCH");
	is_errno(get_raw(PRIO_PGRP, 0x7ffffff0), ESRCH, "a process group with no member: ESRCH");
	is_errno(get_raw(PRIO_USER, 54321), ESRCH, "a user with no process: ESRCH");
	if (root)
		set_nice(PRIO_PROCESS, 0, n0);
	return tap_failed != 0;
}
