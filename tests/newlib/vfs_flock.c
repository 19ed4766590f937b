/* flock: shared and exclusive locks held by open file descriptions (dup'd
 * and inherited fds share them, another open() of the file does not),
 * released with the description's last fd; conversion (non-atomic, as
 * Linux); LOCK_NB and EWOULDBLOCK; a blocked flock woken by the unlock,
 * interrupted by a signal (EINTR) or restarted (SA_RESTART); EBADF,
 * EINVAL; between processes. */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"

#define NR_flock  73
#define LOCK_SH	  1
#define LOCK_EX	  2
#define LOCK_NB	  4
#define LOCK_UN	  8
#define LOCK_MAND 32

/* Per process: two runs at once (host legs of two trees) must not share it. */
static char path[64];

static long lflock(int fd, int op)
{
	return syscall(NR_flock, fd, op);
}

static int open_file(void)
{
	return open(path, O_RDWR | O_CREAT, 0600);
}

/* A child that does flock(a new open of the file, op) and exits 0 on
 * success, 1 for EWOULDBLOCK, 2 for another error: its pid. */
static pid_t start_locker(int op)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		int fd = open_file();
		if (lflock(fd, op) == 0)
			_exit(0);
		_exit(errno == EWOULDBLOCK ? 1 : 2);
	}
	return pid;
}

/* start_locker's exit code, once it ended. */
static int try_in_child(int op)
{
	int status;

	waitpid(start_locker(op), &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_errors(void)
{
	int fd = open_file();

	is_errno(lflock(-1, LOCK_SH), EBADF, "fd -1: EBADF");
	is_errno(lflock(999, LOCK_EX), EBADF, "a closed fd: EBADF");
	is_errno(lflock(fd, 0), EINVAL, "op 0: EINVAL");
	is_errno(lflock(fd, LOCK_SH | LOCK_EX), EINVAL, "LOCK_SH|LOCK_EX: EINVAL");
	is_errno(lflock(fd, LOCK_NB), EINVAL, "LOCK_NB alone: EINVAL");
	is_errno(lflock(fd, 0x100), EINVAL, "an unknown bit: EINVAL");
	ok(lflock(fd, LOCK_MAND | LOCK_EX) == 0 && try_in_child(LOCK_EX | LOCK_NB) == 0,
	   "LOCK_MAND: ignored (0, no lock), as Linux");
	ok(lflock(fd, LOCK_UN) == 0, "LOCK_UN without a lock: 0");
	close(fd);
}

static void test_sharing(void)
{
	int fd = open_file(), other = open_file(), dupfd, status;
	pid_t pid;

	ok(lflock(fd, LOCK_SH) == 0 && lflock(other, LOCK_SH | LOCK_NB) == 0,
	   "two shared locks coexist");
	is_errno(lflock(other, LOCK_EX | LOCK_NB), EWOULDBLOCK,
		 "an exclusive lock on another open of a shared-locked file: EWOULDBLOCK");
	ok(lflock(fd, LOCK_EX | LOCK_NB) == 0,
	   "... and that failed conversion dropped its shared lock, as Linux: the first may "
	   "upgrade");
	ok(lflock(other, LOCK_UN) == 0 && lflock(fd, LOCK_EX | LOCK_NB) == 0,
	   "asking again for the lock held: 0");
	ok(try_in_child(LOCK_SH | LOCK_NB) == 1, "another process: EWOULDBLOCK for a shared lock");
	dupfd = dup(fd);
	close(fd);
	ok(try_in_child(LOCK_EX | LOCK_NB) == 1, "the lock survives while a dup'd fd is open");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(lflock(dupfd, LOCK_EX | LOCK_NB) == 0 ? 0 : 1);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "an inherited fd holds the same lock (re-locking it succeeds)");
	ok(lflock(dupfd, LOCK_SH) == 0 && try_in_child(LOCK_SH | LOCK_NB) == 0 &&
	       try_in_child(LOCK_EX | LOCK_NB) == 1,
	   "downgrade to shared: others may share, not take it");
	close(dupfd);
	ok(try_in_child(LOCK_EX | LOCK_NB) == 0, "closing the last fd releases it");
	close(other);
}

/* The child of the blocking tests: takes an exclusive lock, tells the
 * parent through the pipe, holds it for ms, exits (releasing it). */
static pid_t holder(int ms)
{
	int fds[2];
	char c;
	pid_t pid;

	require(pipe(fds) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int fd = open_file();
		lflock(fd, LOCK_EX);
		write(fds[1], "x", 1);
		sleep_ms(ms);
		_exit(0);
	}
	close(fds[1]);
	read(fds[0], &c, 1);
	close(fds[0]);
	return pid;
}

static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void test_blocking(void)
{
	int fd = open_file(), status;
	pid_t pid = holder(200);

	ok(lflock(fd, LOCK_SH) == 0, "a blocked flock is granted when the holder exits");
	waitpid(pid, &status, 0);
	lflock(fd, LOCK_UN);

	pid = holder(10 * 1000);
	lsig_handle(LSIGALRM, on_alarm, 0);
	alarm(1);
	is_errno(lflock(fd, LOCK_EX), EINTR, "a blocked flock interrupted by a handler: EINTR");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	lsig_handle(LSIGALRM, NULL, 0);
	close(fd);
}

static void test_restart(void)
{
	int fd = open_file(), status;
	pid_t pid = holder(1500);

	lsig_handle(LSIGALRM, on_alarm, UAPI_SA_RESTART);
	alarms = 0;
	alarm(1);
	ok(lflock(fd, LOCK_EX) == 0 && alarms == 1,
	   "with SA_RESTART a signal during the wait restarts it; granted at the release");
	waitpid(pid, &status, 0);
	lsig_handle(LSIGALRM, NULL, 0);
	close(fd);
}

/* Hostile endings: a process killed while it waits for a lock, and one
 * killed while it holds one (with a waiter queued behind it). */
static void test_teardown(void)
{
	int fd = open_file(), status;
	pid_t waiter, pid;

	require(lflock(fd, LOCK_EX) == 0, "lock");
	waiter = start_locker(LOCK_EX);
	sleep_ms(100);
	kill(waiter, SIGKILL);
	ok(waitpid(waiter, &status, 0) == waiter && killed_by(status, SIGKILL),
	   "a waiter killed in flock dies");
	ok(lflock(fd, LOCK_UN) == 0 && try_in_child(LOCK_EX | LOCK_NB) == 0,
	   "and leaves nothing behind: the lock is free once released");
	pid = holder(10 * 1000);
	waiter = start_locker(LOCK_SH);
	sleep_ms(100);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(waitpid(waiter, &status, 0) == waiter && exited_with(status, 0),
	   "a holder killed: its lock goes with it, the waiter gets one");
	close(fd);
}

int main(void)
{
	plan(23);
	snprintf(path, sizeof path, "/tmp/vfs_flock.%d", (int)getpid());
	test_errors();
	test_sharing();
	test_blocking();
	test_restart();
	test_teardown();
	unlink(path);
	return tap_failed != 0;
}
