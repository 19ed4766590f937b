/* Blocked signals, SIG_IGN and SIG_DFL: pending while blocked, delivered on
 * unblock, discarded by SIG_IGN; SIGKILL/SIGSTOP refused or unblockable;
 * sigsuspend; masks across fork and execve (checked by /bin/sigcheck). */
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

static volatile sig_atomic_t hits;

static void count_handler(int sig)
{
	(void)sig;
	hits++;
}

static void test_pending(void)
{
	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, 0);
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR1), NULL);
	lsig_kill(getpid(), LSIGUSR1);
	lsig_kill(getpid(), LSIGUSR1);
	ok(hits == 0 && lsig_pending() == LBIT(LSIGUSR1),
	   "a blocked signal is not delivered and rt_sigpending shows it");
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR1), NULL);
	ok(hits == 1 && lsig_pending() == 0, "unblocking delivers it, once (%d)", (int)hits);
}

static void test_ignore(void)
{
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR2), NULL);
	lsig_kill(getpid(), LSIGUSR2);
	lsig_action(LSIGUSR2, UAPI_SIG_IGN, 0, 0);
	is_int(lsig_pending(), 0, "SIG_IGN discards a pending signal");
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR2), NULL);
	is_int(lsig_kill(getpid(), LSIGUSR2), 0, "an ignored SIGUSR2 does not kill");
	lsig_action(LSIGUSR2, UAPI_SIG_DFL, 0, 0);
}

static void usr1_self(void)
{
	lsig_action(LSIGUSR1, UAPI_SIG_DFL, 0, 0);
	lsig_kill(getpid(), LSIGUSR1);
}

static void default_ignored_self(void)
{
	lsig_kill(getpid(), LSIGCHLD);
	lsig_kill(getpid(), LSIGURG);
	lsig_kill(getpid(), LSIGWINCH);
}

static void test_default(void)
{
	ok(killed_by(child_status(usr1_self), SIGUSR1), "SIG_DFL of SIGUSR1 terminates");
	ok(exited_with(child_status(default_ignored_self), 0),
	   "SIG_DFL of SIGCHLD, SIGURG, SIGWINCH ignores");
}

static void test_unblockable(void)
{
	struct uapi_sigaction old;

	is_errno(lsig_handle(LSIGKILL, count_handler, 0), EINVAL, "sigaction(SIGKILL): EINVAL");
	is_errno(lsig_action(LSIGSTOP, UAPI_SIG_IGN, 0, 0), EINVAL, "SIG_IGN for SIGSTOP: EINVAL");
	ok(syscall(__NR_rt_sigaction, LSIGKILL, NULL, &old, 8) == 0 && old.handler == UAPI_SIG_DFL,
	   "querying SIGKILL's action works");
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGKILL) | LBIT(LSIGSTOP) | LBIT(LSIGUSR1), NULL);
	is_int(lsig_blocked(), LBIT(LSIGUSR1), "SIGKILL and SIGSTOP are silently not blocked");
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
}

static void test_bad_args(void)
{
	is_errno(lsig_action(0, UAPI_SIG_IGN, 0, 0), EINVAL, "sigaction of signal 0: EINVAL");
	is_errno(lsig_action(65, UAPI_SIG_IGN, 0, 0), EINVAL, "sigaction of signal 65: EINVAL");
	is_errno(syscall(__NR_rt_sigaction, LSIGUSR1, NULL, NULL, 4), EINVAL,
		 "rt_sigaction with sigsetsize 4: EINVAL");
	is_errno(syscall(__NR_rt_sigprocmask, 7, &(uint64_t){0}, NULL, 8), EINVAL,
		 "rt_sigprocmask with a bad how: EINVAL");
	is_errno(syscall(__NR_rt_sigprocmask, UAPI_SIG_BLOCK, (void *)8, NULL, 8), EFAULT,
		 "rt_sigprocmask with an unmapped set: EFAULT");
}

static void test_sigsuspend(void)
{
	uint64_t empty = 0;
	long ret;

	hits = 0;
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGUSR1), NULL);
	require(lsig_from_child(LSIGUSR1), "child sends SIGUSR1");
	ret = syscall(__NR_rt_sigsuspend, &empty, 8);
	is_errno(ret, EINTR, "sigsuspend with a signal pending: EINTR at once");
	ok(hits == 1 && lsig_blocked() == LBIT(LSIGUSR1),
	   "its handler ran and the old mask is back");
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
}

static void fork_child_checks(void)
{
	_exit(lsig_blocked() == LBIT(LSIGUSR2) && lsig_pending() == 0 ? 0 : 1);
}

static void test_fork(void)
{
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGUSR2), NULL);
	lsig_kill(getpid(), LSIGUSR2);
	ok(exited_with(child_status(fork_child_checks), 0),
	   "fork: the child inherits the mask, not the pending set");
	lsig_action(LSIGUSR2, UAPI_SIG_IGN, 0, 0); /* drop the pending one */
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
}

static void test_exec(const char *argv0)
{
	char path[300], out[1024], blocked[40], hup[8], term[8], usr1[16];
	char *argv[] = {"sigcheck", blocked, hup, term, usr1, NULL}, *envp[] = {NULL};
	int status;

	snprintf(blocked, sizeof blocked, "blocked=%lx", LBIT(LSIGUSR2) | LBIT(LSIGHUP));
	snprintf(hup, sizeof hup, "%d=dfl", LSIGHUP);
	snprintf(term, sizeof term, "%d=ign", LSIGTERM);
	snprintf(usr1, sizeof usr1, "%d=dfl", LSIGUSR1);
	lsig_procmask(UAPI_SIG_SETMASK, LBIT(LSIGUSR2) | LBIT(LSIGHUP), NULL);
	lsig_handle(LSIGHUP, count_handler, 0);
	lsig_handle(LSIGUSR1, count_handler, 0);
	lsig_action(LSIGTERM, UAPI_SIG_IGN, 0, 0);
	status = run_capture(test_bin_path(argv0, "sigcheck", path, sizeof path), argv, envp, out,
			     sizeof out);
	if (!ok(exited_with(status, 0),
		"execve keeps the mask and SIG_IGN, resets handlers to SIG_DFL"))
		diag("%s", one_line(out));
	lsig_procmask(UAPI_SIG_SETMASK, 0, NULL);
	lsig_action(LSIGTERM, UAPI_SIG_DFL, 0, 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	plan(19);
	test_pending();
	test_ignore();
	test_default();
	test_unblockable();
	test_bad_args();
	test_sigsuspend();
	test_fork();
	test_exec(argv[0]);
	return done();
}
