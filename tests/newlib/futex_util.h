/* What the futex tests share: the raw call, a word of MAP_SHARED memory,
 * counting the waiters on a word, and children that wait on one. */
#ifndef FUTEX_UTIL_H
#define FUTEX_UTIL_H

#include <fdkernel.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <uapi/futex.h>

#include "testutil.h"

#define KERNEL_PTR ((uint32_t *)0xffffffff80001000UL) /* in the kernel half */
#define PRIV	   FUTEX_PRIVATE_FLAG

static inline long futex(volatile uint32_t *uaddr, int op, uint32_t val, const void *timeout,
			 volatile uint32_t *uaddr2, uint32_t val3)
{
	return syscall(__NR_futex, uaddr, op, val, timeout, uaddr2, val3);
}

/* The count argument of requeue and wake-op, passed where the timeout goes. */
#define VAL2(n) ((const void *)(unsigned long)(n))

/* A zeroed page of MAP_SHARED memory: fork's children share it. */
static inline volatile uint32_t *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	require(p != MAP_FAILED, "mmap MAP_SHARED");
	return p;
}

/* How many tasks sleep on the word (op: 0 or PRIV): requeueing them onto
 * the same word moves nothing and counts them (Linux too). */
static inline long futex_waiters(volatile uint32_t *w, int op)
{
	return futex(w, FUTEX_REQUEUE | op, 0, VAL2(INT_MAX), w, 0);
}

/* Waits up to 20 s until n tasks sleep on the word: true if they do. */
static inline bool await_waiters(volatile uint32_t *w, int op, long n)
{
	for (int i = 0; i < 20000; i++) {
		if (futex_waiters(w, op) == n)
			return true;
		sleep_ms(1);
	}
	return false;
}

/* A child that waits on the word (expecting val) with op and bitset, and
 * exits 0 if the wait returned 0, 1 for ETIMEDOUT, 2 for EAGAIN, 3 else.
 * With timeout_ms (relative, FUTEX_WAIT) the bitset is ignored. */
static inline pid_t spawn_waiter(volatile uint32_t *w, int op, uint32_t val, uint32_t bitset,
				 long timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, timeout_ms % 1000 * 1000000L};
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		long r = timeout_ms ? futex(w, FUTEX_WAIT | op, val, &ts, NULL, 0)
				    : futex(w, FUTEX_WAIT_BITSET | op, val, NULL, NULL, bitset);
		_exit(r == 0 ? 0 : errno == ETIMEDOUT ? 1 : errno == EAGAIN ? 2 : 3);
	}
	require(pid > 0, "fork");
	return pid;
}

/* The exit code of child pid, or -1 if it did not exit normally. */
static inline int child_code(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif
