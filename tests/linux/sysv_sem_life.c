/* System V semaphores across processes: an operation that waits and the
 * one that lets it go, GETNCNT/GETZCNT while it waits, removal and a signal
 * under a waiter, and SEM_UNDO: applied when the last process sharing the
 * list exits (clamped to [0, SEMVMX], waking waiters), kept across exec and
 * thread exit, not inherited by fork, applied by unshare(CLONE_SYSVSEM),
 * dropped with the set.  No timing: each wait is for a condition. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>

#include "testutil.h"

static const char *self;

static int op(int id, unsigned short num, short delta, short flags)
{
	struct sembuf sb = {num, delta, flags};

	return semop(id, &sb, 1);
}

static int val(int id, int num)
{
	return semctl(id, num, GETVAL);
}

static int setval(int id, int num, int v)
{
	return semctl(id, num, SETVAL, v);
}

static int wait_child(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Until semctl(id, 0, cmd) reaches n (a waiter got queued), at most 20 s. */
static bool wait_for_count(int id, int cmd, int n)
{
	for (int i = 0; i < 20000; i++) {
		if (semctl(id, 0, cmd) == n)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* A child that runs one semop and exits with 0, or 10 + its errno. */
static pid_t semop_child(int id, short delta)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(op(id, 0, delta, 0) == 0 ? 0 : 10 + errno);
	return pid;
}

static void test_wait_and_wake(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t down = semop_child(id, -2), zero;

	ok(wait_for_count(id, GETNCNT, 1), "a child waiting to take 2: GETNCNT 1");
	ok(op(id, 0, 1, 0) == 0 && semctl(id, 0, GETNCNT) == 1 && val(id, 0) == 1,
	   "adding 1 is not enough: it still waits");
	ok(op(id, 0, 1, 0) == 0 && wait_child(down) == 0, "adding another lets it go");
	ok(val(id, 0) == 0 && semctl(id, 0, GETNCNT) == 0 && semctl(id, 0, GETPID) == down,
	   "it took them: value 0, no waiter, its pid last");
	setval(id, 0, 1);
	zero = semop_child(id, 0);
	ok(wait_for_count(id, GETZCNT, 1), "a child waiting for zero: GETZCNT 1");
	ok(op(id, 0, -1, 0) == 0 && wait_child(zero) == 0, "reaching zero wakes it");
	semctl(id, 0, IPC_RMID);
}

static void test_rmid_waiter(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid = semop_child(id, -1);

	ok(wait_for_count(id, GETNCNT, 1), "a waiter");
	ok(semctl(id, 0, IPC_RMID) == 0 && wait_child(pid) == 10 + EIDRM,
	   "removing the set fails its semop with EIDRM");
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A signal ends a wait with EINTR, SA_RESTART or not: semop is never
 * restarted. */
static void test_signal(bool restart)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		struct sigaction sa = {.sa_handler = on_usr1, .sa_flags = restart ? SA_RESTART : 0};
		sigaction(SIGUSR1, &sa, NULL);
		_exit(op(id, 0, -1, 0) == 0 ? 0 : 10 + errno);
	}
	ok(wait_for_count(id, GETNCNT, 1) && kill(pid, SIGUSR1) == 0 &&
	       wait_child(pid) == 10 + EINTR,
	   restart ? "a signal with SA_RESTART: EINTR" : "a signal: EINTR");
	is_int(semctl(id, 0, GETNCNT), 0, "and it no longer waits");
	semctl(id, 0, IPC_RMID);
}

/* Undo at exit: what the child did with SEM_UNDO is taken back. */
static void test_undo_exit(void)
{
	int id = semget(IPC_PRIVATE, 2, 0600);
	pid_t pid;

	setval(id, 0, 5);
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(op(id, 0, -2, SEM_UNDO) || op(id, 0, 1, 0) || op(id, 1, 3, SEM_UNDO) ? 1 : 0);
	ok(wait_child(pid) == 0 && val(id, 0) == 6 && val(id, 1) == 0,
	   "exit takes back the undoable operations only");
	is_int(semctl(id, 0, GETPID), pid, "the undo is the exiting process's operation");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(op(id, 1, 10, SEM_UNDO) ? 1 : 0);
	ok(wait_child(pid) == 0 && val(id, 1) == 0, "a child's +10 is taken back at its exit");
	semctl(id, 0, IPC_RMID);
}

/* Clamping and waking: the undo would go below 0 (clamped), and reaching
 * zero through an undo wakes a zero-waiter. */
static void test_undo_clamp(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600), p[2];
	pid_t holder, waiter;
	char c;

	if (pipe(p))
		return;
	fflush(stdout);
	if ((holder = fork()) == 0) {
		close(p[1]);
		if (op(id, 0, 10, SEM_UNDO))
			_exit(1);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	while (val(id, 0) != 10)
		sleep_ms(1);
	waiter = semop_child(id, 0);
	ok(wait_for_count(id, GETZCNT, 1) && op(id, 0, -8, 0) == 0, "a zero-waiter; 8 taken");
	if (write(p[1], "x", 1) != 1) /* the holder exits: 2 - 10 clamps to 0 */
		diag("write to the holder failed");
	close(p[1]);
	ok(wait_child(holder) == 0 && val(id, 0) == 0, "the undo is clamped at 0");
	is_int(wait_child(waiter), 0, "and reaching zero woke the waiter");
	semctl(id, 0, IPC_RMID);
}

static int thread_sem;

static void *undo_thread(void *arg)
{
	(void)arg;
	return (void *)(long)op(thread_sem, 0, 1, SEM_UNDO);
}

/* Threads share the process's undo list: a thread's exit applies nothing,
 * the process's exit applies it.  A fork child has no undo list: its exit
 * applies nothing of its parent's. */
static void test_undo_sharing(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid;

	thread_sem = id;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		pthread_t t;
		void *r;
		pid_t grandchild;
		if (pthread_create(&t, NULL, undo_thread, NULL) || pthread_join(t, &r) || r)
			_exit(1);
		if (val(id, 0) != 1)
			_exit(2); /* the thread's exit undid it */
		if ((grandchild = fork()) == 0)
			_exit(0);
		if (wait_child(grandchild) != 0 || val(id, 0) != 1)
			_exit(3); /* the fork child undid it */
		_exit(0);
	}
	is_int(wait_child(pid), 0, "a thread's exit and a fork child's keep the process's undo");
	is_int(val(id, 0), 0, "the process's exit applies it");
	semctl(id, 0, IPC_RMID);
}

/* exec keeps the undo list; the exec'd program's exit applies it. */
static void test_undo_exec(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	char arg[32];
	pid_t pid;

	snprintf(arg, sizeof arg, "%d", id);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (op(id, 0, 3, SEM_UNDO))
			_exit(100);
		execl(self, self, "--getval", arg, (char *)NULL);
		_exit(101);
	}
	is_int(wait_child(pid), 3, "after exec the value is still 3");
	is_int(val(id, 0), 0, "the exec'd program's exit applied the undo");
	semctl(id, 0, IPC_RMID);
}

/* unshare(CLONE_SYSVSEM) leaves the undo list as exit does. */
static void test_undo_unshare(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600);
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (op(id, 0, 4, SEM_UNDO) || val(id, 0) != 4)
			_exit(1);
		if (unshare(CLONE_SYSVSEM) || val(id, 0) != 0)
			_exit(2);
		if (op(id, 0, 2, 0))
			_exit(3);
		_exit(0);
	}
	is_int(wait_child(pid), 0, "unshare(CLONE_SYSVSEM) applied the undo at once");
	is_int(val(id, 0), 2, "and the later plain operation stays");
	semctl(id, 0, IPC_RMID);
}

/* A set removed while a process holds an undo for it: the undo goes with
 * the set, and the process's exit applies nothing anywhere. */
static void test_undo_rmid(void)
{
	int id = semget(IPC_PRIVATE, 1, 0600), other = semget(IPC_PRIVATE, 1, 0600), p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		close(p[1]);
		if (op(id, 0, 1, SEM_UNDO) || op(other, 0, 1, SEM_UNDO))
			_exit(1);
		_exit(read(p[0], &c, 1) < 0 ? 2 : 0);
	}
	close(p[0]);
	while (val(other, 0) != 1)
		sleep_ms(1);
	ok(semctl(id, 0, IPC_RMID) == 0, "the set removed under a holder of its undo");
	close(p[1]);
	ok(wait_child(pid) == 0 && val(other, 0) == 0, "its exit still applies its other undo");
	semctl(other, 0, IPC_RMID);
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 3 && !strcmp(argv[1], "--getval"))
		return val(atoi(argv[2]), 0);
	plan(26);
	test_wait_and_wake();
	test_rmid_waiter();
	test_signal(false);
	test_signal(true);
	test_undo_exit();
	test_undo_clamp();
	test_undo_sharing();
	test_undo_exec();
	test_undo_unshare();
	test_undo_rmid();
	return done();
}
