/*
 * signalfd reads: the record's fields (kill, tgkill, SIGCHLD of an exited
 * and a killed child), several signals in one read (lowest first), the
 * thread's own pending signals before the process's, mask updates through
 * the same fd, blocking reads woken by another process or cut short by a
 * handler (EINTR, or restarted with SA_RESTART), poll and epoll readiness,
 * and a forked child that reads its own signals through its parent's fd.
 */
#include "epoll_util.h"
#include "robust.h"
#include "signalfd_util.h"

#include <sys/signalfd.h>

static volatile int handled;

static void on_usr2(int sig)
{
	(void)sig;
	handled++;
}

static bool from_self(const struct signalfd_siginfo *s, int sig, int code)
{
	return (int)s->ssi_signo == sig && s->ssi_code == code &&
	       s->ssi_pid == (uint32_t)getpid() && s->ssi_uid == (uint32_t)getuid() &&
	       s->ssi_errno == 0;
}

static void check_fields(int fd)
{
	struct signalfd_siginfo ssi;

	lsig_kill(getpid(), LSIGUSR1);
	ok(sfd_read1(fd, &ssi) == LSIGUSR1 && from_self(&ssi, LSIGUSR1, LSI_USER),
	   "kill: ssi_signo, ssi_code SI_USER, ssi_pid, ssi_uid");
	is_int(sfd_read1(fd, &ssi), 0, "read it once: then EAGAIN");
	ok(!(lsig_pending() & LBIT(LSIGUSR1)), "and it is no longer pending");
	syscall(__NR_tgkill, getpid(), syscall(__NR_gettid), LSIGUSR2);
	ok(sfd_read1(fd, &ssi) == LSIGUSR2 && from_self(&ssi, LSIGUSR2, -6),
	   "tgkill: ssi_code SI_TKILL");
}

static void check_many(int fd)
{
	struct signalfd_siginfo ssi[3];

	lsig_kill(getpid(), LSIGTERM);
	lsig_kill(getpid(), LSIGUSR2);
	lsig_kill(getpid(), LSIGUSR1);
	is_int(read(fd, ssi, sizeof(ssi)), 3 * SSI_SIZE, "three pending, one read: three records");
	ok(ssi[0].ssi_signo == LSIGUSR1 && ssi[1].ssi_signo == LSIGUSR2 &&
	       ssi[2].ssi_signo == LSIGTERM,
	   "lowest number first");
	lsig_kill(getpid(), LSIGUSR2);
	lsig_kill(getpid(), LSIGUSR1);
	lsig_kill(getpid(), LSIGTERM);
	is_int(read(fd, ssi, 2 * SSI_SIZE + 50), 2 * SSI_SIZE, "room for 2.4 records: 2");
	is_int(read(fd, ssi, sizeof(ssi)), SSI_SIZE, "the third comes next");
	/* The thread's own set first, as Linux's dequeue_signal. */
	lsig_kill(getpid(), LSIGUSR1);
	syscall(__NR_tgkill, getpid(), syscall(__NR_gettid), LSIGTERM);
	is_int(read(fd, ssi, sizeof(ssi)), 2 * SSI_SIZE, "one process-wide, one thread-directed");
	ok(ssi[0].ssi_signo == LSIGTERM && ssi[1].ssi_signo == LSIGUSR1,
	   "the thread's own comes first, though its number is higher");
}

static void check_mask_update(int fd)
{
	struct signalfd_siginfo ssi;

	is_int(sfd(fd, LBIT(LSIGUSR1), 0), fd, "mask narrowed to SIGUSR1");
	lsig_kill(getpid(), LSIGUSR2);
	is_int(sfd_read1(fd, &ssi), 0, "SIGUSR2 pending, not in the mask: EAGAIN");
	is_int(sfd_poll(fd, 0), 0, "and poll says not readable");
	is_int(sfd(fd, LBIT(LSIGUSR2), 0), fd, "mask changed to SIGUSR2");
	is_int(sfd_poll(fd, 0), POLLIN, "poll: readable now");
	is_int(sfd_read1(fd, &ssi), LSIGUSR2, "the same fd reads it");
	is_int(sfd(fd, USR12 | LBIT(LSIGTERM), 0), fd, "mask back");
}

static void check_blocking(void)
{
	int fd = sfd(-1, LBIT(LSIGUSR1), 0), status;
	struct signalfd_siginfo ssi;
	pid_t pid;

	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR1), NULL);
	pid = sfd_signal_later(LSIGUSR1, 50);
	ok(sfd_read1(fd, &ssi) == LSIGUSR1 && ssi.ssi_pid == (uint32_t)pid,
	   "a blocking read waits for another process's kill");
	waitpid(pid, &status, 0);
	/* A handled signal outside the mask ends the wait. */
	lsig_handle(LSIGUSR2, on_usr2, 0);
	pid = lsig_sender(LSIGUSR2, 50); /* again and again: one could come before the read */
	is_errno(read(fd, &ssi, sizeof(ssi)), EINTR, "a handler without SA_RESTART: EINTR");
	lsig_stop_sender(pid);
	handled = 0;
	lsig_handle(LSIGUSR2, on_usr2, UAPI_SA_RESTART);
	/* One child sends both, the handler's signal first: a second sender
	 * 150 ms later could overtake the first on a loaded machine. */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(50);
		lsig_kill(getppid(), LSIGUSR2);
		sleep_ms(150);
		_exit(lsig_kill(getppid(), LSIGUSR1) == 0 ? 0 : 1);
	}
	ok(sfd_read1(fd, &ssi) == LSIGUSR1 && handled == 1,
	   "with SA_RESTART the read resumes after the handler");
	waitpid(pid, &status, 0);
	lsig_handle(LSIGUSR2, NULL, 0);
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR1), NULL);
	close(fd);
}

static void check_sigchld(void)
{
	int fd = sfd(-1, LBIT(LSIGCHLD), 0), status;
	struct signalfd_siginfo ssi;
	pid_t pid;

	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGCHLD), NULL);
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(7);
	ok(sfd_read1(fd, &ssi) == LSIGCHLD && ssi.ssi_code == LCLD_EXITED &&
	       ssi.ssi_pid == (uint32_t)pid && ssi.ssi_status == 7 &&
	       ssi.ssi_uid == (uint32_t)getuid(),
	   "SIGCHLD of an exit: CLD_EXITED, the child's pid, status 7");
	waitpid(pid, &status, 0);
	if ((pid = fork()) == 0)
		for (;;)
			pause();
	kill(pid, SIGKILL);
	ok(sfd_read1(fd, &ssi) == LSIGCHLD && ssi.ssi_code == LCLD_KILLED &&
	       ssi.ssi_pid == (uint32_t)pid && ssi.ssi_status == LSIGKILL,
	   "SIGCHLD of a kill: CLD_KILLED, status SIGKILL");
	waitpid(pid, &status, 0);
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGCHLD), NULL);
	close(fd);
}

static void check_polling(int fd)
{
	int ep = epoll_create1(0), status;
	pid_t pid;

	require(ep >= 0 && ep_ctl(ep, EPOLL_CTL_ADD, fd, EPOLLIN) == 0, "epoll");
	is_int(ep_count(ep), 0, "epoll: nothing pending, nothing ready");
	lsig_kill(getpid(), LSIGUSR1);
	is_int(ep_wait1(ep, 0, NULL), EPOLLIN, "epoll: EPOLLIN once a signal is pending");
	is_int(sfd_poll(fd, 0), POLLIN, "poll: POLLIN");
	{
		struct signalfd_siginfo ssi;
		sfd_read1(fd, &ssi);
	}
	is_int(ep_count(ep), 0, "read: no longer ready");
	pid = sfd_signal_later(LSIGUSR2, 50);
	is_int(ep_wait1(ep, 5000, NULL), EPOLLIN, "a sleeping epoll_wait is woken by a kill");
	waitpid(pid, &status, 0);
	pid = sfd_signal_later(LSIGUSR1, 50);
	is_int(sfd_poll(fd, 5000), POLLIN, "so is a sleeping poll");
	waitpid(pid, &status, 0);
	{
		struct signalfd_siginfo ssi[2];
		is_int(read(fd, ssi, sizeof(ssi)), 2 * SSI_SIZE, "both read");
	}
	close(ep);
}

/* libc's signalfd() takes newlib's sigset; signalfd_signo() maps back. */
static void check_libc(void)
{
	struct signalfd_siginfo ssi;
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	fd = signalfd(-1, &set, SFD_NONBLOCK);
	lsig_kill(getpid(), LSIGUSR2);
	ok(fd >= 0 && sfd_read1(fd, &ssi) == LSIGUSR2 && signalfd_signo(&ssi) == SIGUSR2,
	   "libc signalfd(): newlib's SIGUSR2 in, signalfd_signo() gives it back");
	close(fd);
}

/* The child reads its own signals: none of its parent's. */
static void check_fork(int fd)
{
	struct signalfd_siginfo ssi;
	int status;
	pid_t pid;

	lsig_kill(getpid(), LSIGUSR1);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int none = sfd_read1(fd, &ssi) == 0;
		lsig_kill(getpid(), LSIGUSR2);
		_exit(none && sfd_read1(fd, &ssi) == LSIGUSR2 && ssi.ssi_pid == (uint32_t)getpid()
			  ? 0
			  : 1);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "a forked child reads its own signals through the inherited fd, not its parent's");
	is_int(sfd_read1(fd, &ssi), LSIGUSR1, "the parent's is still there for the parent");
}

int main(int argc, char **argv)
{
	struct kstat before;
	bool have = kstat_read(&before);
	uint64_t mask = USR12 | LBIT(LSIGTERM);
	int fd;

	(void)argc;
	plan(34);
	require(lsig_procmask(UAPI_SIG_BLOCK, mask, NULL) == 0, "block");
	fd = sfd(-1, mask, SFD_NONBLOCK);
	require(fd >= 0, "signalfd");
	check_fields(fd);
	check_many(fd);
	check_mask_update(fd);
	check_polling(fd);
	check_fork(fd);
	check_libc();
	close(fd);
	lsig_procmask(UAPI_SIG_UNBLOCK, mask, NULL);
	check_blocking();
	check_sigchld();
	ok(can_run_true(argv[0]) && pipe_round_trip(), "the system still works");
	kstat_unchanged(&before, have, "nothing left: files, heap, tasks, epoll watches");
	return done();
}
