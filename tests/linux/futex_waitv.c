/* futex_waitv: one wait on up to 128 futex words; a FUTEX_WAKE of any of
 * them ends it with that word's index.  A word that no longer holds its
 * value is EAGAIN, the absolute timeout (CLOCK_MONOTONIC or
 * CLOCK_REALTIME) ETIMEDOUT, a handler EINTR; a shared word is woken from
 * another process, a requeued waiter by its new word; bad arguments get
 * Linux's errno. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "../../kernel/uapi/futex.h" /* Linux's values; musl has no <linux/futex.h> */
#include "testutil.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define W32   FUTEX_32
#define NWORD 30

struct waitv {
	uint64_t val, uaddr;
	uint32_t flags, reserved;
};

static uint32_t words[NWORD];
static struct waitv wv[NWORD];

static long waitv(struct waitv *v, unsigned n, unsigned flags, struct timespec *ts, int clk)
{
	return syscall(SYS_futex_waitv, v, n, flags, ts, clk);
}

static long wake(uint32_t *word, int private)
{
	return syscall(SYS_futex, word, FUTEX_WAKE | (private ? FUTEX_PRIVATE_FLAG : 0), 1, NULL,
		       NULL, 0);
}

/* wv[i] waits for words[i] to hold 0, privately. */
static void reset(void)
{
	for (int i = 0; i < NWORD; i++) {
		words[i] = 0;
		wv[i] = (struct waitv){0, (uintptr_t)&words[i], W32 | FUTEX_PRIVATE_FLAG, 0};
	}
}

static struct timespec in_ms(int clk, long ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts.tv_nsec += ms * 1000000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

static void test_errors(void)
{
	struct timespec ts = in_ms(CLOCK_MONOTONIC, 1000), bad = {0, 1000000000};

	reset();
	is_errno(waitv(wv, 1, 1, &ts, CLOCK_MONOTONIC), EINVAL, "flags 1: EINVAL");
	is_errno(waitv(wv, 0, 0, &ts, CLOCK_MONOTONIC), EINVAL, "no words: EINVAL");
	is_errno(waitv(wv, 129, 0, &ts, CLOCK_MONOTONIC), EINVAL, "129 words: EINVAL");
	is_errno(waitv(NULL, 1, 0, &ts, CLOCK_MONOTONIC), EINVAL, "a NULL array: EINVAL");
	is_errno(waitv((void *)8, 1, 0, &ts, CLOCK_MONOTONIC), EFAULT,
		 "an unreadable array: EFAULT");
	is_errno(waitv(wv, 1, 0, &ts, CLOCK_TAI), EINVAL, "CLOCK_TAI: EINVAL");
	is_errno(waitv(wv, 1, 0, (void *)8, CLOCK_MONOTONIC), EFAULT,
		 "an unreadable timeout: EFAULT");
	is_errno(waitv(wv, 1, 0, &bad, CLOCK_MONOTONIC), EINVAL, "tv_nsec 1e9: EINVAL");
	wv[1].flags = FUTEX_PRIVATE_FLAG;
	is_errno(waitv(wv, 2, 0, &ts, CLOCK_MONOTONIC), EINVAL, "a word without FUTEX_32: EINVAL");
	wv[1].flags = W32 | 0x8000;
	is_errno(waitv(wv, 2, 0, &ts, CLOCK_MONOTONIC), EINVAL, "an unknown word flag: EINVAL");
	wv[1].flags = W32;
	wv[1].reserved = 1;
	is_errno(waitv(wv, 2, 0, &ts, CLOCK_MONOTONIC), EINVAL, "__reserved set: EINVAL");
	reset();
	wv[1].uaddr = (uintptr_t)&words[1] + 1;
	is_errno(waitv(wv, 2, 0, &ts, CLOCK_MONOTONIC), EINVAL, "an unaligned word: EINVAL");
	wv[1].uaddr = 0;
	is_errno(waitv(wv, 2, 0, &ts, CLOCK_MONOTONIC), EFAULT, "a NULL word: EFAULT");
	reset();
	words[5] = 1;
	is_errno(waitv(wv, NWORD, 0, &ts, CLOCK_MONOTONIC), EAGAIN,
		 "word 5 no longer holds its value: EAGAIN");
}

static void test_timeouts(void)
{
	struct timespec mono = in_ms(CLOCK_MONOTONIC, 20), real = in_ms(CLOCK_REALTIME, 20);
	struct timespec past = {1, 0};

	reset();
	is_errno(waitv(wv, NWORD, 0, &mono, CLOCK_MONOTONIC), ETIMEDOUT,
		 "20 ms ahead on CLOCK_MONOTONIC: ETIMEDOUT");
	is_errno(waitv(wv, NWORD, 0, &real, CLOCK_REALTIME), ETIMEDOUT,
		 "20 ms ahead on CLOCK_REALTIME: ETIMEDOUT");
	is_errno(waitv(wv, 1, 0, &past, CLOCK_REALTIME), ETIMEDOUT,
		 "a deadline long past: ETIMEDOUT");
}

static volatile long result;

static void *waiter(void *arg)
{
	(void)arg;
	result = waitv(wv, NWORD, 0, NULL, CLOCK_MONOTONIC);
	return NULL;
}

/* Wakes word until a waiter was there to take it. */
static void wake_until_taken(uint32_t *word, int private)
{
	while (wake(word, private) < 1)
		sleep_ms(1);
}

static void test_wake(void)
{
	pthread_t t;

	reset();
	result = -100;
	require(pthread_create(&t, NULL, waiter, NULL) == 0, "pthread_create");
	wake_until_taken(&words[17], 1);
	pthread_join(t, NULL);
	is_int(result, 17, "a wake of word 17 of 30 ends the wait: its index");
}

/* CMP_REQUEUE moves the waiter of words[3] to a word outside the vector;
 * waking that one ends the wait with index 3. */
static uint32_t other;

static void test_requeue(void)
{
	pthread_t t;
	long moved;

	reset();
	result = -100;
	require(pthread_create(&t, NULL, waiter, NULL) == 0, "pthread_create");
	while ((moved = syscall(SYS_futex, &words[3], FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 0,
				(void *)1L, &other, 0)) < 1)
		sleep_ms(1);
	wake_until_taken(&other, 1);
	pthread_join(t, NULL);
	ok(moved == 1 && result == 3, "requeued from word 3 elsewhere, woken there: index 3 (%ld)",
	   result);
}

static uint32_t *shared_words;

static void child_wakes(void)
{
	wake_until_taken(&shared_words[1], 0);
	_exit(0);
}

static void test_shared(void)
{
	struct waitv sv[2];
	int status;
	pid_t pid;

	shared_words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(shared_words != MAP_FAILED, "mmap");
	for (int i = 0; i < 2; i++)
		sv[i] = (struct waitv){0, (uintptr_t)&shared_words[i], W32, 0};
	fflush(stdout);
	if ((pid = fork()) == 0)
		child_wakes();
	result = waitv(sv, 2, 0, NULL, 0);
	ok(result == 1 && waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "a shared word woken by another process: index 1 (%ld)", result);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void test_signal(void)
{
	struct sigaction sa = {.sa_handler = on_alarm};
	struct timespec ts = in_ms(CLOCK_MONOTONIC, 5000);

	reset();
	sigaction(SIGALRM, &sa, NULL);
	ualarm(50000, 0);
	is_errno(waitv(wv, NWORD, 0, &ts, CLOCK_MONOTONIC), EINTR,
		 "a handler without SA_RESTART: EINTR");
}

int main(void)
{
	plan(21);
	test_errors();
	test_timeouts();
	test_wake();
	test_requeue();
	test_shared();
	test_signal();
	return done();
}
