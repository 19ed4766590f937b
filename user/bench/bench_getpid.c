/* getpid round trip through syscall(): the cost of entering and leaving
 * the kernel, with no work inside.  Median of repetitions, in ns per call. */
#include <fdkernel.h>

#include "bench.h"

#define CALLS 20000
#define REPS  11

static double getpid_rep(const char *name, void *arg)
{
	(void)arg;
	uint64_t start = bench_now_ns();
	for (int i = 0; i < CALLS; i++)
		if (syscall(__NR_getpid) < 0) {
			bench_fail(name, "getpid: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

int main(void)
{
	bench_begin("bench_getpid", "getpid");
	bench_row("getpid", "ns", REPS, getpid_rep, NULL);
	return bench_end();
}
