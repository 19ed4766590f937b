/*
 * The scaling row of issue 19 (make bench-scale, docs/smp.md): K threads
 * (K = 1, 2) look fds up, fstat and a read of 0 bytes on fds the whole
 * process shares, while one more thread dups and closes other fds of the
 * same table.  Lookups per second of wall-clock time, summed over the K
 * threads; bench/scale runs it at -smp 1 and -smp 2 and divides.
 *
 * Rows: scale_fd_k1, scale_fd_k2 (lookups/s).  Not one of the bench_*
 * programs: make bench runs under icount on one CPU, where it says nothing.
 * Each repetition also prints the CPU time the process got per second of
 * wall clock (times(), 100 ticks a second on both kernels): about 1 on one
 * CPU, 2 when both CPUs run its threads, so a row that does not scale
 * tells whether its threads did not run in parallel or ran slower.
 */
#include <fdkernel.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/times.h>
#include <unistd.h>

#include "bench.h"
#include "thread.h"

#define SHARED 8	 /* fds the lookup threads use */
#define RUN_NS 500000000 /* one repetition: 0.5 s of wall clock */
#define REPS   5
#define K_MAX  2

static int shared_fds[SHARED];
static int src; /* what the churn thread dups */
static int stop;
static int failed;
static uint64_t lookups[K_MAX];

static int lookup_thread(void *arg)
{
	long k = (long)arg;
	uint64_t n = 0;
	struct stat st;
	char c;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < SHARED; i++)
			if (fstat(shared_fds[i], &st) || read(shared_fds[i], &c, 0) != 0)
				__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
		n += 2 * SHARED;
	}
	lookups[k] = n;
	return 0;
}

static int churn_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int fd = dup(src);
		if (fd < 0 || close(fd))
			__atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

/* One repetition with k lookup threads: lookups per second, or -1. */
static double scale_rep(const char *name, void *arg)
{
	long k = (long)arg;
	struct thread t[K_MAX + 1];
	struct timespec run = {0, RUN_NS};
	uint64_t start, total = 0;
	struct tms before, after;

	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	if (thread_start(&t[k], churn_thread, NULL) < 0) {
		bench_fail(name, "clone failed");
		return -1;
	}
	start = bench_now_ns();
	times(&before);
	for (long i = 0; i < k; i++)
		if (thread_start(&t[i], lookup_thread, (void *)i) < 0) {
			bench_fail(name, "clone failed");
			return -1;
		}
	nanosleep(&run, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	double secs = (double)(bench_now_ns() - start) / 1e9;
	times(&after);
	printf("# %s: %.2f s of CPU per s of wall clock\n", name,
	       (double)(after.tms_utime + after.tms_stime - before.tms_utime - before.tms_stime) /
		   100 / secs);
	for (long i = 0; i <= k; i++)
		thread_join(&t[i]);
	if (failed) {
		bench_fail(name, "a lookup, dup or close failed");
		return -1;
	}
	for (long i = 0; i < k; i++)
		total += lookups[i];
	return (double)total / secs;
}

int main(void)
{
	bench_begin("scale_fd", "scale_fd_k1,scale_fd_k2");
	src = open("/dev/null", O_RDONLY);
	for (int i = 0; i < SHARED; i++)
		shared_fds[i] = open("/dev/null", O_RDONLY);
	if (src < 0 || shared_fds[SHARED - 1] < 0) {
		bench_fail("scale_fd_k1", "open /dev/null: %s", strerror(errno));
		return bench_end();
	}
	bench_row("scale_fd_k1", "lookups/s", REPS, scale_rep, (void *)1L);
	bench_row("scale_fd_k2", "lookups/s", REPS, scale_rep, (void *)2L);
	return bench_end();
}
