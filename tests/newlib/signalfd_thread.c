/*
 * signalfd and threads, and teardown in hostile orders: a thread reads a
 * signal that every thread blocks, sent by kill() from another process; a
 * tgkill'd signal is seen only by its thread's reads and polls; two
 * sleeping readers share two signals; a signalfd passed by SCM_RIGHTS
 * reads the receiver's signals; a signalfd
 * closed while another thread sleeps reading it; an epoll of a signalfd
 * closed in both orders; an epoll item registered by a process that has
 * exited since (its signal queue is gone, the item stays).  Nothing leaks.
 */
#include "epoll_util.h"
#include "robust.h"
#include "signalfd_util.h"
#include "sock_util.h"
#include "thread.h"

static int shared_fd;
static long got_signo, got_pid, got_ret;

/* Blocking read of one record from shared_fd: the result into got_*. */
static int reader(void *arg)
{
	struct signalfd_siginfo ssi = {0};

	(void)arg;
	got_ret = thread_sys(__NR_read, shared_fd, &ssi, sizeof(ssi));
	got_signo = ssi.ssi_signo;
	got_pid = ssi.ssi_pid;
	return 0;
}

static void check_kill_from_another_process(void)
{
	struct thread t;
	int status;
	pid_t pid;

	shared_fd = sfd(-1, LBIT(LSIGUSR1), 0);
	got_ret = 0;
	require(thread_start(&t, reader, NULL) > 0, "thread");
	pid = sfd_signal_later(LSIGUSR1, 50);
	thread_join(&t);
	ok(got_ret == SSI_SIZE && got_signo == LSIGUSR1 && got_pid == pid,
	   "a thread's blocking read takes a kill() from another process, blocked everywhere");
	waitpid(pid, &status, 0);
	close(shared_fd);
}

struct sfd_reader {
	struct thread t;
	long ret, signo;
};

static int reader_into(void *arg)
{
	struct sfd_reader *r = arg;
	struct signalfd_siginfo ssi = {0};

	r->ret = thread_sys(__NR_read, shared_fd, &ssi, sizeof(ssi));
	r->signo = ssi.ssi_signo;
	return 0;
}

/* Two threads asleep reading one signalfd, two signals: each taken once. */
static void check_two_readers(void)
{
	struct sfd_reader a = {0}, b = {0};
	int status;
	pid_t p1, p2;

	shared_fd = sfd(-1, USR12, 0);
	require(thread_start(&a.t, reader_into, &a) > 0 && thread_start(&b.t, reader_into, &b) > 0,
		"threads");
	p1 = sfd_signal_later(LSIGUSR1, 50);
	p2 = sfd_signal_later(LSIGUSR2, 100);
	thread_join(&a.t);
	thread_join(&b.t);
	ok(a.ret == SSI_SIZE && b.ret == SSI_SIZE && a.signo + b.signo == LSIGUSR1 + LSIGUSR2 &&
	       a.signo != b.signo,
	   "two sleeping readers, two signals: each read once, by one of them");
	waitpid(p1, &status, 0);
	waitpid(p2, &status, 0);
	close(shared_fd);
}

/* A signalfd received over SCM_RIGHTS reads the receiver's signals. */
static void check_passed_fd(void)
{
	struct signalfd_siginfo ssi;
	int sv[2], fd;
	pid_t pid;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char c;
		struct msghdr m = {0};
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} ctl;
		struct iovec v = {&c, 1};
		int got = -1, none;

		m.msg_iov = &v;
		m.msg_iovlen = 1;
		m.msg_control = &ctl;
		m.msg_controllen = sizeof(ctl);
		if (recvmsg(sv[1], &m, 0) == 1 && m.msg_controllen >= CMSG_LEN(sizeof(int)))
			memcpy(&got, CMSG_DATA(&ctl.h), sizeof(got));
		none = sfd_read1(got, &ssi) == 0;
		lsig_kill(getpid(), LSIGUSR2);
		_exit(none && sfd_read1(got, &ssi) == LSIGUSR2 && ssi.ssi_pid == (uint32_t)getpid()
			  ? 0
			  : 1);
	}
	fd = sfd(-1, USR12, SFD_NONBLOCK);
	lsig_kill(getpid(), LSIGUSR1);
	send_fds(sv[0], "x", 1, &fd, 1);
	ok(child_ok(pid), "a signalfd passed by SCM_RIGHTS reads the receiver's signals");
	is_int(sfd_read1(fd, &ssi), LSIGUSR1, "the sender's stays the sender's");
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

static volatile int phase;
static long other_poll, other_read;

/* Waits for phase 1, then polls and reads shared_fd without blocking. */
static int other(void *arg)
{
	struct pollfd p = {shared_fd, POLLIN, 0};
	struct signalfd_siginfo ssi;

	(void)arg;
	__atomic_store_n(&phase, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&phase, __ATOMIC_ACQUIRE) != 2)
		thread_sys(__NR_sched_yield, 0, 0, 0);
	thread_sys(__NR_poll, &p, 1, 0);
	other_poll = p.revents;
	other_read = thread_sys(__NR_read, shared_fd, &ssi, sizeof(ssi));
	other_read = other_read == SSI_SIZE ? (long)ssi.ssi_signo : other_read;
	return 0;
}

static void check_tgkill_is_private(void)
{
	struct signalfd_siginfo ssi;
	struct thread t;
	long tid;

	shared_fd = sfd(-1, LBIT(LSIGUSR1), SFD_NONBLOCK);
	phase = 0;
	tid = thread_start(&t, other, NULL);
	require(tid > 0, "thread");
	while (!__atomic_load_n(&phase, __ATOMIC_ACQUIRE))
		thread_sys(__NR_sched_yield, 0, 0, 0);
	syscall(__NR_tgkill, getpid(), tid, LSIGUSR1);
	is_int(sfd_poll(shared_fd, 0), 0, "tgkill to another thread: not readable for this one");
	is_int(sfd_read1(shared_fd, &ssi), 0, "nor can this one read it (EAGAIN)");
	__atomic_store_n(&phase, 2, __ATOMIC_RELEASE);
	thread_join(&t);
	is_int(other_poll, POLLIN, "the target thread polls it readable");
	is_int(other_read, LSIGUSR1, "and reads it through the same fd");
	close(shared_fd);
}

/* The reader keeps the file: the read goes on after the fd is closed. */
static void check_close_under_reader(void)
{
	struct thread t;

	shared_fd = sfd(-1, LBIT(LSIGUSR1), 0);
	got_ret = 0;
	require(thread_start(&t, reader, NULL) > 0, "thread");
	sleep_ms(50);
	close(shared_fd);
	lsig_kill(getpid(), LSIGUSR1);
	thread_join(&t);
	ok(got_ret == SSI_SIZE && got_signo == LSIGUSR1,
	   "a signalfd closed under a sleeping reader: the read goes on and gets the signal");
}

static void check_epoll_orders(void)
{
	int ep, fd;

	for (int order = 0; order < 2; order++) {
		ep = epoll_create1(0);
		fd = sfd(-1, LBIT(LSIGUSR1), SFD_NONBLOCK);
		require(ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN) == 0, "epoll_ctl");
		lsig_kill(getpid(), LSIGUSR1);
		is_int(ep_wait1(ep, 0, NULL), EPOLLIN,
		       "epoll of a signalfd: ready (%s closed first)",
		       order ? "epoll" : "signalfd");
		close(order ? ep : fd);
		lsig_kill(getpid(), LSIGUSR1); /* wakes whatever is left */
		close(order ? fd : ep);
	}
	lsig_action(LSIGUSR1, UAPI_SIG_IGN, 0, 0); /* discards the one still pending */
	lsig_action(LSIGUSR1, UAPI_SIG_DFL, 0, 0);
}

/* A child adds the signalfd to the shared epoll and exits: the hook on its
 * process's queue goes with it; the item stays and a MOD re-polls it. */
static void check_registrar_exits(void)
{
	int ep = epoll_create1(0), fd = sfd(-1, LBIT(LSIGUSR1), SFD_NONBLOCK), status;
	struct signalfd_siginfo ssi;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN) == 0 ? 0 : 1);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "a child registered the signalfd in the shared epoll and exited");
	lsig_kill(getpid(), LSIGUSR1);
	ok(ep_count(ep) >= 0, "epoll_wait after the registrar is gone: no crash");
	is_int(ep_ctl(ep, EPOLL_CTL_MOD, fd, EPOLLIN), 0, "the item is still there (MOD)");
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "and polled for this process: ready");
	is_int(sfd_read1(fd, &ssi), LSIGUSR1, "read");
	is_int(ep_count(ep), 0, "then not ready");
	close(fd);
	close(ep);
	/* The other order, with the dead hook still on the item. */
	ep = epoll_create1(0);
	fd = sfd(-1, LBIT(LSIGUSR1), SFD_NONBLOCK);
	if ((pid = fork()) == 0)
		_exit(ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN) == 0 ? 0 : 1);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0) && close(ep) == 0 &&
	       close(fd) == 0,
	   "the same, then the epoll closed before the signalfd");
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have = kstat_read(&before);

	(void)argc;
	plan(20);
	require(lsig_procmask(UAPI_SIG_BLOCK, USR12, NULL) == 0, "block");
	check_kill_from_another_process();
	check_tgkill_is_private();
	check_close_under_reader();
	check_two_readers();
	check_passed_fd();
	check_epoll_orders();
	check_registrar_exits();
	lsig_procmask(UAPI_SIG_UNBLOCK, USR12, NULL);
	ok(can_run_true(argv[0]) && pipe_round_trip(), "the system still works");
	kstat_unchanged(&before, have, "nothing left: files, heap, tasks, epoll watches");
	return done();
}
