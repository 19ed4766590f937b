/* pidfds through musl's syscall(): pidfd_open, poll and epoll readiness
 * at exit and at the reap, waitid(P_PIDFD) with WNOHANG and
 * PIDFD_NONBLOCK, pidfd_send_signal with and without a siginfo,
 * pidfd_send_signal through an open /proc/<pid> directory,
 * pidfd_getfd, fdinfo's Pid: line, clone's and clone3's CLONE_PIDFD, and
 * every errno as Linux gives it. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "waiting_child.h"

#define PIDFD_NONBLOCK O_NONBLOCK
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_send_signal 424
#define SYS_pidfd_open	      434
#define SYS_pidfd_getfd	      438
#endif
#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static int pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int pidfd_send(int fd, int sig, siginfo_t *info, unsigned flags)
{
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

static int pidfd_getfd(int fd, int target, unsigned flags)
{
	return (int)syscall(SYS_pidfd_getfd, fd, target, flags);
}

static short poll_now(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};

	return poll(&p, 1, 0) < 0 ? -1 : p.revents;
}

static bool poll_wait_in(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};

	return poll(&p, 1, -1) == 1 && (p.revents & POLLIN);
}

/* The "Pid:" value of fd's fdinfo, or -2 if there is none. */
static int fdinfo_pid(int fd)
{
	char path[64], buf[512];
	const char *at;

	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	if (read_text(path, buf, sizeof buf) < 0 || !(at = strstr(buf, "\nPid:\t")))
		return -2;
	return atoi(at + 6);
}

static void test_open(void)
{
	int fd = pidfd_open(getpid(), 0), nb;
	char link[64], target[64] = "";

	ok(fd >= 0, "pidfd_open(getpid(), 0)");
	is_int(fcntl(fd, F_GETFD), FD_CLOEXEC, "a pidfd is always close-on-exec");
	is_int(fcntl(fd, F_GETFL) & O_NONBLOCK, 0, "without PIDFD_NONBLOCK: blocking");
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ok(readlink(link, target, sizeof target - 1) > 0 && !strcmp(target, "anon_inode:[pidfd]"),
	   "/proc/self/fd: anon_inode:[pidfd]");
	is_int(fdinfo_pid(fd), getpid(), "fdinfo's Pid: is the process");
	is_int(poll_now(fd), 0, "a live process: not readable");
	nb = pidfd_open(getpid(), PIDFD_NONBLOCK);
	is_int(fcntl(nb, F_GETFL) & O_NONBLOCK, O_NONBLOCK, "PIDFD_NONBLOCK: O_NONBLOCK");
	close(nb);
	close(fd);
	is_errno(pidfd_open(getpid(), 1), EINVAL, "an unknown flag: EINVAL");
	is_errno(pidfd_open(0, 0), EINVAL, "pid 0: EINVAL");
	is_errno(pidfd_open(-1, 0), EINVAL, "pid -1: EINVAL");
	is_errno(pidfd_open(INT32_MAX, 0), ESRCH, "no such process: ESRCH");
}

static void *thread_tid(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

/* pidfd_open of a thread's tid once the thread exited: ESRCH.  pthread_join
 * returns when the kernel clears the tid word, which on Linux comes before
 * the thread leaves the pid table, where it still answers as a live thread
 * (ENOENT); so that answer is waited out (a thread that never leaves is a
 * hang, which the runner reports). */
static void test_thread(void)
{
	pid_t tid = 0;
	pthread_t th;
	int fd;

	require(pthread_create(&th, NULL, thread_tid, &tid) == 0, "pthread_create");
	pthread_join(th, NULL);
	while ((fd = pidfd_open(tid, 0)) < 0 && errno == ENOENT)
		sched_yield();
	if (fd >= 0)
		close(fd);
	is_errno(fd, ESRCH, "a thread that exited: ESRCH");
}

static void *parked(void *arg)
{
	char c;

	*(pid_t *)((int *)arg + 2) = (pid_t)syscall(SYS_gettid);
	return (void *)(long)read(((int *)arg)[0], &c, 1);
}

static void test_live_thread(void)
{
	int a[3];
	pthread_t th;

	require(pipe(a) == 0, "pipe");
	a[2] = 0;
	require(pthread_create(&th, NULL, parked, a) == 0, "pthread_create");
	while (!__atomic_load_n(&a[2], __ATOMIC_ACQUIRE))
		sched_yield();
	is_errno(pidfd_open(a[2], 0), ENOENT,
		 "a live thread's tid (not a process): ENOENT (Linux 6.9; EINVAL before)");
	close(a[1]);
	pthread_join(th, NULL);
	close(a[0]);
}

static void test_exit_and_wait(void)
{
	int ctl, fd, nb, ep;
	pid_t pid = waiting_child(&ctl);
	siginfo_t si;
	struct epoll_event ev = {.events = EPOLLIN}, got;

	fd = pidfd_open(pid, 0);
	nb = pidfd_open(pid, PIDFD_NONBLOCK);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ok(fd >= 0 && nb >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0, "pidfds of a child");
	memset(&si, 0x55, sizeof si);
	ok(waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG) == 0 && si.si_pid == 0 && si.si_signo == 0,
	   "waitid(P_PIDFD, WNOHANG) on a running child: 0, siginfo zeroed");
	is_errno(waitid(P_PIDFD, nb, &si, WEXITED), EAGAIN,
		 "waitid on a PIDFD_NONBLOCK pidfd of a running child: EAGAIN");
	is_int(waitid(P_PIDFD, nb, &si, WEXITED | WNOHANG), 0, "the same with WNOHANG: 0");
	is_int(epoll_wait(ep, &got, 1, 0), 0, "epoll: nothing yet");
	write(ctl, "\7", 1);
	close(ctl);
	ok(poll_wait_in(fd), "poll wakes with POLLIN when it exits");
	is_int(poll_now(fd) & (POLLIN | POLLHUP), POLLIN, "exited, not reaped: POLLIN, no POLLHUP");
	ok(epoll_wait(ep, &got, 1, -1) == 1 && (got.events & EPOLLIN), "epoll sees EPOLLIN");
	is_int(fdinfo_pid(fd), pid, "a zombie's fdinfo still names it");
	is_int(pidfd_send(fd, 0, NULL, 0), 0, "pidfd_send_signal(0) to a zombie: 0");
	is_errno(pidfd_getfd(fd, 0, 0), ESRCH, "pidfd_getfd on a zombie: ESRCH (no files)");
	ok(waitid(P_PIDFD, nb, &si, WEXITED | WNOWAIT) == 0 && si.si_pid == pid,
	   "WNOWAIT through the non-blocking pidfd");
	ok(waitid(P_PIDFD, fd, &si, WEXITED) == 0 && si.si_pid == pid && si.si_code == CLD_EXITED &&
	       si.si_status == 7 && si.si_signo == SIGCHLD,
	   "waitid(P_PIDFD) reaps it: pid, CLD_EXITED, status 7");
	is_int(poll_now(fd) & (POLLIN | POLLHUP), POLLIN | POLLHUP, "reaped: POLLIN | POLLHUP");
	is_int(fdinfo_pid(fd), -1, "reaped: fdinfo's Pid: is -1");
	is_errno(waitid(P_PIDFD, fd, &si, WEXITED), ECHILD, "waitid again: ECHILD");
	is_errno(pidfd_send(fd, 0, NULL, 0), ESRCH, "pidfd_send_signal after the reap: ESRCH");
	is_errno(pidfd_send(fd, SIGKILL, NULL, 0), ESRCH, "even SIGKILL: ESRCH");
	is_errno(pidfd_getfd(fd, 0, 0), ESRCH, "pidfd_getfd after the reap: ESRCH");
	close(ep);
	close(nb);
	close(fd);
	is_errno(pidfd_open(pid, 0), ESRCH, "pidfd_open of the reaped pid: ESRCH");
}

static void test_wait_errors(void)
{
	int self = pidfd_open(getpid(), 0), p[2];
	siginfo_t si;

	require(pipe(p) == 0, "pipe");
	is_errno(waitid(P_PIDFD, self, &si, WEXITED | WNOHANG), ECHILD,
		 "P_PIDFD of no child: ECHILD");
	is_errno(waitid(P_PIDFD, p[0], &si, WEXITED), EBADF, "P_PIDFD of a pipe: EBADF");
	is_errno(waitid(P_PIDFD, 999, &si, WEXITED), EBADF, "P_PIDFD of a closed fd: EBADF");
	is_errno(waitid(P_PIDFD, -1, &si, WEXITED), EINVAL, "P_PIDFD of -1: EINVAL");
	is_errno(waitid(P_PIDFD, self, &si, 0), EINVAL, "no W* event: EINVAL");
	close(p[0]);
	close(p[1]);
	close(self);
}

static volatile int got_code, got_pid, got_value, got_sig;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	got_pid = si->si_pid;
	got_value = si->si_value.sival_int;
}

static void test_signal(void)
{
	struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
	int self = pidfd_open(getpid(), 0), ctl, fd, p[2];
	pid_t pid;
	siginfo_t si;

	sigaction(SIGUSR1, &sa, NULL);
	ok(pidfd_send(self, SIGUSR1, NULL, 0) == 0 && got_sig == SIGUSR1 && got_code == SI_USER &&
	       got_pid == getpid(),
	   "pidfd_send_signal to itself: SI_USER from its own pid");
	memset(&si, 0, sizeof si);
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_pid = 4242;
	si.si_value.sival_int = 77;
	got_sig = 0;
	ok(pidfd_send(self, SIGUSR1, &si, 0) == 0 && got_sig == SIGUSR1 && got_code == SI_QUEUE &&
	       got_pid == 4242 && got_value == 77,
	   "with a siginfo: its code, pid and value arrive");
	si.si_code = SI_USER;
	got_sig = 0;
	ok(pidfd_send(self, SIGUSR1, &si, 0) == 0 && got_sig == SIGUSR1,
	   "SI_USER in the siginfo: allowed to itself");
	si.si_signo = SIGUSR2;
	is_errno(pidfd_send(self, SIGUSR1, &si, 0), EINVAL, "si_signo not sig: EINVAL");
	is_errno(pidfd_send(self, SIGUSR1, (siginfo_t *)8, 0), EFAULT,
		 "an unreadable siginfo: EFAULT");
	is_errno(pidfd_send(self, SIGUSR1, NULL, 8), EINVAL, "an unknown flag: EINVAL");
	is_errno(pidfd_send(self, SIGUSR1, NULL, 3), EINVAL, "two targets at once: EINVAL");
	got_sig = 0;
	ok(pidfd_send(self, SIGUSR1, NULL, 1 /* PIDFD_SIGNAL_THREAD */) == 0 && got_sig == SIGUSR1,
	   "PIDFD_SIGNAL_THREAD: to the main thread");
	got_sig = 0;
	ok(pidfd_send(self, SIGUSR1, NULL, 2 /* PIDFD_SIGNAL_THREAD_GROUP */) == 0 &&
	       got_sig == SIGUSR1,
	   "PIDFD_SIGNAL_THREAD_GROUP: to the process");
	is_errno(pidfd_send(self, 1000, NULL, 0), EINVAL, "signal 1000: EINVAL");
	is_errno(pidfd_send(-1, SIGUSR1, NULL, 0), EBADF, "fd -1: EBADF");
	require(pipe(p) == 0, "pipe");
	is_errno(pidfd_send(p[0], SIGUSR1, NULL, 0), EBADF, "a pipe: EBADF");
	close(p[0]);
	close(p[1]);
	signal(SIGUSR1, SIG_DFL);
	close(self);

	pid = waiting_child(&ctl);
	fd = pidfd_open(pid, 0);
	si.si_signo = SIGTERM;
	si.si_code = SI_USER;
	is_errno(pidfd_send(fd, SIGTERM, &si, 0), EPERM,
		 "SI_USER siginfo to another process: EPERM");
	si.si_code = SI_TKILL;
	is_errno(pidfd_send(fd, SIGTERM, &si, 0), EPERM, "SI_TKILL to another process: EPERM");
	ok(pidfd_send(fd, SIGTERM, NULL, 0) == 0 && waitid(P_PIDFD, fd, &si, WEXITED) == 0 &&
	       si.si_code == CLD_KILLED && si.si_status == SIGTERM,
	   "SIGTERM through the pidfd kills the child");
	close(ctl);
	close(fd);

	pid = waiting_child(&ctl);
	fd = pidfd_open(pid, 0);
	ok(setpgid(pid, pid) == 0 && pidfd_send(fd, SIGTERM, NULL, 4) == 0 &&
	       waitid(P_PIDFD, fd, &si, WEXITED) == 0 && si.si_status == SIGTERM,
	   "PIDFD_SIGNAL_PROCESS_GROUP: to the group the child leads");
	close(ctl);
	close(fd);
}

/* An open /proc/<pid> directory stands for a pidfd in pidfd_send_signal
 * only (Linux's tgid_pidfd_to_pid): not a task/<tid> or other /proc
 * directory, not an O_PATH fd, not in waitid or pidfd_getfd. */
static void test_proc_dir(void)
{
	struct sigaction sa = {.sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO};
	int self = open("/proc/self", O_DIRECTORY | O_CLOEXEC), fd, ctl;
	char path[64];
	siginfo_t si;
	pid_t pid;

	sigaction(SIGUSR1, &sa, NULL);
	memset(&si, 0, sizeof si);
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_value.sival_int = 777;
	got_sig = 0;
	ok(pidfd_send(self, SIGUSR1, &si, 0) == 0 && got_sig == SIGUSR1 && got_code == SI_QUEUE &&
	       got_value == 777,
	   "/proc/self opened: pidfd_send_signal reaches the process with the siginfo");
	signal(SIGUSR1, SIG_DFL);
	snprintf(path, sizeof path, "/proc/self/task/%d", (int)syscall(SYS_gettid));
	fd = open(path, O_DIRECTORY);
	is_errno(pidfd_send(fd, 0, NULL, 0), EBADF, "a /proc/<pid>/task/<tid> directory: EBADF");
	close(fd);
	fd = open("/proc/self/fd", O_DIRECTORY);
	is_errno(pidfd_send(fd, 0, NULL, 0), EBADF, "/proc/self/fd: EBADF");
	close(fd);
	fd = open("/proc/self", O_PATH);
	is_errno(pidfd_send(fd, 0, NULL, 0), EBADF, "an O_PATH /proc/self: EBADF");
	close(fd);
	is_errno(waitid(P_PIDFD, self, &si, WEXITED | WNOHANG), EBADF,
		 "waitid(P_PIDFD) on /proc/self: EBADF");
	is_errno(syscall(SYS_pidfd_getfd, self, 0, 0), EBADF, "pidfd_getfd on /proc/self: EBADF");
	close(self);

	pid = waiting_child(&ctl);
	snprintf(path, sizeof path, "/proc/%d", (int)pid);
	fd = open(path, O_DIRECTORY);
	ok(pidfd_send(fd, SIGTERM, NULL, 0) == 0 && waitpid(pid, NULL, 0) == pid,
	   "/proc/<child>: SIGTERM kills it");
	is_errno(pidfd_send(fd, 0, NULL, 0), ESRCH, "the child reaped: ESRCH");
	close(fd);
	close(ctl);
}

static void test_getfd(void)
{
	int ctl, fd, got, p[2], status;
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) { /* its own pipe: the write end at fd 60 */
		int q[2];
		char c = 0;
		close(p[0]);
		if (pipe(q) < 0 || dup2(q[1], 60) < 0)
			_exit(2);
		close(q[1]);
		write(p[1], "r", 1);
		close(p[1]);
		_exit(read(q[0], &c, 1) == 1 && c == 'g' ? 0 : 1);
	}
	close(p[1]);
	ctl = read(p[0], &(char){0}, 1);
	fd = pidfd_open(pid, 0);
	got = pidfd_getfd(fd, 60, 0);
	ok(ctl == 1 && got >= 0, "pidfd_getfd copies the child's fd 60");
	is_int(fcntl(got, F_GETFD), FD_CLOEXEC, "the copy is close-on-exec");
	is_errno(pidfd_getfd(fd, 60, 1), EINVAL, "flags 1: EINVAL");
	is_errno(pidfd_getfd(fd, 999, 0), EBADF, "a closed target fd: EBADF");
	is_errno(pidfd_getfd(fd, -1, 0), EBADF, "target fd -1: EBADF");
	is_errno(pidfd_getfd(p[0], 0, 0), EBADF, "a pipe as the pidfd: EBADF");
	ok(write(got, "g", 1) == 1 && waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "it is the child's own pipe: the child reads what we wrote");
	close(got);
	close(p[0]);
	close(fd);
}

/* clone(CLONE_PIDFD) and clone3 as fork: the child exits at once. */
static void test_clone(void)
{
	int pidfd = -1, status;
	siginfo_t si;
	long pid;
	struct {
		uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	} args = {0};

	fflush(stdout);
	pid = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
	if (pid == 0)
		_exit(5);
	ok(pid > 0 && pidfd >= 0 && fcntl(pidfd, F_GETFD) == FD_CLOEXEC,
	   "clone(CLONE_PIDFD): the pidfd, close-on-exec, in parent_tid");
	ok(waitid(P_PIDFD, pidfd, &si, WEXITED) == 0 && si.si_pid == pid && si.si_status == 5,
	   "waitid through it reaps the child");
	close(pidfd);
	is_errno(syscall(SYS_clone, CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD, 0, &pidfd, 0, 0),
		 EINVAL, "clone: CLONE_PIDFD with CLONE_PARENT_SETTID: EINVAL");
	is_errno(syscall(SYS_clone, CLONE_PIDFD | CLONE_DETACHED | SIGCHLD, 0, &pidfd, 0, 0),
		 EINVAL, "CLONE_PIDFD with CLONE_DETACHED: EINVAL");
	is_errno(syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, (int *)8, 0, 0), EFAULT,
		 "an unwritable pidfd address: EFAULT, no child");
	is_errno(waitpid(-1, &status, WNOHANG), ECHILD, "(no child was made)");
	args.flags = CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	args.exit_signal = SIGCHLD;
	pidfd = -1;
	fflush(stdout);
	pid = syscall(SYS_clone3, &args, sizeof args);
	if (pid == 0)
		_exit(6);
	ok(pid > 0 && pidfd >= 0 && waitid(P_PIDFD, pidfd, &si, WEXITED) == 0 && si.si_pid == pid &&
	       si.si_status == 6,
	   "clone3 with CLONE_PIDFD: its pidfd field");
	close(pidfd);
}

int main(void)
{
	plan(76);
	test_open();
	test_thread();
	test_live_thread();
	test_exit_and_wait();
	test_wait_errors();
	test_signal();
	test_proc_dir();
	test_getfd();
	test_clone();
	return done();
}
