/* Record locks against hostile teardown, many rounds each: a holder killed
 * while POSIX and OFD waiters queue behind it (and a waiter killed too);
 * a thread blocked in F_SETLKW while another thread closes the fd, or the
 * process exits under it as its lock is released; a process inspected
 * through /proc/<pid>/fd while it exits (its locks must be gone once it is
 * reaped) or execs (POSIX locks survive execve).  After each round the
 * file must be exactly as locked as the survivors say: no lock outlives
 * its owner, and none is lost while the owner lives.  No timing: every
 * wait is for an event (a pipe byte, a reap, a thread asleep). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define ROUNDS	  40
#define WAITERS	  3
#define INSPECTED 300 /* fds of a process read through /proc: long listings */

static char path[64];

static int lk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len};

	return fcntl(fd, cmd, &fl);
}

/* The lock another process would meet on the whole file (F_GETLK asked by
 * this process, which holds none): its type, and its pid in *pid. */
static short lock_seen(int fd, pid_t *pid)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};

	require(fcntl(fd, F_GETLK, &fl) == 0, "F_GETLK");
	if (pid)
		*pid = fl.l_pid;
	return fl.l_type;
}

static void wait_byte(int fd)
{
	char c;

	require(read(fd, &c, 1) == 1, "a child's byte");
}

static void send_byte(int fd)
{
	require(write(fd, "r", 1) == 1, "a byte to a child");
}

static pid_t child(void)
{
	pid_t pid;

	fflush(stdout);
	require((pid = fork()) >= 0, "fork");
	return pid;
}

/* The state letter of /proc/<pid>/task/<tid>/stat, or 0. */
static char task_state(pid_t pid, pid_t tid)
{
	char name[80], buf[512], *paren;

	snprintf(name, sizeof name, "/proc/%d/task/%d/stat", pid, tid);
	if (read_text(name, buf, sizeof buf) <= 0)
		return 0;
	paren = strrchr(buf, ')');
	return paren && paren[1] ? paren[2] : 0;
}

/* Until thread tid of this process sleeps (in the call it was sent to). */
static void until_asleep(pid_t tid)
{
	while (task_state(getpid(), tid) != 'S')
		sched_yield();
}

/* --- A holder killed while others wait. --- */

/* The state letter of /proc/<pid>/stat, or 0. */
static char proc_state(pid_t pid)
{
	return task_state(pid, pid);
}

/* A waiter for a range, POSIX or OFD by round, through its own open. */
static pid_t lock_waiter(unsigned round, int i)
{
	pid_t pid;

	if ((pid = child()) == 0) {
		int fd = open(path, O_RDWR);
		int cmd = (round >> i) & 1 ? F_OFD_SETLKW : F_SETLKW;

		_exit(lk(fd, cmd, (round + i) % 2 ? F_WRLCK : F_RDLCK, i, (round + i) % 5) != 0);
	}
	return pid;
}

/*
 * The holder (POSIX or OFD) is killed with waiters queued behind it (or
 * still on their way, every other round); every third round one waiter is
 * killed too, granted or not.  The others must all get their locks, and
 * once all are reaped the file must be free.
 */
static void test_killed_holder(int fd)
{
	int left = 0, failed = 0;

	for (unsigned round = 0; round < ROUNDS; round++) {
		int ready[2], status;
		pid_t holder, waiters[WAITERS], victim = 0;

		require(pipe(ready) == 0, "pipe");
		if ((holder = child()) == 0) {
			int own = open(path, O_RDWR);

			lk(own, round % 2 ? F_OFD_SETLK : F_SETLK, F_WRLCK, 0, 0);
			send_byte(ready[1]);
			pause();
			_exit(0);
		}
		wait_byte(ready[0]);
		for (int i = 0; i < WAITERS; i++)
			waiters[i] = lock_waiter(round, i);
		for (int i = 0; i < WAITERS && round / 2 % 2; i++)
			for (char c; (c = proc_state(waiters[i])) != 'S' && c != 'Z' && c;)
				sched_yield();
		kill(holder, SIGKILL);
		waitpid(holder, NULL, 0);
		if (round % 3 == 0)
			kill(victim = waiters[round % WAITERS], SIGKILL);
		for (int i = 0; i < WAITERS; i++) {
			waitpid(waiters[i], &status, 0);
			failed += waiters[i] != victim && !exited_with(status, 0);
		}
		left += lock_seen(fd, NULL) != F_UNLCK;
		close(ready[0]);
		close(ready[1]);
	}
	is_int(failed, 0, "every waiter got its lock once the holder was killed (%d rounds)",
	       ROUNDS);
	is_int(left, 0, "and once all were reaped nothing was locked");
}

/* --- Threads sharing the table: one waits, another closes. --- */

struct wait_arg {
	int fd, result, err;
	pid_t tid;
	volatile int started;
};

static void *wait_lock(void *p)
{
	struct wait_arg *a = p;

	a->tid = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&a->started, 1, __ATOMIC_RELEASE);
	a->result = lk(a->fd, F_SETLKW, F_WRLCK, 0, 1);
	a->err = errno;
	return NULL;
}

/* A thread of this process asleep in F_SETLKW on a->fd's [0, 1). */
static pthread_t sleeping_waiter(struct wait_arg *a)
{
	pthread_t t;

	require(pthread_create(&t, NULL, wait_lock, a) == 0, "a thread");
	while (!__atomic_load_n(&a->started, __ATOMIC_ACQUIRE))
		sched_yield();
	until_asleep(a->tid);
	return t;
}

/* Takes [0, 1) of fd, then forks a child in which a thread sleeps in
 * F_SETLKW for it through its own open (*a, *t).  The pid, 0 in the child. */
static pid_t child_waiting(int fd, struct wait_arg *a, pthread_t *t)
{
	pid_t pid;

	lk(fd, F_SETLK, F_WRLCK, 0, 1);
	if ((pid = child()) == 0) {
		a->fd = open(path, O_RDWR);
		*t = sleeping_waiter(a);
	}
	return pid;
}

/*
 * A thread of a child sleeps in F_SETLKW on the parent's lock; another
 * closes its fd (or dup2s over it), then the parent lets go.  The lock
 * the sleeper then gets belongs to no open fd of the process: it must be
 * dropped at once (EBADF), not kept until exit.
 */
static void test_close_while_waiting(int fd)
{
	int left = 0, wrong = 0;

	for (int round = 0; round < ROUNDS; round++) {
		int ready[2], go[2], status;
		struct wait_arg a = {0};
		pthread_t t;
		pid_t pid;

		require(pipe(ready) == 0 && pipe(go) == 0, "pipes");
		if ((pid = child_waiting(fd, &a, &t)) == 0) {
			if (round % 2)
				close(a.fd);
			else
				dup2(go[0], a.fd);
			send_byte(ready[1]);
			pthread_join(t, NULL);
			send_byte(ready[1]);
			wait_byte(go[0]); /* alive while the parent looks */
			_exit(a.result == -1 && a.err == EBADF ? 0 : 1);
		}
		wait_byte(ready[0]);
		lk(fd, F_SETLK, F_UNLCK, 0, 1);
		wait_byte(ready[0]);
		left += lock_seen(fd, NULL) != F_UNLCK;
		send_byte(go[1]);
		waitpid(pid, &status, 0);
		wrong += !exited_with(status, 0);
		close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
	}
	is_int(wrong, 0, "a lock granted after its fd was closed is refused: EBADF (%d rounds)",
	       ROUNDS);
	is_int(left, 0, "and the process, still alive, holds nothing");
}

/*
 * The process exits (or is killed) while its thread sleeps in F_SETLKW
 * and the holder lets go at the same moment: granted or not, the lock goes
 * with the process.
 */
static void test_exit_while_granted(int fd)
{
	int left = 0;

	for (int round = 0; round < ROUNDS; round++) {
		int ready[2], go[2];
		struct wait_arg a = {0};
		pthread_t t;
		pid_t pid;

		require(pipe(ready) == 0 && pipe(go) == 0, "pipes");
		if ((pid = child_waiting(fd, &a, &t)) == 0) {
			send_byte(ready[1]);
			wait_byte(go[0]);
			_exit(0); /* exit_group: the waiting thread goes too */
		}
		wait_byte(ready[0]);
		if (round % 2) {
			send_byte(go[1]);
			lk(fd, F_SETLK, F_UNLCK, 0, 1);
		} else {
			lk(fd, F_SETLK, F_UNLCK, 0, 1);
			kill(pid, SIGKILL);
		}
		waitpid(pid, NULL, 0);
		left += lock_seen(fd, NULL) != F_UNLCK;
		close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
	}
	is_int(left, 0,
	       "a process that exits as its waiting thread is granted leaves no lock (%d rounds)",
	       ROUNDS);
}

/* --- A process read through /proc while it exits or execs. --- */

/* A process reading /proc/<pid>/fd over and over (each read walks the
 * inspected table), until killed; it says once it has read it once. */
static pid_t inspector(pid_t pid)
{
	char name[64], buf[4096];
	int ready[2];
	pid_t me;

	require(pipe(ready) == 0, "pipe");
	if ((me = child()) == 0) {
		snprintf(name, sizeof name, "/proc/%d/fd", pid);
		int dfd = open(name, O_RDONLY | O_DIRECTORY);

		require(dfd >= 0 && syscall(SYS_getdents64, dfd, buf, sizeof buf) > 0,
			"/proc/<pid>/fd");
		send_byte(ready[1]);
		for (;;) {
			lseek(dfd, 0, SEEK_SET);
			syscall(SYS_getdents64, dfd, buf, sizeof buf);
		}
	}
	wait_byte(ready[0]);
	close(ready[0]);
	close(ready[1]);
	return me;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A child holding a POSIX lock on the file through INSPECTED fds; it says
 * so on ready, and at a byte on go exits, or with argv execs itself. */
static pid_t inspected(int ready, int go, char **argv)
{
	pid_t pid;

	if ((pid = child()) == 0) {
		int own = open(path, O_RDWR);

		lk(own, F_SETLK, F_WRLCK, 0, 0);
		for (int i = 1; i < INSPECTED; i++)
			dup(own);
		send_byte(ready);
		wait_byte(go);
		if (argv)
			execv("/proc/self/exe", argv);
		_exit(0);
	}
	return pid;
}

static void test_exit_inspected(int fd)
{
	int left = 0;

	for (int round = 0; round < ROUNDS; round++) {
		int ready[2], go[2];
		pid_t pid, reader;

		require(pipe(ready) == 0 && pipe(go) == 0, "pipes");
		pid = inspected(ready[1], go[0], NULL);
		wait_byte(ready[0]);
		reader = inspector(pid);
		send_byte(go[1]);
		waitpid(pid, NULL, 0);
		left += lock_seen(fd, NULL) != F_UNLCK;
		stop(reader);
		close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
	}
	is_int(left, 0,
	       "a process read through /proc/<pid>/fd as it exits leaves no lock (%d rounds)",
	       ROUNDS);
}

static void test_exec_inspected(int fd)
{
	int lost = 0;

	for (int round = 0; round < ROUNDS; round++) {
		int ready[2], go[2];
		char rfd[16], gfd[16];
		char *argv[] = {"reclock_life", "execed", rfd, gfd, NULL};
		pid_t pid, reader, owner = 0;

		require(pipe(ready) == 0 && pipe(go) == 0, "pipes");
		snprintf(rfd, sizeof rfd, "%d", ready[1]);
		snprintf(gfd, sizeof gfd, "%d", go[0]);
		pid = inspected(ready[1], go[0], argv);
		wait_byte(ready[0]);
		reader = inspector(pid);
		send_byte(go[1]);
		wait_byte(ready[0]); /* from the new image */
		lost += lock_seen(fd, &owner) != F_WRLCK || owner != pid;
		stop(reader);
		send_byte(go[1]);
		waitpid(pid, NULL, 0);
		close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
	}
	is_int(lost, 0,
	       "a process read through /proc/<pid>/fd as it execs keeps its lock (%d rounds)",
	       ROUNDS);
	is_int(lock_seen(fd, NULL), F_UNLCK, "which goes when it exits");
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 4 && !strcmp(argv[1], "execed")) { /* test_exec_inspected's child */
		send_byte(atoi(argv[2]));
		wait_byte(atoi(argv[3]));
		return 0;
	}
	plan(8);
	snprintf(path, sizeof path, "/tmp/reclock_life.%d", getpid());
	require((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) >= 0, "open");
	test_killed_holder(fd);
	test_close_while_waiting(fd);
	test_exit_while_granted(fd);
	test_exit_inspected(fd);
	test_exec_inspected(fd);
	close(fd);
	unlink(path);
	return done();
}
