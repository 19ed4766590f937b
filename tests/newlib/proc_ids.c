/* Tests of process identity: getpid/getppid across fork, orphans that are
 * reparented away from their dead parent (to init, PID 1, on fdkernel), and
 * setpgid's session rule.  newlib has no setsid/setpgid: raw calls. */
#include <errno.h>
#include <fdkernel.h>
#include <signal.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* Read exactly N bytes from FD; false on EOF or error. */
static bool read_all(int fd, void *buf, size_t n)
{
	for (ssize_t got; n > 0; n -= got, buf = (char *)buf + got)
		if ((got = read(fd, buf, n)) <= 0)
			return false;
	return true;
}

static void test_fork_ids(void)
{
	pid_t self = getpid(), child, seen[2] = {0, 0};
	int fds[2], status;
	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((child = fork()) == 0) {
		pid_t ids[2] = {getpid(), getppid()};
		write(fds[1], ids, sizeof ids);
		_exit(0);
	}
	close(fds[1]);
	read_all(fds[0], seen, sizeof seen);
	close(fds[0]);
	waitpid(child, &status, 0);
	ok(self > 0 && getpid() == self, "getpid is positive and stable (%d)", (int)self);
	ok(child > 0 && child != self, "fork returns the child's pid, not ours");
	ok(seen[0] == child, "the child's getpid equals fork's return value");
	ok(seen[1] == self, "the child's getppid is the parent's pid");
}

/* In the middle child: fork the grandchild, which waits to be orphaned and
 * sends its pid and new parent on FD; then exit at once. */
static _Noreturn void orphan_grandchild(int fd)
{
	pid_t parent = getpid();
	if (fork() == 0) {
		pid_t ids[2] = {getpid(), getppid()};
		WAIT_UNTIL((ids[1] = getppid()) != parent);
		write(fd, ids, sizeof ids);
		_exit(0);
	}
	_exit(0);
}

/* After the orphan exited: on fdkernel init must reap it. */
static void check_reaped_by_init(pid_t orphan)
{
	if (!on_fdkernel()) {
		skip("the host's reaper of orphans is not ours to test", "init reaps the orphan");
		return;
	}
	WAIT_UNTIL(kill(orphan, 0) < 0);
	ok(kill(orphan, 0) < 0 && errno == ESRCH, "init reaps the orphan once it exits");
}

static void test_orphan(void)
{
	pid_t middle, ids[2] = {0, 0};
	int fds[2], status;
	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((middle = fork()) == 0)
		orphan_grandchild(fds[1]);
	close(fds[1]);
	waitpid(middle, &status, 0);
	ok(read_all(fds[0], ids, sizeof ids) && ids[1] != middle,
	   "an orphan's getppid changes away from its dead parent (%d -> %d)", (int)middle,
	   (int)ids[1]);
	if (on_fdkernel())
		is_int(ids[1], 1, "the orphan's new parent is init (PID 1)");
	else
		skip("a host may reparent to a subreaper", "the orphan's new parent is init");
	char eof;
	ok(read(fds[0], &eof, 1) == 0, "the orphan exits (its end of the pipe closes)");
	close(fds[0]);
	check_reaped_by_init(ids[0]);
}

/* A child that, in a session of its own if NEW_SESSION, waits for EOF on
 * the pipe FDS. */
static pid_t spawn_waiter(const int *fds, bool new_session)
{
	char c;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(fds[1]);
		if (new_session)
			syscall(__NR_setsid);
		while (read(fds[0], &c, 1) != 0)
			;
		_exit(0);
	}
	return pid;
}

/* setpgid may join a group of the caller's session only (Linux: EPERM). */
static void test_session_groups(void)
{
	int fds[2], tries = 0;
	pid_t leader, child;

	require(pipe(fds) == 0, "pipe");
	leader = spawn_waiter(fds, true);
	child = spawn_waiter(fds, false);
	require(leader > 0 && child > 0, "fork");
	while (syscall(__NR_getsid, leader) != leader && tries++ < 10000)
		syscall(__NR_sched_yield);
	is_errno(syscall(__NR_setpgid, child, leader), EPERM,
		 "setpgid into another session's group: EPERM");
	ok(syscall(__NR_setpgid, child, child) == 0 && syscall(__NR_getpgid, child) == child,
	   "setpgid(child, child) makes a new group");
	ok(syscall(__NR_setpgid, child, syscall(__NR_getpgrp)) == 0 &&
	       syscall(__NR_getpgid, child) == syscall(__NR_getpgrp),
	   "and setpgid back into the caller's group works");
	close(fds[0]);
	close(fds[1]);
	waitpid(leader, NULL, 0);
	waitpid(child, NULL, 0);
}

int main(void)
{
	plan(11);
	test_fork_ids();
	test_orphan();
	test_session_groups();
	return done();
}
