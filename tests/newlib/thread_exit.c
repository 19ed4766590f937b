/* How threads end: exit ends one thread, exit_group and fatal signals the
 * whole process; a leader that exits first stays until the last thread
 * goes, whose exit code is the process's (Linux); wait sees processes, never
 * threads, and any thread may wait for the process's children. */
#include <errno.h>
#include <fdkernel.h>
#include <signal.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"
#include "sock_util.h"
#include "thread.h"

static int pipe_a[2], pipe_b[2];
static struct thread thr[3];

static void nap_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};

	thread_sys(__NR_nanosleep, &ts, NULL, 0);
}

static int exit_group_7(void *arg)
{
	(void)arg;
	nap_ms(20);
	thread_sys(__NR_exit_group, 7, 0, 0);
	return 1;
}

static void child_exit_group_from_thread(void)
{
	require(thread_start(&thr[0], exit_group_7, NULL) > 0, "thread_start");
	for (;;)
		pause();
}

/* The leader exits with 3; this thread reports the pid it still sees,
 * waits for the parent's go, then exits with 5. */
static int outlive_leader(void *arg)
{
	int pid = (int)thread_sys(__NR_getpid, 0, 0, 0);
	char go;

	(void)arg;
	nap_ms(50);
	thread_sys(__NR_write, pipe_a[1], &pid, sizeof pid);
	thread_sys(__NR_read, pipe_b[0], &go, 1);
	return 5;
}

static void child_leader_exits_first(void)
{
	require(thread_start(&thr[0], outlive_leader, NULL) > 0, "thread_start");
	thread_sys(__NR_exit, 3, 0, 0);
}

static void test_leader_first(void)
{
	int seen = 0, status = -1;
	pid_t pid;

	require(pipe(pipe_a) == 0 && pipe(pipe_b) == 0, "pipes");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		child_leader_exits_first();
		_exit(99);
	}
	read(pipe_a[0], &seen, sizeof seen);
	is_int(seen, pid, "after its leader exited, a thread still sees the process's pid");
	is_int(waitpid(pid, &status, WNOHANG), 0,
	       "the parent's WNOHANG wait reports nothing while a thread lives");
	is_int(kill(pid, 0), 0, "kill(pid, 0) finds the process of a zombie leader");
	write(pipe_b[1], "g", 1);
	is_int(waitpid(pid, &status, 0), pid, "the parent reaps it once the last thread exits");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 5,
	   "its status is the last thread's exit(5), not the leader's exit(3) (%#x)", status);
	for (int i = 0; i < 2; i++)
		close(pipe_a[i]), close(pipe_b[i]);
}

static volatile int *volatile unmapped; /* NULL, hidden from the compiler */

static int fault(void *arg)
{
	(void)arg;
	nap_ms(20);
	*unmapped = 1;
	return 0;
}

static void child_fault_in_thread(void)
{
	require(thread_start(&thr[0], fault, NULL) > 0, "thread_start");
	for (;;)
		pause();
}

static int spin(void *arg)
{
	(void)arg;
	for (;;)
		thread_sys(__NR_sched_yield, 0, 0, 0);
	return 0;
}

static int block_in_read(void *arg)
{
	char c;

	(void)arg;
	thread_sys(__NR_read, pipe_a[0], &c, 1);
	return 0;
}

static int block_in_accept(void *arg)
{
	thread_sys(__NR_accept, (long)arg, 0, 0);
	return 0;
}

static void child_exit_group_while_reading(void)
{
	struct saddr a;
	int listener = sock_server(AF_INET, SOCK_STREAM, "thr", &a);

	require(pipe(pipe_a) == 0 && listener >= 0, "pipe, listener");
	require(thread_start(&thr[0], block_in_read, NULL) > 0, "thread_start");
	require(thread_start(&thr[1], block_in_read, NULL) > 0, "thread_start");
	require(thread_start(&thr[2], block_in_accept, (void *)(long)listener) > 0, "thread_start");
	sleep_ms(30);
	thread_sys(__NR_exit_group, 9, 0, 0);
}

/* The leader exits; a signal to the process then finds its live thread. */
static void child_signal_after_leader(void)
{
	require(thread_start(&thr[0], spin, NULL) > 0, "thread_start");
	thread_sys(__NR_exit, 0, 0, 0);
}

static void test_signal_zombie_leader(void)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		child_signal_after_leader();
	sleep_ms(50);
	is_int(kill(pid, SIGTERM), 0, "kill(SIGTERM) to a process whose leader is a zombie");
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	   "its live thread takes it and the process dies of it (%#x)", status);
}

static void test_sigkill(void)
{
	int status = -1;
	char c;
	pid_t pid;

	require(pipe(pipe_a) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		for (int i = 0; i < 3; i++)
			require(thread_start(&thr[i], spin, NULL) > 0, "thread_start");
		write(pipe_a[1], "r", 1);
		for (;;)
			pause();
	}
	read(pipe_a[0], &c, 1);
	kill(pid, SIGKILL);
	is_int(waitpid(pid, &status, 0), pid, "the parent reaps the killed process");
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "SIGKILL to a process of 4 threads ends them all (%#x)", status);
	close(pipe_a[0]);
	close(pipe_a[1]);
}

/* A thread reaps the child its process's main thread forked. */
static long reaped_pid;
static int reaped_status;

static int reap_any(void *arg)
{
	(void)arg;
	reaped_pid = thread_sys6(__NR_wait4, -1, (long)&reaped_status, 0, 0, 0, 0);
	return 0;
}

static void test_wait_sees_processes(void)
{
	struct thread t;
	pid_t child;
	long tid;

	require(pipe(pipe_a) == 0, "pipe");
	tid = thread_start(&t, block_in_read, NULL);
	require(tid > 0, "thread_start");
	is_errno(waitpid(-1, NULL, WNOHANG), ECHILD, "a thread is no child: wait(-1) gives ECHILD");
	is_errno(waitpid((pid_t)tid, NULL, WNOHANG), ECHILD, "waitpid(tid of a thread): ECHILD");
	write(pipe_a[1], "x", 1); /* the thread's read returns */
	thread_join(&t);
	fflush(stdout);
	if ((child = fork()) == 0)
		_exit(4);
	require(thread_start(&t, reap_any, NULL) > 0, "thread_start");
	thread_join(&t);
	ok(reaped_pid == child && WIFEXITED(reaped_status) && WEXITSTATUS(reaped_status) == 4,
	   "another thread reaps the child the main thread forked (status %#x)", reaped_status);
	close(pipe_a[0]);
	close(pipe_a[1]);
}

int main(void)
{
	int status;

	plan(15);
	status = child_status(child_exit_group_from_thread);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 7,
	   "exit_group(7) in a thread ends the process with 7 (%#x)", status);
	test_leader_first();
	status = child_status(child_fault_in_thread);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
	   "a fault in a thread kills the whole process with SIGSEGV (%#x)", status);
	status = child_status(child_exit_group_while_reading);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 9,
	   "exit_group(9) ends threads blocked in read and accept (%#x)", status);
	test_signal_zombie_leader();
	test_sigkill();
	test_wait_sees_processes();
	return done();
}
