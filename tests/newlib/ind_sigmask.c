/* syscall_indirect(SYSIND_SIGMASK): the mask is in force during the call and
 * the caller's comes back after success and failure; a pending signal it
 * unblocks interrupts poll (ppoll's race closed); a signal it blocks during
 * accept runs only after accept; restarts; and pselect_ind() on top. */
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include "indirect.h"
#include "pselect_ind.h"
#include "sigutil.h"
#include "sock_util.h"

static volatile sig_atomic_t hits;
static volatile uint64_t mask_in_handler;
static volatile int probe_fd = -1, probe_open; /* see accept_handler */

static void count_handler(int sig)
{
	(void)sig;
	hits++;
	mask_in_handler = lsig_blocked();
}

static void test_mask_during_and_after(void)
{
	uint64_t seen = 0;

	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGHUP), NULL);
	IND_CALL(SYSIND_SIGMASK, LBIT(LSIGUSR2) | LBIT(LSIGKILL) | LBIT(LSIGSTOP),
		 __NR_rt_sigprocmask, UAPI_SIG_BLOCK, 0, (unsigned long)&seen, 8);
	is_int(seen, LBIT(LSIGUSR2), "during the call the mask is sigmask, without KILL/STOP");
	is_int(lsig_blocked(), LBIT(LSIGHUP), "after success the caller's mask is back");
	is_errno(IND_CALL(SYSIND_SIGMASK, LBIT(LSIGUSR2), __NR_open, (unsigned long)"/no/file", 0),
		 ENOENT, "an inner failure passes through");
	is_int(lsig_blocked(), LBIT(LSIGHUP), "after it the caller's mask is back");
	is_errno(IND_CALL(SYSIND_SIGMASK, LBIT(LSIGUSR2), 5000, 0), ENOSYS, "a bad nr: ENOSYS");
	is_int(lsig_blocked(), LBIT(LSIGHUP), "the mask is untouched");
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
}

static void test_delivered_on_restore(void)
{
	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, 0);
	long ret =
	    IND_CALL(SYSIND_SIGMASK, LBIT(LSIGUSR1), __NR_kill, (unsigned long)getpid(), LSIGUSR1);
	int after = hits;
	ok(ret == 0 && after == 1, "a signal sigmask held back runs as the call returns (%d)",
	   after);
	is_int(mask_in_handler, LBIT(LSIGUSR1), "its handler runs under the caller's mask");
}

/* ppoll's race: SIGUSR1 blocked and already pending when the call starts. */
static void test_ppoll(void)
{
	struct pollfd pfd;
	int fds[2];
	long ret;

	require(pipe(fds) == 0, "pipe");
	pfd = (struct pollfd){.fd = fds[0], .events = POLLIN};
	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, 0);
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGUSR1), NULL);
	require(lsig_from_child(LSIGUSR1), "child sends SIGUSR1");
	ok(hits == 0 && lsig_pending() == LBIT(LSIGUSR1), "SIGUSR1 is pending, blocked");
	ret = IND_CALL(SYSIND_SIGMASK, 0, __NR_poll, (unsigned long)&pfd, 1, (unsigned long)-1);
	is_errno(ret, EINTR, "poll with an empty sigmask and no timeout: EINTR at once");
	ok(hits == 1 && lsig_blocked() == LBIT(LSIGUSR1),
	   "the handler ran (the signal is not lost) and SIGUSR1 is blocked again");
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
	close(fds[0]);
	close(fds[1]);
}

/* Records whether accept had installed its fd when the handler ran. */
static void accept_handler(int sig)
{
	(void)sig;
	hits++;
	probe_open = fcntl(probe_fd, F_GETFD) >= 0;
}

static void test_accept_blocked(void)
{
	struct saddr a;
	int lfd = sock_server(AF_UNIX, SOCK_STREAM, "indacc", &a), status;
	pid_t parent = getpid(), child;
	char parent_stat[64];
	long fd;

	require(lfd >= 0, "listener");
	probe_fd = dup(0);
	close(probe_fd); /* the lowest free fd: accept's */
	hits = probe_open = 0;
	lsig_handle(LSIGUSR1, accept_handler, 0);
	snprintf(parent_stat, sizeof parent_stat, "/proc/%d/stat", (int)parent);
	fflush(stdout);
	if ((child = fork()) == 0) {
		/* The parent is in accept, SIGUSR1 masked: nothing else sleeps. */
		WAIT_UNTIL(stat_state(parent_stat) == 'S');
		int ok = lsig_kill(parent, LSIGUSR1) == 0;
		sleep_ms(50);
		_exit(ok && sock_client(AF_UNIX, SOCK_STREAM, &a) >= 0 ? 0 : 1);
	}
	fd = IND_CALL(SYSIND_SIGMASK, LBIT(LSIGUSR1), __NR_accept, (unsigned long)lfd, 0, 0);
	int ran = hits, saw_fd = probe_open;
	ok(fd == probe_fd, "accept with SIGUSR1 in sigmask is not interrupted (fd %ld)", fd);
	ok(ran == 1 && saw_fd, "the handler ran after accept returned its fd");
	ok(waitpid(child, &status, 0) == child && exited_with(status, 0), "child connected");
	close(fd);
	close(lfd);
	saddr_drop(&a);
}

static void test_restart(void)
{
	int fds[2];
	char c = 0;
	pid_t child, parent = getpid();

	require(pipe(fds) == 0, "pipe");
	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGUSR1), NULL);
	fflush(stdout);
	if ((child = fork()) == 0) {
		sleep_ms(100);
		lsig_kill(parent, LSIGUSR1);
		sleep_ms(100);
		_exit(write(fds[1], "r", 1) == 1 ? 0 : 1);
	}
	long n =
	    IND_CALL(SYSIND_SIGMASK, 0, __NR_read, (unsigned long)fds[0], (unsigned long)&c, 1);
	ok(n == 1 && c == 'r' && hits == 1,
	   "SA_RESTART: the read restarts under sigmask after the handler");
	is_int(lsig_blocked(), LBIT(LSIGUSR1), "and the caller's mask is back");
	waitpid(child, NULL, 0);
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
	close(fds[0]);
	close(fds[1]);
}

static void test_pselect(void)
{
	struct timespec short_wait = {0, 50 * 1000000L};
	sigset_t empty;
	fd_set r;
	int fds[2];

	require(pipe(fds) == 0 && fds[1] < FD_SETSIZE, "pipe");
	sigemptyset(&empty);
	FD_ZERO(&r);
	FD_SET(fds[0], &r);
	is_int(pselect_ind(fds[0] + 1, &r, NULL, NULL, &short_wait, &empty), 0,
	       "pselect_ind: nothing to read, times out: 0");
	ok(!FD_ISSET(fds[0], &r), "and clears the set");
	require(write(fds[1], "p", 1) == 1, "write");
	FD_SET(fds[0], &r);
	ok(pselect_ind(fds[0] + 1, &r, NULL, NULL, NULL, NULL) == 1 && FD_ISSET(fds[0], &r),
	   "a readable pipe: 1, its bit set");
	require(read(fds[0], &(char){0}, 1) == 1, "read");

	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, 0);
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGUSR1), NULL);
	require(lsig_from_child(LSIGUSR1), "child sends SIGUSR1");
	FD_SET(fds[0], &r);
	is_errno(pselect_ind(fds[0] + 1, &r, NULL, NULL, NULL, &empty), EINTR,
		 "a pending signal the mask unblocks: EINTR");
	ok(hits == 1 && lsig_blocked() == LBIT(LSIGUSR1), "its handler ran, mask restored");
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
	close(fds[1]);
	FD_SET(fds[0], &r);
	close(fds[0]);
	is_errno(pselect_ind(fds[0] + 1, &r, NULL, NULL, &short_wait, NULL), EBADF,
		 "a closed fd: EBADF");
}

int main(void)
{
	if (!indirect_available())
		skip_all("no syscall_indirect (fdkernel only)");
	plan(22);
	test_mask_during_and_after();
	test_delivered_on_restore();
	test_ppoll();
	test_accept_blocked();
	test_restart();
	test_pselect();
	return done();
}
