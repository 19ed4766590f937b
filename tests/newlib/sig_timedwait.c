/* rt_sigtimedwait (sigwaitinfo, sigtimedwait, sigwait): a pending signal
 * of the set is taken without its handler, with its siginfo; the wait ends
 * with EAGAIN at the timeout and EINTR when another signal's handler runs;
 * a process-directed signal blocked everywhere reaches the one thread
 * waiting for it; an ignored signal reaches a wait that had it blocked.
 * Bad arguments get Linux's errno. */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

struct lts {
	int64_t sec, nsec;
};

/* A wait that only a signal that never comes would end: a bound, not a
 * speed, so that a loaded machine cannot time it out. */
#define PATIENCE_S 60

static volatile int handled;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void count(int sig)
{
	(void)sig;
	handled++;
}

static long timedwait(uint64_t set, struct lsiginfo *info, const struct lts *ts)
{
	return syscall(__NR_rt_sigtimedwait, &set, info, ts, 8);
}

static void test_pending(void)
{
	struct lsiginfo info = {0};

	lsig_handle(LSIGUSR1, count, 0);
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR1), NULL);
	handled = 0;
	ok(lsig_from_child(LSIGUSR1), "a child sent SIGUSR1 (blocked)");
	ok(timedwait(LBIT(LSIGUSR1), &info, NULL) == LSIGUSR1,
	   "sigwaitinfo returns the pending signal");
	ok(info.si_signo == LSIGUSR1 && info.si_code == LSI_USER && info.kill.pid > 0,
	   "its siginfo: si_signo, SI_USER, the sender's pid (%d)", info.kill.pid);
	ok(handled == 0 && !(lsig_pending() & LBIT(LSIGUSR1)),
	   "no handler ran and the signal is no longer pending");
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR1), NULL);
}

static void test_timeouts(void)
{
	struct lts zero = {0, 0}, short_ts = {0, 20000000};
	uint64_t t0 = now_ns();

	errno = 0;
	ok(timedwait(LBIT(LSIGUSR2), NULL, &zero) == -1 && errno == EAGAIN,
	   "a zero timeout with nothing pending: EAGAIN");
	errno = 0;
	ok(timedwait(LBIT(LSIGUSR2), NULL, &short_ts) == -1 && errno == EAGAIN &&
	       now_ns() - t0 >= 15000000,
	   "a 20 ms timeout: EAGAIN after it");
	ok(lsig_blocked() == 0, "the mask is back as it was");
}

/* A handled signal outside the set ends the wait: EINTR, its handler ran. */
static void test_interrupted(void)
{
	struct lts patience = {PATIENCE_S, 0};
	pid_t sender = lsig_sender(LSIGUSR1, 30);

	handled = 0;
	errno = 0;
	ok(timedwait(LBIT(LSIGUSR2), NULL, &patience) == -1 && errno == EINTR && handled >= 1,
	   "another signal's handler ends the wait with EINTR");
	lsig_stop_sender(sender);
}

static void test_errors(void)
{
	uint64_t set = LBIT(LSIGUSR2);
	struct lts bad = {0, 1000000000}, neg = {-1, 0};

	errno = 0;
	ok(syscall(__NR_rt_sigtimedwait, &set, NULL, NULL, 4) == -1 && errno == EINVAL,
	   "sigsetsize 4: EINVAL");
	errno = 0;
	ok(syscall(__NR_rt_sigtimedwait, 8, NULL, NULL, 8) == -1 && errno == EFAULT,
	   "an unreadable set: EFAULT");
	errno = 0;
	ok(timedwait(set, NULL, &bad) == -1 && errno == EINVAL, "tv_nsec of 1e9: EINVAL");
	errno = 0;
	ok(timedwait(set, NULL, &neg) == -1 && errno == EINVAL, "a negative timeout: EINVAL");
	errno = 0;
	ok(timedwait(set, NULL, (struct lts *)8) == -1 && errno == EFAULT,
	   "an unreadable timeout: EFAULT");
}

static volatile long waited_sig, waiter_ready;

static int sig_waiter(void *arg)
{
	uint64_t set = LBIT(LSIGUSR2);
	struct lts ts = {PATIENCE_S, 0};

	(void)arg;
	__atomic_store_n(&waiter_ready, 1, __ATOMIC_RELEASE);
	waited_sig = thread_sys6(__NR_rt_sigtimedwait, (long)&set, 0, (long)&ts, 8, 0, 0);
	return 0;
}

/* SIGUSR2 is blocked in every thread; kill() from another process reaches
 * the thread waiting for it in sigtimedwait. */
static void test_thread(void)
{
	struct thread t;

	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR2), NULL);
	require(thread_start(&t, sig_waiter, NULL) > 0, "thread_start");
	while (!__atomic_load_n(&waiter_ready, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	sleep_ms(20); /* let it sleep in the wait */
	ok(lsig_from_child(LSIGUSR2), "a child sent SIGUSR2 to the process");
	thread_join(&t);
	ok(waited_sig == LSIGUSR2, "the waiting thread took it (%ld)", waited_sig);
	ok(!(lsig_pending() & LBIT(LSIGUSR2)), "and it is pending nowhere");
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR2), NULL);
}

/* An ignored signal the waiter had blocked is still queued while the wait
 * has it unblocked (Linux's real_blocked): the wait takes it.  Ignored and
 * not blocked, it is dropped: it does not end a wait for another signal. */
static void test_ignored(void)
{
	struct lts short_ts = {0, 200000000};
	struct thread t;
	pid_t sender;

	lsig_action(LSIGUSR2, UAPI_SIG_IGN, 0, 0);
	lsig_procmask(UAPI_SIG_BLOCK, LBIT(LSIGUSR2), NULL);
	waiter_ready = 0;
	waited_sig = 0;
	require(thread_start(&t, sig_waiter, NULL) > 0, "thread_start");
	while (!__atomic_load_n(&waiter_ready, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	sleep_ms(20); /* let it sleep in the wait */
	ok(lsig_from_child(LSIGUSR2), "a child sent SIGUSR2, ignored and blocked");
	thread_join(&t);
	ok(waited_sig == LSIGUSR2, "the wait for it took it all the same (%ld)", waited_sig);
	lsig_procmask(UAPI_SIG_UNBLOCK, LBIT(LSIGUSR2), NULL);
	sender = lsig_sender(LSIGUSR2, 20);
	errno = 0;
	ok(timedwait(LBIT(LSIGUSR1), NULL, &short_ts) == -1 && errno == EAGAIN,
	   "SIGUSR2 ignored and unblocked, sent every 20 ms: a wait for SIGUSR1 times out");
	lsig_stop_sender(sender);
	lsig_action(LSIGUSR2, UAPI_SIG_DFL, 0, 0);
}

int main(void)
{
	plan(19);
	test_pending();
	test_timeouts();
	test_interrupted();
	test_errors();
	test_thread();
	test_ignored();
	return done();
}
