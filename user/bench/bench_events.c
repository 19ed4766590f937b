/* Event fds and multiplexers: an eventfd write + read round trip, and one
 * ready fd among NFDS checked by poll and by select (timeout 0), the cost
 * that grows with the fds watched.  Median of repetitions, ns per call. */
#include <poll.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <unistd.h>

#include "bench.h"

#define CALLS 2000
#define REPS  11
#define NFDS  512 /* watched fds: NFDS - 1 idle copies of one eventfd, then a ready one */
#define WORDS (NFDS / 64 + 1) /* room for the fds below the first one */

static int fds[NFDS];
static struct pollfd pfds[NFDS];
static uint64_t bits[WORDS]; /* select's read set, NFDS bits wide */

static double eventfd_rep(const char *name, void *arg)
{
	int fd = *(int *)arg;
	uint64_t v = 1;
	uint64_t start = bench_now_ns();

	for (int i = 0; i < CALLS; i++)
		if (write(fd, &v, 8) != 8 || read(fd, &v, 8) != 8) {
			bench_fail(name, "eventfd: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

static double poll_rep(const char *name, void *arg)
{
	uint64_t start = bench_now_ns();

	(void)arg;
	for (int i = 0; i < CALLS; i++)
		if (poll(pfds, NFDS, 0) != 1) {
			bench_fail(name, "poll: not 1 ready (%s)", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, CALLS);
}

static double select_rep(const char *name, void *arg)
{
	int nfds = fds[NFDS - 1] + 1;
	uint64_t start = bench_now_ns();

	(void)arg;
	for (int i = 0; i < CALLS; i++) {
		struct timeval zero = {0, 0};
		for (int j = 0; j < NFDS; j++)
			bits[fds[j] / 64] |= 1ULL << (fds[j] % 64);
		if (select(nfds, (fd_set *)bits, NULL, NULL, &zero) != 1) {
			bench_fail(name, "select: not 1 ready (%s)", strerror(errno));
			return -1;
		}
	}
	return bench_ns_per_op(start, CALLS);
}

/* NFDS fds, the last one readable; false (and a failure row) if not made. */
static bool make_fds(void)
{
	int idle = eventfd(0, 0);

	for (int i = 0; i < NFDS; i++) {
		fds[i] = i < NFDS - 1 ? dup(idle) : eventfd(1, 0);
		if (fds[i] < 0 || fds[i] >= WORDS * 64) {
			errno = EMFILE;
			return false;
		}
		pfds[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
	}
	close(idle);
	return true;
}

int main(void)
{
	int fd;

	bench_begin("bench_events", "eventfd_rw,poll_1of512,select_1of512");
	fd = eventfd(0, 0);
	bench_row("eventfd_rw", "ns", REPS, eventfd_rep, &fd);
	close(fd);
	if (make_fds()) {
		bench_row("poll_1of512", "ns", REPS, poll_rep, NULL);
		bench_row("select_1of512", "ns", REPS, select_rep, NULL);
	} else {
		bench_fail("poll_1of512", "%d fds: %s", NFDS, strerror(errno));
		bench_fail("select_1of512", "%d fds: %s", NFDS, strerror(errno));
	}
	return bench_end();
}
