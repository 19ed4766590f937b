/* Futexes: FUTEX_WAKE_PRIVATE on a word nobody waits on (what every
 * uncontended unlock that saw a stale waiters bit pays), and a wait/wake
 * ping-pong between two processes on a MAP_SHARED word, ns per round trip
 * (two wake-ups and two context switches). */
#include <fdkernel.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uapi/futex.h>

#include "bench.h"

#define WAKES  20000
#define ROUNDS 2000
#define REPS   11

static long futex(volatile uint32_t *w, int op, uint32_t val)
{
	return syscall(__NR_futex, w, op, val, NULL, NULL, 0);
}

static double wake_none_rep(const char *name, void *arg)
{
	static uint32_t word;
	uint64_t start = bench_now_ns();

	(void)arg;
	for (int i = 0; i < WAKES; i++)
		if (futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1) != 0) {
			bench_fail(name, "futex wake: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, WAKES);
}

/* The word: 0 the parent's turn, 1 the child's, 2 the child exits. */
static _Noreturn void ponger(volatile uint32_t *w)
{
	for (;;) {
		uint32_t v;
		while ((v = *w) == 0)
			futex(w, FUTEX_WAIT, 0);
		if (v == 2)
			_exit(0);
		*w = 0;
		futex(w, FUTEX_WAKE, 1);
	}
}

static double pingpong_rep(const char *name, void *arg)
{
	volatile uint32_t *w = arg;
	uint64_t start = bench_now_ns();

	(void)name;
	for (int i = 0; i < ROUNDS; i++) {
		*w = 1;
		futex(w, FUTEX_WAKE, 1);
		while (*w == 1)
			futex(w, FUTEX_WAIT, 1);
	}
	return bench_ns_per_op(start, ROUNDS);
}

static void pingpong_row(const char *name)
{
	volatile uint32_t *w;
	pid_t pid;

	if (!bench_wanted(name))
		return;
	w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED) {
		bench_fail(name, "mmap: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0)
		ponger(w);
	if (pid < 0)
		bench_fail(name, "fork: %s", strerror(errno));
	else
		bench_row(name, "ns", REPS, pingpong_rep, (void *)w);
	*w = 2;
	futex(w, FUTEX_WAKE, 1);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	munmap((void *)w, 4096);
}

int main(void)
{
	bench_begin("bench_futex", "futex_wake_none,futex_pingpong");
	bench_row("futex_wake_none", "ns", REPS, wake_none_rep, NULL);
	pingpong_row("futex_pingpong");
	return bench_end();
}
