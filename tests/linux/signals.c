/* Signals through musl: sigaction with SA_SIGINFO (si_signo, si_code,
 * si_pid), blocking and pending, sigsuspend, SA_RESTART against EINTR on a
 * pipe read, SIGCHLD's siginfo, and siglongjmp out of a handler. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "testutil.h"

static volatile sig_atomic_t hits, last_code, last_pid, last_status;
static sigjmp_buf jump;

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	hits++;
	last_code = si->si_signo == sig ? si->si_code : -999;
	last_pid = si->si_pid;
	last_status = si->si_status;
}

static void on_jump(int sig)
{
	siglongjmp(jump, sig);
}

static void handle(int sig, int flags)
{
	struct sigaction sa = {.sa_sigaction = on_info, .sa_flags = SA_SIGINFO | flags};

	sigemptyset(&sa.sa_mask);
	require(sigaction(sig, &sa, NULL) == 0, "sigaction");
}

/* A read on an empty pipe while a 50 ms timer fires: the result of read. */
static ssize_t read_across_alarm(int flags, int *err)
{
	int fds[2];
	char c;
	struct itimerval it = {{0, 0}, {0, 50000}};

	require(pipe(fds) == 0, "pipe");
	handle(SIGALRM, flags);
	hits = 0;
	if (flags & SA_RESTART) { /* a child writes after the timer fired */
		if (fork() == 0) {
			usleep(200000);
			write(fds[1], "x", 1);
			_exit(0);
		}
	}
	setitimer(ITIMER_REAL, &it, NULL);
	ssize_t n = read(fds[0], &c, 1);
	*err = errno;
	close(fds[0]);
	close(fds[1]);
	if (flags & SA_RESTART)
		wait(NULL);
	return n;
}

int main(void)
{
	sigset_t set, old;
	int err;

	plan(14);
	handle(SIGUSR1, 0);
	kill(getpid(), SIGUSR1);
	ok(hits == 1 && last_code == SI_USER && last_pid == getpid(),
	   "SA_SIGINFO handler: SI_USER from our pid");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	kill(getpid(), SIGUSR1);
	is_int(hits, 1, "a blocked signal waits");
	sigset_t pend;
	sigpending(&pend);
	ok(sigismember(&pend, SIGUSR1) == 1, "sigpending shows it");
	sigsuspend(&old);
	is_int(hits, 2, "sigsuspend delivers it");
	sigprocmask(SIG_SETMASK, &old, NULL);

	ok(read_across_alarm(0, &err) == -1 && err == EINTR, "a handler without SA_RESTART: EINTR");
	ok(hits == 1, "SIGALRM handled once");
	is_int(read_across_alarm(SA_RESTART, &err), 1,
	       "SA_RESTART: the read goes on and gets the byte");

	/* Blocked until sigsuspend waits: a SIGCHLD handled between a test
	 * of hits and pause() would leave pause() waiting for ever (the
	 * child may end on another CPU at any moment). */
	handle(SIGCHLD, 0);
	hits = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid_t pid = fork();
	if (pid == 0)
		_exit(9);
	while (!hits)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	waitpid(pid, NULL, 0);
	ok(last_code == CLD_EXITED && last_pid == pid && last_status == 9,
	   "SIGCHLD siginfo: CLD_EXITED, the child's pid and status");

	signal(SIGUSR2, on_jump);
	int got = sigsetjmp(jump, 1);
	if (got == 0)
		kill(getpid(), SIGUSR2);
	is_int(got, SIGUSR2, "siglongjmp out of a handler");
	sigprocmask(SIG_SETMASK, NULL, &set);
	ok(!sigismember(&set, SIGUSR2), "sigsetjmp(.., 1) restored the mask");

	struct sigaction sa;
	is_errno(sigaction(SIGKILL, &(struct sigaction){.sa_handler = on_jump}, NULL), EINVAL,
		 "a handler for SIGKILL: EINVAL");
	is_errno(sigaction(65, NULL, &sa), EINVAL, "signal 65: EINVAL");
	is_errno(kill(getpid(), 1000), EINVAL, "kill with signal 1000: EINVAL");
	ok(signal(SIGPIPE, SIG_IGN) == SIG_DFL && signal(SIGPIPE, SIG_DFL) == SIG_IGN,
	   "signal() returns the previous disposition");
	return done();
}
