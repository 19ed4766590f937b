/* Signals and threads: each thread has its own mask; a process-directed
 * signal (kill) goes to a thread that does not block it, a thread-directed
 * one (tgkill) to that thread only; sigpending shows a thread's own and the
 * process's; handlers are shared; a fatal signal kills every thread. */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

static volatile long handled_tid; /* the thread a handler ran in */
static volatile int stop, ready;
static volatile uint64_t thread_pending;
static volatile int sample_asked, sample_taken; /* see waiter_pending */

static void record(int sig)
{
	(void)sig;
	handled_tid = thread_sys(__NR_gettid, 0, 0, 0);
}

static void thread_mask(int how, uint64_t set)
{
	thread_sys6(__NR_rt_sigprocmask, how, (long)&set, 0, 8, 0, 0);
}

/* Sleeps in short naps until told to stop, with `arg` as its blocked set;
 * when asked (sample_asked moves), samples its sigpending into
 * thread_pending and says so (sample_taken). */
static int waiter(void *arg)
{
	thread_mask(UAPI_SIG_SETMASK, (uint64_t)(uintptr_t)arg);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		int asked = __atomic_load_n(&sample_asked, __ATOMIC_ACQUIRE);

		if (asked != sample_taken) {
			uint64_t set = 0;

			thread_sys(__NR_rt_sigpending, &set, 8, 0);
			thread_pending = set;
			__atomic_store_n(&sample_taken, asked, __ATOMIC_RELEASE);
		}
		struct timespec ts = {0, 1000000};
		thread_sys(__NR_nanosleep, &ts, NULL, 0);
	}
	return 0;
}

/* The waiter's pending set, sampled after this call began: no fixed sleep,
 * so a slow host only makes it wait longer (runtests' limit ends a hang). */
static uint64_t waiter_pending(void)
{
	int asked = __atomic_add_fetch(&sample_asked, 1, __ATOMIC_ACQ_REL);

	while (__atomic_load_n(&sample_taken, __ATOMIC_ACQUIRE) != asked)
		sleep_ms(1);
	return thread_pending;
}

static long start_waiter(struct thread *t, uint64_t blocked)
{
	long tid;

	ready = stop = 0;
	tid = thread_start(t, waiter, (void *)(uintptr_t)blocked);
	require(tid > 0, "thread_start");
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		thread_sys(__NR_sched_yield, 0, 0, 0);
	return tid;
}

static void stop_waiter(struct thread *t)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	thread_join(t);
}

/* Until a handler ran: a signal never handled is a hang, which runtests'
 * time limit reports (a short deadline would fail on a loaded host). */
static void wait_handled(void)
{
	while (!handled_tid)
		sleep_ms(5);
}

/* kill() while the main thread blocks SIGUSR1: the other thread takes it. */
static void test_process_directed(void)
{
	struct thread t;
	long tid;

	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR1), NULL);
	tid = start_waiter(&t, 0);
	handled_tid = 0;
	lsig_kill(getpid(), LSIGUSR1);
	wait_handled();
	is_int(handled_tid, tid, "kill() is handled by the thread that does not block it");
	stop_waiter(&t);
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR1), NULL);
}

/* tgkill to a thread that blocks the signal: pending there only. */
static void test_thread_directed(void)
{
	struct thread t;
	long tid = start_waiter(&t, LBIT(LSIGUSR2));

	handled_tid = 0;
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR2), NULL);
	is_int(syscall(__NR_tgkill, getpid(), tid, LSIGUSR2), 0, "tgkill(pid, tid, SIGUSR2)");
	ok(waiter_pending() & LBIT(LSIGUSR2), "the target thread sees SIGUSR2 pending");
	ok(!(lsig_pending() & LBIT(LSIGUSR2)), "the main thread does not");
	is_int(handled_tid, 0, "nobody handled it: the main thread blocks it too");
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR2), NULL);
	sleep_ms(10);
	is_int(handled_tid, 0, "unblocking it in the main thread does not take it");
	stop_waiter(&t); /* the thread exits with it still pending: dropped */
}

/* kill() while every thread blocks it: pending for the process, seen by
 * all; the first thread to unblock it takes it. */
static void test_all_blocked(void)
{
	struct thread t;

	handled_tid = 0;
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR1), NULL);
	start_waiter(&t, LBIT(LSIGUSR1));
	lsig_kill(getpid(), LSIGUSR1);
	ok(waiter_pending() & LBIT(LSIGUSR1), "a process-directed signal is pending in the thread");
	ok(lsig_pending() & LBIT(LSIGUSR1), "... and in the main thread");
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR1), NULL);
	is_int(handled_tid, getpid(), "the main thread takes it as it unblocks it");
	ok(!(waiter_pending() & LBIT(LSIGUSR1)), "then it is pending nowhere");
	stop_waiter(&t);
}

static int set_ignore(void *arg)
{
	struct uapi_sigaction act = {UAPI_SIG_IGN, 0, 0, 0};

	(void)arg;
	return (int)-thread_sys6(__NR_rt_sigaction, LSIGUSR2, (long)&act, 0, 8, 0, 0);
}

static void test_shared_handlers(void)
{
	struct uapi_sigaction old;
	struct thread t;

	require(thread_start(&t, set_ignore, NULL) > 0, "thread_start");
	thread_join(&t);
	syscall(__NR_rt_sigaction, LSIGUSR2, NULL, &old, 8);
	is_int((long)old.handler, UAPI_SIG_IGN, "a thread's sigaction(SIG_IGN) is the process's");
	lsig_handle(LSIGUSR2, record, 0);
}

static int self_term(void *arg)
{
	(void)arg;
	thread_sys(__NR_tkill, thread_sys(__NR_gettid, 0, 0, 0), LSIGTERM, 0);
	return 0;
}

static void child_thread_raises_sigterm(void)
{
	struct thread t;

	require(thread_start(&t, self_term, NULL) > 0, "thread_start");
	for (;;)
		pause();
}

static int sleeper(void *arg)
{
	(void)arg;
	for (;;)
		thread_sys(__NR_pause, 0, 0, 0);
	return 0;
}

/* tgkill(SIGKILL) to one thread kills the whole process. */
static void child_main_killed_by_thread(void)
{
	struct thread t;
	long tid = thread_start(&t, sleeper, NULL);

	require(tid > 0, "thread_start");
	syscall(__NR_tgkill, getpid(), tid, LSIGKILL);
	for (;;)
		pause();
}

int main(void)
{
	int status;

	plan(13);
	lsig_handle(LSIGUSR1, record, 0);
	lsig_handle(LSIGUSR2, record, 0);
	test_process_directed();
	test_thread_directed();
	test_all_blocked();
	test_shared_handlers();
	status = child_status(child_thread_raises_sigterm);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	   "a thread's own tkill(SIGTERM), default action, ends the process (%#x)", status);
	status = child_status(child_main_killed_by_thread);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	   "tgkill(SIGKILL) to one thread kills the process (%#x)", status);
	return done();
}
