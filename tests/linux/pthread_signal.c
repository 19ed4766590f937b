/* Signals and threads through musl: pthread_kill reaches the chosen thread
 * (tgkill), each thread has its own mask, a process-directed signal goes to
 * a thread that does not block it, and sigwait takes a blocked signal. */
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>

#include "threads.h"

static volatile pid_t handled_by;
static volatile int handled;
static volatile int stop;
static pid_t worker_tid;

static void on_signal(int sig)
{
	(void)sig;
	handled_by = gettid();
	handled++;
}

/* Runs with SIGUSR1 and SIGUSR2 unblocked until told to stop. */
static void *worker(void *arg)
{
	sigset_t set;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	__atomic_store_n(&worker_tid, gettid(), __ATOMIC_SEQ_CST);
	while (!stop)
		usleep(1000);
	return NULL;
}

static void *waiter(void *arg)
{
	int sig = 0;

	sigwait(arg, &sig);
	return (void *)(long)sig;
}

static void wait_handled(int n)
{
	WAIT_UNTIL(handled >= n);
}

int main(void)
{
	sigset_t set, old;
	void *ret;

	plan(7);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, &old); /* threads inherit the mask */
	pthread_t t = start_thread(worker, NULL);
	while (!__atomic_load_n(&worker_tid, __ATOMIC_SEQ_CST))
		usleep(1000);

	is_int(pthread_kill(t, SIGUSR1), 0, "pthread_kill");
	wait_handled(1);
	ok(handled == 1 && handled_by == worker_tid, "the handler ran in the target thread");
	kill(getpid(), SIGUSR2);
	wait_handled(2);
	ok(handled == 2 && handled_by == worker_tid,
	   "a process-directed signal goes to the one thread not blocking it");
	sigset_t pending;
	sigpending(&pending);
	ok(!sigismember(&pending, SIGUSR2), "and is not left pending for the main thread");
	stop = 1;
	pthread_join(t, NULL);

	is_int(pthread_kill(pthread_self(), 0), 0, "pthread_kill with signal 0 checks the thread");
	t = start_thread(waiter, &set);
	usleep(20000);
	pthread_kill(t, SIGUSR2);
	ok(pthread_join(t, &ret) == 0 && (long)ret == SIGUSR2 && handled == 2,
	   "sigwait in a thread takes a blocked SIGUSR2, no handler runs");
	is_int(pthread_sigmask(12345, &set, NULL), EINVAL,
	       "pthread_sigmask with a bad how: EINVAL");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return done();
}
