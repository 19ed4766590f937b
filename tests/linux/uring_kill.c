/* SIGKILL ends a process whose thread waits for what its io_uring
 * worker holds: a SPLICE from an empty socket into a pipe runs on a
 * worker, which holds the pipe while it waits for the socket; a write
 * to that pipe then waits for the worker.  Linux's workers are threads
 * of the process and take its SIGKILL, which ends their wait and lets
 * the writer go and die; fdkernel's must be interrupted the same way,
 * or the process never ends (the fuzzer found it). */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "testutil.h"
#include "uring_raw.h"

#define KILL_PATIENCE_MS 20000 /* a bound for a hang, not a speed */

/* The child: the SPLICE submitted, then "ready" on up, then a write to
 * the pipe the SPLICE fills (it may wait for the worker), then pause. */
static void child(int up)
{
	struct uring r;
	struct io_uring_sqe *s;
	int sv[2], p[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(p) || uring_init(&r, 4, 0))
		_exit(2);
	s = uring_prep(&r, IORING_OP_SPLICE, p[1], 0, 16, (uint64_t)-1, 1);
	s->splice_off_in = (uint64_t)-1;
	s->splice_fd_in = sv[0];
	s->flags |= IOSQE_ASYNC;
	if (uring_submit_wait(&r, 0) != 1)
		_exit(3);
	sleep_ms(100); /* its worker waits for the socket, the pipe held */
	if (write(up, "r", 1) != 1)
		_exit(4);
	(void)!write(p[1], "x", 1);
	for (;;)
		pause();
}

int main(void)
{
	int up[2], status = 0;
	char c;
	pid_t pid, got = 0;

	plan(2);
	require(!pipe(up), "a pipe");
	if ((pid = fork()) == 0) {
		close(up[0]);
		child(up[1]);
	}
	close(up[1]);
	ok(read(up[0], &c, 1) == 1, "the child's SPLICE waits on its worker");
	sleep_ms(100); /* its write waits for the pipe */
	kill(pid, SIGKILL);
	for (int ms = 0; ms < KILL_PATIENCE_MS && !(got = waitpid(pid, &status, WNOHANG)); ms += 10)
		sleep_ms(10);
	ok(got == pid && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "SIGKILL ends it (status %#x)", status);
	return done();
}
