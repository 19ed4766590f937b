/* /proc/sys/kernel/ns_last_pid: it reads the pid given out last, and
 * writing n gives the next process n + 1 (a reaped child's pid comes
 * back); a pidfd or an open /proc/<pid> directory of the first holder
 * of that pid then answers ESRCH, not signalling the new one, and the
 * directory shows none of the new process's files (ESRCH); values
 * outside 0..pid_max are EINVAL; an ordinary user may read it, not
 * write it (EPERM).  On a busy host another process may take the pid
 * first: a few tries. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap_child.h"
#include "testutil.h"

#define LAST_PID "/proc/sys/kernel/ns_last_pid"
#define TRIES	 20

static long read_long(const char *path)
{
	char buf[32];

	return read_text(path, buf, sizeof buf) > 0 ? strtol(buf, NULL, 10) : -1;
}

static int set_last_pid(long v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%ld", v);
	return write_text(LAST_PID, buf);
}

/* A child that pauses until killed. */
static pid_t pausing_child(void)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		pause();
		_exit(0);
	}
	require(pid > 0, "fork");
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	require(waitpid(pid, NULL, 0) == pid, "waitpid");
}

static void test_read(void)
{
	pid_t c = pausing_child();
	long last = read_long(LAST_PID);

	ok(last >= c, "after a fork it reads at least that child's pid (%ld, child %d)", last,
	   (int)c);
	reap(c);
}

static int open_proc_dir(pid_t pid)
{
	char path[32];

	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The old pid back: a pidfd or /proc/<pid> fd of its first process stays
 * with that one. */
static void test_reuse(void)
{
	pid_t first, again = 0;
	int pidfd = -1, dirfd = -1, tries = 0, newdir;

	do {
		if (pidfd >= 0) {
			close(pidfd);
			close(dirfd);
			reap(again);
		}
		first = pausing_child();
		pidfd = (int)syscall(SYS_pidfd_open, first, 0);
		dirfd = open_proc_dir(first);
		require(pidfd >= 0 && dirfd >= 0, "pidfd_open, open /proc/<pid>");
		reap(first);
		require(set_last_pid(first - 1) == 0, "write ns_last_pid");
		again = pausing_child();
	} while (again != first && ++tries < TRIES);
	ok(again == first, "the next fork gets the written value + 1 (%d tries)", tries);
	ok(read_long(LAST_PID) >= again, "ns_last_pid reads it back (or a later fork's)");
	is_errno(syscall(SYS_pidfd_send_signal, pidfd, SIGUSR1, NULL, 0), ESRCH,
		 "a pidfd of the pid's first process: ESRCH, the new one left alone");
	is_errno(syscall(SYS_pidfd_send_signal, dirfd, SIGUSR1, NULL, 0), ESRCH,
		 "its /proc/<pid> directory fd: ESRCH too");
	is_errno(openat(dirfd, "status", O_RDONLY), ESRCH,
		 "that directory shows nothing of the new process (ESRCH)");
	int st;
	ok(waitpid(again, &st, WNOHANG) == 0, "the new process did not get the signal");
	newdir = open_proc_dir(again);
	ok(newdir >= 0 && syscall(SYS_pidfd_send_signal, newdir, 0, NULL, 0) == 0,
	   "a /proc/<pid> opened now names the new process");
	close(newdir);
	reap(again);
	close(pidfd);
	close(dirfd);
}

static void test_bounds(void)
{
	long max = read_long("/proc/sys/kernel/pid_max");
	char buf[32];

	is_errno(set_last_pid(-1), EINVAL, "-1: EINVAL");
	is_errno(set_last_pid(max + 1), EINVAL, "pid_max + 1: EINVAL");
	is_errno(write_text(LAST_PID, "12x"), EINVAL, "garbage after the number: EINVAL");
	snprintf(buf, sizeof buf, "%ld", read_long(LAST_PID));
	ok(write_text(LAST_PID, buf) == 0, "the value it reads can be written back");
}

static void test_user(void)
{
	require(setgroups(0, NULL) == 0 && setresgid(62001, 62001, 62001) == 0 &&
		    setresuid(61001, 61001, 61001) == 0,
		"become an ordinary user");
	ok(read_long(LAST_PID) > 0, "an ordinary user reads it");
	is_errno(set_last_pid(1000), EPERM, "... but writing is EPERM");
	is_errno(write_text(LAST_PID, "x"), EPERM, "... before the value is looked at");
}

int main(void)
{
	if (access(LAST_PID, F_OK) != 0)
		skip_all("no ns_last_pid (Linux without CHECKPOINT_RESTORE)");
	if (access(LAST_PID, W_OK) != 0)
		skip_all("ns_last_pid not writable here");
	plan(15);
	test_read();
	test_reuse();
	test_bounds();
	in_child("ordinary user", test_user);
	return done();
}
