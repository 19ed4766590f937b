/* A parent that ignores SIGCHLD (SIG_IGN) or sets SA_NOCLDWAIT leaves no
 * zombies: its children are reaped as they exit (more of them than the
 * task limit, one after another), and wait then fails with ECHILD, also
 * for a waiter already blocked when the last child exits (Linux). */
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

#define GENERATIONS 1100 /* more than fdkernel's 1024 live tasks */
#define GONE_MS	    3000

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* True once pid no longer exists (reaped, not a zombie), within GONE_MS. */
static bool gone(pid_t pid)
{
	long deadline = now_ms() + GONE_MS;

	while (now_ms() < deadline) {
		if (lsig_kill(pid, 0) < 0 && errno == ESRCH)
			return true;
		syscall(__NR_sched_yield);
	}
	return false;
}

/* Forks GENERATIONS children one after another, each gone before the
 * next: the number that were, or -1 if fork failed. */
static int generations_reaped(void)
{
	fflush(stdout);
	for (int i = 0; i < GENERATIONS; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			return -1;
		if (!gone(pid))
			return i;
	}
	return GENERATIONS;
}

static void check_mode(const char *how)
{
	pid_t pid;
	int status;

	is_int(generations_reaped(), GENERATIONS, "%s: every exited child is reaped at once", how);
	errno = 0;
	ok(waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD, "%s: WNOHANG wait gives ECHILD",
	   how);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(50);
		_exit(3);
	}
	require(pid > 0, "fork");
	errno = 0;
	ok(waitpid(-1, &status, 0) < 0 && errno == ECHILD,
	   "%s: a blocked wait ends with ECHILD when the last child exits", how);
}

static volatile sig_atomic_t chld_handled;

static void on_chld(int sig)
{
	(void)sig;
	chld_handled++;
}

int main(void)
{
	plan(7);
	require(lsig_action(LSIGCHLD, 1 /* SIG_IGN */, 0, 0) == 0, "sigaction");
	check_mode("SIG_IGN");
	require(lsig_action(LSIGCHLD, (uint64_t)on_chld, UAPI_SA_NOCLDWAIT | UAPI_SA_RESTART, 0) ==
		    0,
		"sigaction");
	check_mode("SA_NOCLDWAIT");
	ok(chld_handled > 0, "SA_NOCLDWAIT with a handler still sends SIGCHLD (%d)",
	   (int)chld_handled);
	return tap_failed != 0;
}
