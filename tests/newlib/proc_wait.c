/* Tests of fork, exit and wait: exit statuses, WNOHANG, waiting for one
 * child or any, ECHILD, many children, and zombies that keep their status. */
#include <errno.h>
#include <fdkernel.h> /* wait4, which newlib does not declare */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* Fork a child that sleeps DELAY_MS and exits with CODE. */
static pid_t fork_exit(int code, long delay_ms)
{
	pid_t pid;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (delay_ms)
			sleep_ms(delay_ms);
		_exit(code);
	}
	return pid;
}

static void test_exit_codes(void)
{
	static const int codes[] = {0, 1, 42, 255};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		int status = -1;
		pid_t pid = fork_exit(codes[i], 0);
		ok(pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, codes[i]),
		   "waitpid sees the child's _exit(%d)", codes[i]);
	}
}

/* The child runs until the parent closes the pipe, whatever the load. */
static void test_wnohang(void)
{
	int status = -1, hold[2];
	pid_t pid;
	char c;

	require(pipe(hold) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(hold[1]);
		_exit(read(hold[0], &c, 1) == 0 ? 3 : 1);
	}
	close(hold[0]);
	ok(wait4(pid, &status, WNOHANG, NULL) == 0, "wait4 WNOHANG returns 0 while the child runs");
	close(hold[1]);
	ok(wait4(pid, &status, 0, NULL) == pid && exited_with(status, 3),
	   "wait4 without WNOHANG then blocks until the child exits");
}

static void test_specific_and_any(void)
{
	int status = -1;
	pid_t slow = fork_exit(1, 100), fast = fork_exit(2, 0);
	ok(waitpid(slow, &status, 0) == slow && exited_with(status, 1),
	   "waitpid(pid) waits for that child while another has already exited");
	ok(waitpid(-1, &status, 0) == fast && exited_with(status, 2),
	   "waitpid(-1) reaps the remaining child");
	is_errno(waitpid(-1, &status, 0), ECHILD, "waitpid(-1) without children: ECHILD");
	is_errno(waitpid(slow, &status, 0), ECHILD, "waitpid on a reaped pid: ECHILD");
	is_errno(waitpid(-1, &status, WNOHANG), ECHILD, "waitpid WNOHANG without children: ECHILD");
	is_errno(waitpid(-1, &status, 0x40000), EINVAL, "unknown wait option: EINVAL");
}

static void test_many_children(void)
{
	enum { N = 50 };
	pid_t pids[N];
	int reaped = 0, right = 0, status;
	pid_t pid;
	for (int i = 0; i < N; i++)
		pids[i] = fork_exit(i, 0);
	while ((pid = waitpid(-1, &status, 0)) > 0) {
		reaped++;
		for (int i = 0; i < N; i++)
			right += pids[i] == pid && exited_with(status, i);
	}
	ok(reaped == N && right == N && errno == ECHILD,
	   "%d children all reaped with their own status (%d reaped, %d right)", N, reaped, right);
}

static void test_zombie(void)
{
	int status = -1;
	pid_t pid = fork_exit(7, 0);
	require(await_zombie(pid), "the child exits");
	ok(waitpid(pid, &status, WNOHANG) == pid && exited_with(status, 7),
	   "a child that exited before the wait still reports its status");
}

int main(void)
{
	plan(14);
	test_exit_codes();
	test_wnohang();
	test_specific_and_any();
	test_many_children();
	test_zombie();
	return done();
}
