/* kcmp(2) through musl's syscall(): every kind of object between a
 * process and itself, its threads, clone()d children sharing one thing,
 * forked children and zombies; the ordering is a consistent total order;
 * KCMP_EPOLL_TFD; and every errno in Linux's order. */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "waiting_child.h"

#ifndef SYS_kcmp
#define SYS_kcmp 312
#endif

enum { FILE_, VM, FILES, FS, SIGHAND, IO, SYSVSEM, EPOLL_TFD, TYPES };

struct slot {
	uint32_t efd, tfd, toff;
};

static long kcmp(pid_t a, pid_t b, int type, unsigned long i1, unsigned long i2)
{
	return syscall(SYS_kcmp, a, b, type, i1, i2);
}

static void end_child(pid_t pid, int ctl)
{
	int st;

	close(ctl);
	require(waitpid(pid, &st, 0) == pid, "waitpid");
}

/* Three distinct open files: each pair ordered one way, both ways agreeing,
 * and the order transitive. */
static void test_order(void)
{
	int fd[3], good = 1;
	pid_t me = getpid();

	for (int i = 0; i < 3; i++)
		require((fd[i] = open("/dev/null", O_RDONLY)) >= 0, "open");
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			long r = kcmp(me, me, FILE_, fd[i], fd[j]),
			     s = kcmp(me, me, FILE_, fd[j], fd[i]);
			good &= i == j ? r == 0 : (r == 1 && s == 2) || (r == 2 && s == 1);
		}
	ok(good, "distinct files: 1 or 2, the reverse the opposite");
	int rank[3] = {0, 0, 0};
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			rank[i] += kcmp(me, me, FILE_, fd[i], fd[j]) == 2;
	ok(rank[0] != rank[1] && rank[1] != rank[2] && rank[0] != rank[2],
	   "the order is total and transitive (ranks %d %d %d)", rank[0], rank[1], rank[2]);
	int d = dup(fd[1]);
	is_int(kcmp(me, me, FILE_, fd[1], d), 0, "a dup'ed fd: the same file");
	for (int i = 0; i < 3; i++)
		close(fd[i]);
	close(d);
}

static void test_self(void)
{
	pid_t me = getpid();
	int good = 1;

	for (int t = VM; t <= SYSVSEM; t++)
		good &= kcmp(me, me, t, 0, 0) == 0;
	ok(good, "every kind against itself: 0");
}

/* A forked child: every kind differs but the I/O context (none in
 * either) and the undo lists (none before SEM_UNDO); its inherited fds
 * are the parent's files. */
static void test_fork(void)
{
	int ctl, fd = open("/dev/null", O_RDONLY);
	pid_t me = getpid(), c = waiting_child(&ctl);

	is_int(kcmp(me, c, FILE_, fd, fd), 0, "a forked child's inherited fd: the same file");
	ok(kcmp(me, c, VM, 0, 0) > 0, "fork: another address space");
	ok(kcmp(me, c, FILES, 0, 0) > 0, "fork: another fd table");
	ok(kcmp(me, c, FS, 0, 0) > 0, "fork: another fs context");
	ok(kcmp(me, c, SIGHAND, 0, 0) > 0, "fork: other handlers");
	is_int(kcmp(me, c, IO, 0, 0), 0, "fork: no I/O context in either");
	is_int(kcmp(me, c, SYSVSEM, 0, 0), 0, "fork, no SEM_UNDO yet: no undo list in either");
	long a = kcmp(me, c, VM, 0, 0), b = kcmp(c, me, VM, 0, 0);
	ok(a + b == 3, "swapped pids: the opposite order (%ld, %ld)", a, b);
	end_child(c, ctl);
	close(fd);
}

/* An exited child not yet reaped has no memory, fds or fs left. */
static void test_zombie(void)
{
	pid_t me = getpid(), z[2];
	siginfo_t si;

	fflush(stdout);
	for (int i = 0; i < 2; i++)
		if ((z[i] = fork()) == 0)
			_exit(0);
	for (int i = 0; i < 2; i++)
		require(waitid(P_PID, z[i], &si, WEXITED | WNOWAIT) == 0, "waitid WNOWAIT");
	is_errno(kcmp(me, z[0], FILE_, 0, 0), EBADF, "a zombie's fd: EBADF");
	is_int(kcmp(z[0], z[1], VM, 0, 0), 0, "two zombies: no memory in either");
	is_int(kcmp(z[0], z[1], FILES, 0, 0), 0, "two zombies: no fd table in either");
	ok(kcmp(me, z[0], FILES, 0, 0) > 0, "a live process against a zombie: differ");
	for (int i = 0; i < 2; i++)
		waitpid(z[i], NULL, 0);
	is_errno(kcmp(me, z[0], VM, 0, 0), ESRCH, "once reaped: ESRCH");
}

static int ctl_fd;
static int clone_wait(void *arg)
{
	char c;

	(void)arg;
	return read(ctl_fd, &c, 1) < 0;
}

/* clone() with one sharing flag: that kind is 0, another is not. */
static void clone_check(int flags, int shared, int other, const char *what)
{
	static char stack[65536] __attribute__((aligned(16)));
	int p[2];
	pid_t me = getpid(), c;

	require(pipe(p) == 0, "pipe");
	ctl_fd = p[0];
	c = clone(clone_wait, stack + sizeof stack, flags | SIGCHLD, NULL);
	require(c > 0, "clone");
	ok(kcmp(me, c, shared, 0, 0) == 0 && kcmp(me, c, other, 0, 0) > 0, "%s", what);
	require(write(p[1], "x", 1) == 1, "wake the child"); /* it may hold p[1] too */
	close(p[1]);
	require(waitpid(c, NULL, 0) == c, "waitpid");
	close(p[0]);
}

static void test_clone(void)
{
	clone_check(CLONE_VM, VM, FILES, "CLONE_VM: the address space shared, not the fds");
	clone_check(CLONE_FILES, FILES, VM, "CLONE_FILES: the fd table shared");
	clone_check(CLONE_FS, FS, FILES, "CLONE_FS: the fs context shared");
	clone_check(CLONE_VM | CLONE_SIGHAND, SIGHAND, FILES, "CLONE_SIGHAND: handlers shared");
	clone_check(CLONE_SYSVSEM, SYSVSEM, VM, "CLONE_SYSVSEM: the undo list shared");
}

static pthread_barrier_t bar;
static pid_t thread_tid;
static void *thread_main(void *arg)
{
	(void)arg;
	thread_tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	return NULL;
}

static void test_thread(void)
{
	pthread_t th;
	pid_t me = getpid();
	int good = 1;

	pthread_barrier_init(&bar, NULL, 2);
	require(pthread_create(&th, NULL, thread_main, NULL) == 0, "pthread_create");
	pthread_barrier_wait(&bar);
	for (int t = VM; t <= SYSVSEM; t++)
		good &= kcmp(me, thread_tid, t, 0, 0) == 0;
	ok(good, "a thread (by its tid) shares every kind");
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
}

/* SEM_UNDO gives the caller an undo list a later fork does not share. */
static void test_sysvsem(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600), ctl;
	struct sembuf op = {0, 1, SEM_UNDO};

	require(id >= 0 && semop(id, &op, 1) == 0, "semget, semop SEM_UNDO");
	pid_t c = waiting_child(&ctl);
	ok(kcmp(getpid(), c, SYSVSEM, 0, 0) > 0, "after SEM_UNDO, a forked child's list differs");
	end_child(c, ctl);
	semctl(id, 0, IPC_RMID);
}

static void test_epoll(void)
{
	int p[2], q[2], ep = epoll_create1(0);
	require(pipe(p) == 0 && pipe(q) == 0, "pipes");
	int a = p[0], b = dup(a), other = q[0];
	struct epoll_event ev = {.events = EPOLLIN};
	struct slot s = {(uint32_t)ep, (uint32_t)a, 0};
	pid_t me = getpid();

	require(ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, a, &ev) == 0, "epoll");
	is_int(kcmp(me, me, EPOLL_TFD, a, (unsigned long)&s), 0, "EPOLL_TFD: the target's file");
	is_int(kcmp(me, me, EPOLL_TFD, b, (unsigned long)&s), 0, "... through a dup of it too");
	ok(kcmp(me, me, EPOLL_TFD, other, (unsigned long)&s) > 0, "another file: differs");
	s.toff = 1;
	is_errno(kcmp(me, me, EPOLL_TFD, a, (unsigned long)&s), ENOENT, "no second target: ENOENT");
	s.toff = 0;
	s.tfd = (uint32_t)other;
	is_errno(kcmp(me, me, EPOLL_TFD, a, (unsigned long)&s), ENOENT,
		 "an fd not registered: ENOENT");
	s.efd = (uint32_t)a;
	is_errno(kcmp(me, me, EPOLL_TFD, a, (unsigned long)&s), EINVAL, "efd not an epoll: EINVAL");
	s.efd = 999;
	is_errno(kcmp(me, me, EPOLL_TFD, a, (unsigned long)&s), EBADF, "efd not open: EBADF");
	s.efd = (uint32_t)ep;
	is_errno(kcmp(me, me, EPOLL_TFD, 999, (unsigned long)&s), EBADF, "idx1 not open: EBADF");
	is_errno(kcmp(me, me, EPOLL_TFD, 999, 8), EFAULT, "a bad slot: EFAULT, before EBADF");
	close(ep);
	close(b);
	for (int i = 0; i < 2; i++) {
		close(p[i]);
		close(q[i]);
	}
}

static void test_errors(void)
{
	pid_t me = getpid(), gone;

	fflush(stdout);
	if ((gone = fork()) == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	is_errno(kcmp(me, gone, FILE_, 0, 0), ESRCH, "a reaped pid: ESRCH");
	is_errno(kcmp(gone, me, VM, 0, 0), ESRCH, "... as the first pid too");
	is_errno(kcmp(me, 0, VM, 0, 0), ESRCH, "pid 0: ESRCH");
	is_errno(kcmp(me, -1, VM, 0, 0), ESRCH, "pid -1: ESRCH");
	is_errno(kcmp(gone, me, TYPES, 0, 0), ESRCH, "ESRCH before EINVAL");
	is_errno(kcmp(me, me, TYPES, 0, 0), EINVAL, "type KCMP_TYPES: EINVAL");
	is_errno(kcmp(me, me, -1, 0, 0), EINVAL, "type -1: EINVAL");
	is_errno(kcmp(me, me, INT_MAX, 0, 0), EINVAL, "type INT_MAX: EINVAL");
	is_errno(kcmp(me, me, INT_MIN, 0, 0), EINVAL, "type INT_MIN: EINVAL");
	is_errno(kcmp(me, me, FILE_, 0, 999), EBADF, "idx2 not open: EBADF");
	is_errno(kcmp(me, me, FILE_, 999, 0), EBADF, "idx1 not open: EBADF");
	is_errno(kcmp(me, me, FILE_, 0, (unsigned long)-1), EBADF, "idx2 -1: EBADF");
	is_int(kcmp(me, me, FILE_, 1UL << 40, 0), 0, "an index is cut to 32 bits: 2^40 is fd 0");
}

int main(void)
{
	plan(46);
	test_order();
	test_self();
	test_fork();
	test_zombie();
	test_clone();
	test_thread();
	test_sysvsem();
	test_epoll();
	test_errors();
	return done();
}
