/* kill(2) targets and errors: one pid, pid 0 (own group), -pgid, -1 (all but
 * init and the caller; only its existence check on the host), ESRCH, EINVAL;
 * SIGCHLD on a child's exit; SIGPIPE kills, or EPIPE when ignored. */
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

#define WAIT_MS 30000 /* a bound for a signal that never comes, not a speed */

static volatile sig_atomic_t hits;

static void count_handler(int sig)
{
	(void)sig;
	hits++;
}

/* Waits up to WAIT_MS for a handler to run; exit status 0 if it did. */
static int await_hit(void)
{
	for (int i = 0; i < WAIT_MS / 10 && !hits; i++)
		sleep_ms(10);
	return hits ? 0 : 1;
}

static void test_errors(void)
{
	pid_t gone;

	is_int(lsig_kill(getpid(), 0), 0, "kill(self, 0): the existence check succeeds");
	fflush(stdout);
	if ((gone = fork()) == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	is_errno(lsig_kill(gone, 0), ESRCH, "kill(reaped pid, 0): ESRCH");
	is_errno(lsig_kill(gone, LSIGTERM), ESRCH, "kill(reaped pid, SIGTERM): ESRCH");
	is_errno(lsig_kill(0x7ffffff0, LSIGTERM), ESRCH, "kill(never used pid): ESRCH");
	is_errno(lsig_kill(-0x7ffffff0, LSIGTERM), ESRCH, "kill(-pgid of no group): ESRCH");
	is_errno(lsig_kill(getpid(), 65), EINVAL, "kill(self, 65): EINVAL");
	is_errno(lsig_kill(getpid(), -1), EINVAL, "kill(self, -1): EINVAL");
}

/* A new group: its leader and one more member, both with handlers.  With
 * BY_LEADER the leader sends kill(0, SIGUSR1) once the member is ready;
 * otherwise READY gets a byte for the caller to signal the group.  Returns
 * the leader's pid; it exits 0 if both handlers ran. */
static pid_t group_of_two(int ready[2], bool by_leader)
{
	pid_t leader, member;
	int status;
	char c;

	fflush(stdout);
	if ((leader = fork()) != 0)
		return leader;
	syscall(__NR_setpgid, 0, 0);
	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, 0);
	if ((member = fork()) == 0) {
		_exit(write(ready[1], "r", 1) == 1 ? await_hit() : 1);
	}
	if (by_leader && (read(ready[0], &c, 1) != 1 || lsig_kill(0, LSIGUSR1) != 0))
		_exit(1);
	status = await_hit();
	_exit(waitpid(member, &status, 0) == member && exited_with(status, 0) ? status : 1);
}

static void test_groups(void)
{
	int ready[2], status;
	pid_t leader;
	char c;

	require(pipe(ready) == 0, "pipe");
	leader = group_of_two(ready, true);
	ok(waitpid(leader, &status, 0) == leader && exited_with(status, 0),
	   "kill(0, sig) reaches the sender's group, itself included");
	hits = 0;
	lsig_handle(LSIGUSR1, count_handler, 0);
	leader = group_of_two(ready, false);
	require(read(ready[0], &c, 1) == 1, "group ready");
	is_int(lsig_kill(-leader, LSIGUSR1), 0, "kill(-pgid, sig) succeeds");
	ok(waitpid(leader, &status, 0) == leader && exited_with(status, 0) && hits == 0,
	   "it reaches both members and not the sender outside the group");
	close(ready[0]);
	close(ready[1]);
}

static void test_broadcast(void)
{
	pid_t child;
	int status;

	is_int(lsig_kill(-1, 0), 0, "kill(-1, 0) finds processes");
	if (!on_fdkernel()) {
		skip("would signal every process of the host user", "kill(-1, SIGURG)");
		skip("would signal every process of the host user", "kill(-1, ...) spares caller");
		return;
	}
	hits = 0;
	lsig_handle(LSIGURG, count_handler, 0);
	fflush(stdout);
	if ((child = fork()) == 0)
		_exit(await_hit());
	sleep_ms(50);
	is_int(lsig_kill(-1, LSIGURG), 0, "kill(-1, SIGURG) succeeds");
	sleep_ms(50);
	ok(waitpid(child, &status, 0) == child && exited_with(status, 0) && hits == 0,
	   "it reaches another process, not the sender");
	lsig_action(LSIGURG, UAPI_SIG_DFL, 0, 0);
}

static struct lsiginfo chld_info;

static void chld_handler(int sig, struct lsiginfo *info, void *uc)
{
	(void)sig, (void)uc;
	chld_info = *info;
	hits++;
}

static void test_sigchld(void)
{
	pid_t child;

	hits = 0;
	lsig_handle_info(LSIGCHLD, chld_handler, UAPI_SA_RESTART);
	fflush(stdout);
	if ((child = fork()) == 0)
		_exit(3);
	waitpid(child, NULL, 0);
	diag("SIGCHLD si_code %d si_pid %d (child %d)", chld_info.si_code, chld_info.kill.pid,
	     (int)child);
	ok(hits == 1 && chld_info.si_signo == LSIGCHLD,
	   "SIGCHLD handler runs once when a child exits");
	lsig_action(LSIGCHLD, UAPI_SIG_DFL, 0, 0);
}

/* Writes to a pipe whose read end is closed: true on EPIPE. */
static bool write_gets_epipe(void)
{
	int fds[2];

	if (pipe(fds) < 0)
		return false;
	close(fds[0]);
	return write(fds[1], "x", 1) < 0 && errno == EPIPE;
}

static void write_to_closed_pipe(void)
{
	_exit(write_gets_epipe() ? 0 : 1);
}

static void ignore_then_write(void)
{
	lsig_action(LSIGPIPE, UAPI_SIG_IGN, 0, 0);
	write_to_closed_pipe();
}

static void handle_then_write(void)
{
	hits = 0;
	lsig_handle(LSIGPIPE, count_handler, 0);
	_exit(write_gets_epipe() && hits == 1 ? 0 : 1);
}

static void test_sigpipe(void)
{
	ok(killed_by(child_status(write_to_closed_pipe), SIGPIPE),
	   "a write to a pipe with no reader: killed by SIGPIPE");
	ok(exited_with(child_status(ignore_then_write), 0), "with SIGPIPE ignored: EPIPE");
	ok(exited_with(child_status(handle_then_write), 0), "with a handler: EPIPE after it");
}

int main(void)
{
	plan(17);
	test_errors();
	test_groups();
	test_broadcast();
	test_sigchld();
	test_sigpipe();
	return done();
}
