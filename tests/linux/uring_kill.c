/* SIGKILL ends a process whose thread waits for what its io_uring
 * worker holds: a SPLICE from an empty socket into a pipe runs on a
 * worker, which holds the pipe while it waits for the socket; a write
 * to that pipe then waits for the worker.  Linux's workers are threads
 * of the process and take its SIGKILL, which ends their wait and lets
 * the writer go and die; fdkernel's must be interrupted the same way,
 * or the process never ends (the fuzzer found it).  The same with an
 * SQPOLL ring, whose SQ thread submits the SPLICE to workers of its own
 * (Linux's SQ thread is a thread of the process too), and with the
 * process ending by another thread's exit_group instead of SIGKILL. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_raw.h"

#define KILL_PATIENCE_MS 20000 /* a bound for a hang, not a speed */

/* The SPLICE published and handed to the ring (an SQPOLL ring's thread
 * woken, and waited for until it took the SQE): false on failure. */
static bool submit(struct uring *r, bool sqpoll)
{
	if (!sqpoll)
		return uring_submit_wait(r, 0) == 1;
	__atomic_store_n(r->sq_tail, r->sq_local, __ATOMIC_SEQ_CST);
	if (uring_enter_raw(r->fd, 1, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0) < 0)
		return false;
	for (int ms = 0; ms < KILL_PATIENCE_MS; ms += 10) {
		if (__atomic_load_n(r->sq_head, __ATOMIC_ACQUIRE) == r->sq_local)
			return true;
		sleep_ms(10);
	}
	return false;
}

enum end { BY_KILL, BY_KILL_SQPOLL, BY_EXIT };
static const char *const ends[] = {"a ring, SIGKILL", "an SQPOLL ring, SIGKILL",
				   "a ring, another thread's exit_group"};

/* The writer: the SPLICE submitted, then "ready" on up, then a write to
 * the pipe the SPLICE fills (it may wait for the worker), then pause. */
static void writer(int up, bool sqpoll)
{
	struct uring r;
	struct io_uring_sqe *s;
	int sv[2], p[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(p) ||
	    uring_init(&r, 4, sqpoll ? IORING_SETUP_SQPOLL : 0))
		_exit(2);
	s = uring_prep(&r, IORING_OP_SPLICE, p[1], 0, 16, (uint64_t)-1, 1);
	s->splice_off_in = (uint64_t)-1;
	s->splice_fd_in = sv[0];
	s->flags |= IOSQE_ASYNC;
	if (!submit(&r, sqpoll))
		_exit(3);
	sleep_ms(100); /* its worker waits for the socket, the pipe held */
	if (write(up, "r", 1) != 1)
		_exit(4);
	(void)!write(p[1], "x", 1);
	for (;;)
		pause();
}

static int thread_up;

static void *writer_thread(void *arg)
{
	(void)arg;
	writer(thread_up, false);
	return NULL;
}

/* The child: the writer itself, or (BY_EXIT) a thread of it, whose ready
 * the main thread passes on before it calls exit_group. */
static void child(int up, enum end how)
{
	int mine[2];
	pthread_t t;
	char c;

	if (how != BY_EXIT)
		writer(up, how == BY_KILL_SQPOLL);
	if (pipe(mine))
		_exit(5);
	thread_up = mine[1];
	if (pthread_create(&t, NULL, writer_thread, NULL) || read(mine[0], &c, 1) != 1 ||
	    write(up, &c, 1) != 1)
		_exit(6);
	sleep_ms(100); /* its write waits for the pipe */
	_exit(0);
}

static void check_end(enum end how)
{
	int up[2], status = 0;
	char c;
	pid_t pid, got = 0;

	require(!pipe(up), "a pipe");
	if ((pid = fork()) == 0) {
		close(up[0]);
		child(up[1], how);
	}
	close(up[1]);
	ok(read(up[0], &c, 1) == 1, "%s: the child's SPLICE waits on its worker", ends[how]);
	close(up[0]);
	if (how != BY_EXIT) {
		sleep_ms(100); /* its write waits for the pipe */
		kill(pid, SIGKILL);
	}
	for (int ms = 0; ms < KILL_PATIENCE_MS && !(got = waitpid(pid, &status, WNOHANG)); ms += 10)
		sleep_ms(10);
	if (how == BY_EXIT)
		ok(got == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "%s: it ends (status %#x)", ends[how], status);
	else
		ok(got == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		   "%s: it ends (status %#x)", ends[how], status);
	if (!got)
		kill(pid, SIGKILL);
}

int main(void)
{
	plan(6);
	check_end(BY_KILL);
	check_end(BY_KILL_SQPOLL);
	check_end(BY_EXIT);
	return done();
}
