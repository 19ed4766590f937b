/* syscall_indirect(SYSIND_ASYNC | SYSIND_SIGMASK): the mask applies to
 * the call while it runs on its worker, as to the synchronous call.  A
 * handled signal to the process that the mask blocks leaves a blocking
 * read waiting (its record then has the bytes); one the mask leaves
 * unblocked ends it with EINTR, and still reaches the handler; an
 * ignored signal (SIG_IGN, or default-ignored) never ends it.  On
 * fdkernel too: a signal to the submitting thread (tgkill) ends it, one
 * to another thread does not.  On Linux the stand-in's thread runs the
 * read with the mask as its blocked set (ind_async.h): the same results,
 * Linux's. */
#define _GNU_SOURCE
#include "ind_async.h"

#include <string.h>
#include <sys/syscall.h>

#include "testutil.h"

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

static uint64_t bit(int sig)
{
	return 1ULL << (sig - 1);
}

/* Sends sig (to the process, or with tid to that thread) every 10 ms
 * until a record waits in q, at most n times: whether one came.  The
 * call may not have reached its worker at the first sends: a call the
 * signal ends is ended by a later one. */
static bool signal_until_record(int q, int sig, pid_t tid, int n)
{
	for (int i = 0; i < n; i++) {
		if (tid)
			syscall(SYS_tgkill, getpid(), tid, sig);
		else
			kill(getpid(), sig);
		if (readable(q, 10))
			return true;
	}
	return false;
}

/* An async read of an empty pipe with mask; sig sent n times; then a
 * byte written: the record's result. */
static long read_signalled(int q, uint64_t mask, int sig, pid_t tid, int n, bool *early)
{
	int p[2];
	char b[4];
	long tok;
	struct sysind_completion c;

	require(!pipe(p), "a pipe");
	tok = ASYNC_MASKED(mask, q, SYS_read, (unsigned long)p[0], (unsigned long)b, sizeof(b));
	require(tok > 0, "an async read with a mask");
	*early = signal_until_record(q, sig, tid, n);
	require(write(p[1], "x", 1) == 1, "a byte");
	c = next_rec(q);
	close(p[0]);
	close(p[1]);
	return (long)c.token == tok ? c.result : -99997;
}

static int tid_pipe[2];

/* A thread that blocks nothing: tells its tid, then sleeps until the
 * process ends. */
static void *sleeper(void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	require(write(tid_pipe[1], &tid, sizeof(tid)) == sizeof(tid), "the tid");
	for (;;)
		pause();
	return arg;
}

int main(void)
{
	struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART */
	sigset_t usr1;
	bool early;
	int q;

	plan(on_fdkernel() ? 11 : 7);
	q = async_queue(O_CLOEXEC);
	require(q >= 0, "a queue");
	require(!sigaction(SIGUSR1, &sa, NULL), "a SIGUSR1 handler");

	is_int(read_signalled(q, bit(SIGUSR1), SIGUSR1, 0, 20, &early), 1,
	       "a mask blocking SIGUSR1: the read gets its byte");
	ok(!early && handled > 0, "20 SIGUSR1s did not end it; the handler ran (%d)", (int)handled);

	/* The caller blocks it, so that on Linux it lands on the call's
	 * thread, and takes it once the call is over. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	handled = 0;
	is_int(read_signalled(q, bit(SIGUSR2), SIGUSR1, 0, 3000, &early), -EINTR,
	       "a mask leaving SIGUSR1 unblocked: the read ends with EINTR");
	ok(early, "before the byte came");
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	ok(handled > 0, "the signal still reached the handler");

	signal(SIGUSR2, SIG_IGN);
	is_int(read_signalled(q, 0, SIGUSR2, 0, 20, &early), 1,
	       "an ignored SIGUSR2, unblocked: no EINTR, the byte");
	is_int(read_signalled(q, 0, SIGWINCH, 0, 20, &early), 1,
	       "a default-ignored SIGWINCH: no EINTR, the byte");

	if (on_fdkernel()) { /* thread-directed: the stand-in is another thread */
		pthread_t other;
		pid_t me = (pid_t)syscall(SYS_gettid);

		handled = 0;
		is_int(read_signalled(q, 0, SIGUSR1, me, 3000, &early), -EINTR,
		       "SIGUSR1 to the submitting thread: EINTR");
		ok(early && handled > 0, "before the byte; the handler ran");
		/* A thread that blocks nothing takes SIGUSR1 sent to it; it
		 * is not the submitter: the call goes on. */
		pid_t tid;
		require(!pipe(tid_pipe) && !pthread_create(&other, NULL, sleeper, NULL) &&
			    read(tid_pipe[0], &tid, sizeof(tid)) == sizeof(tid),
			"a thread and its tid");
		is_int(read_signalled(q, 0, SIGUSR1, tid, 20, &early), 1,
		       "SIGUSR1 to another thread: no EINTR, the byte");
		ok(!early, "no record before the byte");
	}
	close(q);
	return done();
}
