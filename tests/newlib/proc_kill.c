/* Tests of kill with default actions: SIGKILL and SIGTERM end the target,
 * seen by its parent through WIFSIGNALED; bad pids and signals fail. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* A child that would run for long: it sleeps until killed. */
static pid_t fork_sleeper(void)
{
	pid_t pid;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		for (;;)
			sleep_ms(1000);
	}
	return pid;
}

static void test_kill(int sig, const char *name)
{
	int status = -1;
	pid_t pid = fork_sleeper();
	sleep_ms(20); /* let it start sleeping */
	ok(kill(pid, sig) == 0, "kill(child, %s) succeeds", name);
	ok(waitpid(pid, &status, 0) == pid && killed_by(status, sig),
	   "the parent sees WIFSIGNALED with WTERMSIG %s (status %#x)", name, status);
}

static void test_errors(void)
{
	int status;
	pid_t pid = fork_sleeper();
	ok(kill(pid, 0) == 0, "kill(pid, 0) finds a live child");
	is_errno(kill(pid, 1000), EINVAL, "kill with an invalid signal: EINVAL");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	is_errno(kill(pid, SIGTERM), ESRCH, "kill of a reaped pid: ESRCH");
}

int main(void)
{
	plan(7);
	test_kill(SIGKILL, "SIGKILL");
	test_kill(SIGTERM, "SIGTERM");
	test_errors();
	return done();
}
