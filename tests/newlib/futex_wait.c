/* futex(2) in one process: FUTEX_WAIT's value check, timeouts (relative,
 * absolute on both clocks), every errno of bad arguments, and signals
 * interrupting a wait.  Waking needs a second task: a child process does
 * it through MAP_SHARED memory. */
#include <signal.h>

#include "futex_util.h"
#include "sigutil.h"

static volatile sig_atomic_t hits;

static void count_handler(int sig)
{
	(void)sig;
	hits++;
}

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
	return (struct timespec){ns / 1000000000, ns % 1000000000};
}

/* A user address with nothing mapped: a page mapped, then unmapped. */
static uint32_t *unmapped_word(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED && munmap(p, 4096) == 0, "mmap+munmap");
	return p;
}

static void test_values(void)
{
	static uint32_t word = 7;

	is_errno(futex(&word, FUTEX_WAIT, 8, NULL, NULL, 0), EAGAIN,
		 "FUTEX_WAIT with *uaddr != val: EAGAIN");
	is_errno(futex(&word, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EAGAIN,
		 "FUTEX_WAIT_PRIVATE with *uaddr != val: EAGAIN");
	is_errno(futex(&word, FUTEX_WAIT_BITSET | PRIV, 6, NULL, NULL, 1), EAGAIN,
		 "FUTEX_WAIT_BITSET with *uaddr != val: EAGAIN");
	ok(futex(&word, FUTEX_WAKE, 1, NULL, NULL, 0) == 0, "FUTEX_WAKE with no waiter: 0");
	ok(futex(&word, FUTEX_WAKE | PRIV, INT_MAX, NULL, NULL, 0) == 0,
	   "FUTEX_WAKE_PRIVATE with no waiter: 0");
	ok(futex(&word, FUTEX_WAKE_BITSET | PRIV, 1, NULL, NULL, 4) == 0,
	   "FUTEX_WAKE_BITSET with no waiter: 0");
	ok(word == 7, "the word is untouched");
}

static void test_timeouts(void)
{
	static uint32_t word;
	struct timespec rel = {0, 50000000}, zero = {0, 0}, abs;
	int64_t t0;

	t0 = now_ns(CLOCK_MONOTONIC);
	is_errno(futex(&word, FUTEX_WAIT | PRIV, 0, &rel, NULL, 0), ETIMEDOUT,
		 "FUTEX_WAIT, relative 50 ms: ETIMEDOUT");
	ok(now_ns(CLOCK_MONOTONIC) - t0 >= 50000000, "... after at least 50 ms");
	is_errno(futex(&word, FUTEX_WAIT, 0, &zero, NULL, 0), ETIMEDOUT,
		 "FUTEX_WAIT, relative 0: ETIMEDOUT at once");

	t0 = now_ns(CLOCK_MONOTONIC);
	abs = ns_to_ts(t0 + 50000000);
	is_errno(futex(&word, FUTEX_WAIT_BITSET | PRIV, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY),
		 ETIMEDOUT, "FUTEX_WAIT_BITSET, absolute CLOCK_MONOTONIC now+50 ms: ETIMEDOUT");
	ok(now_ns(CLOCK_MONOTONIC) >= t0 + 50000000, "... not before the deadline");

	t0 = now_ns(CLOCK_REALTIME);
	abs = ns_to_ts(t0 + 50000000);
	is_errno(futex(&word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, &abs, NULL, 1),
		 ETIMEDOUT, "FUTEX_WAIT_BITSET|CLOCK_REALTIME, absolute now+50 ms: ETIMEDOUT");
	ok(now_ns(CLOCK_REALTIME) >= t0 + 50000000, "... not before the deadline");
	is_errno(futex(&word, FUTEX_WAIT_BITSET, 0, &zero, NULL, 1), ETIMEDOUT,
		 "absolute deadline 0 (long past): ETIMEDOUT at once");
	abs = ns_to_ts(now_ns(CLOCK_REALTIME) - 1000000000);
	is_errno(futex(&word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME | PRIV, 0, &abs, NULL, 1),
		 ETIMEDOUT, "a CLOCK_REALTIME deadline a second ago: ETIMEDOUT");
	is_errno(futex(&word, FUTEX_WAIT_BITSET, 1, &zero, NULL, 1), EAGAIN,
		 "a past deadline but *uaddr != val: EAGAIN first");
}

static void test_bad_args(void)
{
	static uint32_t words[2];
	char *bytes = (char *)words;
	uint32_t *gone = unmapped_word();
	struct timespec bad_ns = {0, 1000000000}, neg = {-1, 0}, ok_ts = {0, 1000};
	volatile uint32_t *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	require(none != MAP_FAILED, "mmap PROT_NONE");
	is_errno(futex((uint32_t *)(bytes + 1), FUTEX_WAIT, 0, NULL, NULL, 0), EINVAL,
		 "FUTEX_WAIT on a misaligned word: EINVAL");
	is_errno(futex((uint32_t *)(bytes + 2), FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), EINVAL,
		 "FUTEX_WAKE on a misaligned word: EINVAL");
	is_errno(futex(gone, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EFAULT,
		 "FUTEX_WAIT_PRIVATE on an unmapped word: EFAULT");
	is_errno(futex(gone, FUTEX_WAIT, 0, NULL, NULL, 0), EFAULT,
		 "FUTEX_WAIT on an unmapped word: EFAULT");
	is_errno(futex(none, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EFAULT,
		 "FUTEX_WAIT on a PROT_NONE word: EFAULT");
	is_errno(futex(gone, FUTEX_WAKE, 1, NULL, NULL, 0), EFAULT,
		 "FUTEX_WAKE (shared) on an unmapped word: EFAULT");
	ok(futex(gone, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0) == 0,
	   "FUTEX_WAKE_PRIVATE on an unmapped word: 0 (Linux does not look at the page)");
	is_errno(futex(KERNEL_PTR, FUTEX_WAIT | PRIV, 0, NULL, NULL, 0), EFAULT,
		 "FUTEX_WAIT on a kernel address: EFAULT");
	is_errno(futex(KERNEL_PTR, FUTEX_WAKE | PRIV, 1, NULL, NULL, 0), EFAULT,
		 "FUTEX_WAKE_PRIVATE on a kernel address: EFAULT");
	is_errno(futex(words, FUTEX_WAIT, 0, &bad_ns, NULL, 0), EINVAL,
		 "timeout with tv_nsec = 1e9: EINVAL");
	is_errno(futex(words, FUTEX_WAIT_BITSET, 0, &neg, NULL, 1), EINVAL,
		 "timeout with tv_sec < 0: EINVAL");
	is_errno(futex(words, FUTEX_WAIT, 1, &bad_ns, NULL, 0), EINVAL,
		 "a bad timeout is EINVAL before the value check");
	is_errno(futex(words, FUTEX_WAIT, 0, gone, NULL, 0), EFAULT,
		 "timeout pointer unmapped: EFAULT");
	is_errno(futex(words, FUTEX_WAIT, 0, KERNEL_PTR, NULL, 0), EFAULT,
		 "timeout pointer in the kernel: EFAULT");
	ok(futex(words, FUTEX_WAKE, 1, gone, NULL, 0) == 0,
	   "FUTEX_WAKE ignores the timeout argument");
	is_errno(futex(words, FUTEX_WAIT_BITSET, 0, &ok_ts, NULL, 0), EINVAL,
		 "FUTEX_WAIT_BITSET with bitset 0: EINVAL");
	is_errno(futex(words, FUTEX_WAKE_BITSET, 1, NULL, NULL, 0), EINVAL,
		 "FUTEX_WAKE_BITSET with bitset 0: EINVAL");
	is_errno(futex(words, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 0, &ok_ts, NULL, 0), ENOSYS,
		 "FUTEX_CLOCK_REALTIME with FUTEX_WAIT: ENOSYS");
	is_errno(futex(words, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, NULL, NULL, 0), ENOSYS,
		 "FUTEX_CLOCK_REALTIME with FUTEX_WAKE: ENOSYS");
	is_errno(futex(words, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 0, &bad_ns, NULL, 0), EINVAL,
		 "... but a bad timeout is reported first: EINVAL");
	is_errno(futex(words, FUTEX_FD, 0, NULL, NULL, 0), ENOSYS, "FUTEX_FD: ENOSYS");
	is_errno(futex(words, 14, 0, NULL, NULL, 0), ENOSYS, "operation 14: ENOSYS");
	is_errno(futex(words, 0x7f | PRIV, 0, NULL, NULL, 0), ENOSYS, "operation 127: ENOSYS");
	is_errno(futex(words, FUTEX_REQUEUE, -1, VAL2(1), words + 1, 0), EINVAL,
		 "FUTEX_REQUEUE with nr_wake < 0: EINVAL");
	is_errno(futex(words, FUTEX_CMP_REQUEUE, 1, VAL2(-1), words + 1, 0), EINVAL,
		 "FUTEX_CMP_REQUEUE with nr_requeue < 0: EINVAL");
	is_errno(futex(words, FUTEX_REQUEUE, 1, VAL2(1), (uint32_t *)(bytes + 5), 0), EINVAL,
		 "FUTEX_REQUEUE to a misaligned word: EINVAL");
	is_errno(futex(words, FUTEX_CMP_REQUEUE, 1, VAL2(1), gone, 0), EFAULT,
		 "FUTEX_CMP_REQUEUE (shared) to an unmapped word: EFAULT");
	is_errno(futex(gone, FUTEX_CMP_REQUEUE | PRIV, 1, VAL2(1), words, 0), EFAULT,
		 "FUTEX_CMP_REQUEUE_PRIVATE from an unmapped word: EFAULT (its value is read)");
	ok(futex(gone, FUTEX_REQUEUE | PRIV, 1, VAL2(1), words, 0) == 0,
	   "FUTEX_REQUEUE_PRIVATE from an unmapped word: 0 (nothing read)");
	munmap((void *)none, 4096);
}

/* The caller waits on w (0) while a child sends it SIGUSR1 every 20 ms and,
 * after 200 ms, stores 1 and wakes it.  The first signal waits until the
 * caller sleeps on w: one sent before would run its handler before the
 * wait began.  Returns the wait's result, with its errno and the handlers
 * run so far. */
static long wait_under_signals(volatile uint32_t *w, const struct timespec *ts, int *err, int *seen)
{
	pid_t parent = getpid(), pid;
	long r;

	*w = 0;
	hits = 0;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		bool waiting = await_waiters(w, 0, 1); /* else no signal: the test fails */

		for (int i = 0; i < 10 && waiting; i++) {
			sleep_ms(20);
			lsig_kill(parent, LSIGUSR1);
		}
		*w = 1;
		futex(w, FUTEX_WAKE, 1, NULL, NULL, 0);
		_exit(0);
	}
	r = futex(w, FUTEX_WAIT, 0, ts, NULL, 0);
	*err = errno;
	*seen = hits;
	/* The sender goes on after an EINTR, and its signals interrupt this
	 * wait too without SA_RESTART: reap it before the next test, or its
	 * signals reach that one and it outlives us. */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return r;
}

static void test_signals(void)
{
	volatile uint32_t *w = shared_page();
	struct timespec forever = {INT64_MAX / 2, 0};
	long r;
	int err, seen;

	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	r = wait_under_signals(w, NULL, &err, &seen);
	ok((r == 0 || err == EAGAIN) && seen > 0,
	   "SA_RESTART: an untimed FUTEX_WAIT restarts after %d handlers, ends by the wake-up",
	   seen);
	lsig_handle(LSIGUSR1, count_handler, 0);
	r = wait_under_signals(w, NULL, &err, &seen);
	ok(r == -1 && err == EINTR && seen == 1, "without SA_RESTART: EINTR after one handler");
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	r = wait_under_signals(w, &forever, &err, &seen);
	ok(r == -1 && err == EINTR && seen == 1,
	   "a timed wait (a huge timeout) fails with EINTR even under SA_RESTART");
	lsig_handle(LSIGUSR1, (lhandler_t)0, 0);
	munmap((void *)w, 4096);
}

int main(void)
{
	plan(49);
	test_values();
	test_timeouts();
	test_bad_args();
	test_signals();
	return done();
}
