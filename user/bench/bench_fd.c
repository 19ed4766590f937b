/*
 * fd allocation cost against the number of fds open (16 ... 1,000,000):
 * alloc+close pairs in the sequential area (dup + close, on any kernel) and
 * in fdkernel's non-sequential area, plus close-and-reopen patterns that
 * make the lowest-free search find a hole.  Median ns per pair.
 *
 * Rows, for each n in SIZES (n fds open besides stdio and the source fd):
 *   fd_seq_<n>     dup(src) + close: the new fd is the lowest free, at the top
 *   fd_nonseq_<n>  dup3(src, -1, O_NONSEQFD) + close, with the
 *                  n fds in the non-sequential area (fdkernel only: on Linux
 *                  these rows are left out of the plan, a '#' line says so)
 *   fd_reopen_<n>  close(the middle fd) + dup: the hole in the middle is found
 *   fd_hole_<n>    close(a random open fd) + dup: a hole anywhere
 * Pipe throughput is bench_pipe's (pipe_64B, pipe_64KiB).
 */
#define _GNU_SOURCE /* dup3 */
#include <fdkernel.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"

#define PAIRS 2000 /* alloc+close pairs per repetition */
#define REPS  9
#define SLACK 64 /* fds beyond n: stdio, the source, the one being allocated */

static const int sizes[] = {16, 1000, 64000, 1000000};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static int src;		/* /dev/null, the fd every row copies */
static int nfds;	/* fds the current case has open */
static int first;	/* the first of them (sequential cases) */
static bool has_nonseq; /* fdkernel: syscall_indirect and O_NONSEQFD work */

/* A dup of src in the non-sequential area, by its direct route (docs/fds.md;
 * EINVAL on Linux). */
static long dup_nonseq(void)
{
	return dup3(src, -1, O_NONSEQFD);
}

/* What one alloc+close pair does (see the rows above). */
enum pattern { SEQ, NONSEQ, REOPEN, HOLE };

static uint64_t rng = 88172645463325252ULL;

static int random_open_fd(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return first + (int)(rng % (uint64_t)nfds);
}

/* One alloc+close pair; false on failure. */
static bool pair(enum pattern p)
{
	int hole, fd;

	switch (p) {
	case SEQ:
		fd = dup(src);
		return fd >= 0 && close(fd) == 0;
	case NONSEQ:
		fd = (int)dup_nonseq();
		return fd >= 0 && close(fd) == 0;
	case REOPEN:
	case HOLE:
		hole = p == REOPEN ? first + nfds / 2 : random_open_fd();
		return close(hole) == 0 && dup(src) == hole;
	}
	return false;
}

static double pair_rep(const char *name, void *arg)
{
	enum pattern p = *(enum pattern *)arg;
	uint64_t start = bench_now_ns();

	for (int i = 0; i < PAIRS; i++)
		if (!pair(p)) {
			bench_fail(name, "alloc+close: %s", strerror(errno));
			return -1;
		}
	return bench_ns_per_op(start, PAIRS);
}

/* Opens n copies of src (in the non-sequential area if nonseq); false on failure. */
static bool fill(int n, bool nonseq)
{
	for (nfds = 0; nfds < n; nfds++) {
		long fd = nonseq ? dup_nonseq() : dup(src);
		if (fd < 0)
			return false;
		if (nfds == 0)
			first = (int)fd;
	}
	return true;
}

static void empty(void)
{
	close_range((unsigned int)src + 1, ~0U, 0);
	nfds = 0;
}

static void row(const char *what, int n, enum pattern p)
{
	char name[64];

	snprintf(name, sizeof name, "fd_%s_%d", what, n);
	bench_row(name, "ns", REPS, pair_rep, &p);
}

/* The rows' middle words, in the order fail_rows counts them. */
static const char *const whats[] = {"seq", "reopen", "hole", "nonseq"};

/* Reports rows fd_<what>_<n> for each what (from..to of whats) as not
 * measured: skipped (not possible here) or failed. */
static void fail_rows(int n, int from, int to, bool skip, const char *why)
{
	char name[64];

	for (int i = from; i < to; i++) {
		snprintf(name, sizeof name, "fd_%s_%d", whats[i], n);
		if (skip)
			bench_skip(name, "%s", why);
		else
			bench_fail(name, "%s", why);
	}
}

/* Whether any row of size n is wanted (filling a million fds takes a while). */
static bool size_wanted(int n)
{
	char name[64];

	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof name, "fd_%s_%d", whats[i], n);
		if (bench_wanted(name))
			return true;
	}
	return false;
}

/* Every row of size n: the sequential ones, then the non-sequential one. */
static void size_rows(int n, rlim_t limit)
{
	if (!size_wanted(n))
		return;
	if (!has_nonseq)
		fail_rows(n, 3, 4, true, "no non-sequential fd area");
	if ((rlim_t)n + SLACK > limit) {
		fail_rows(n, 0, has_nonseq ? 4 : 3, true, "RLIMIT_NOFILE too low");
		return;
	}
	if (fill(n, false)) {
		row("seq", n, SEQ);
		row("reopen", n, REOPEN);
		row("hole", n, HOLE);
	} else {
		fail_rows(n, 0, 3, false, strerror(errno));
	}
	empty();
	if (!has_nonseq)
		return;
	if (fill(n, true))
		row("nonseq", n, NONSEQ);
	else
		fail_rows(n, 3, 4, false, strerror(errno));
	empty();
}

/* The plan line: every row this kernel can run, in order. */
static void plan(void)
{
	char rows[512] = "";
	size_t len = 0;

	for (int i = 0; i < NSIZES; i++) {
		int n = sizes[i];
		len += snprintf(rows + len, sizeof rows - len,
				"%sfd_seq_%d,fd_reopen_%d,fd_hole_%d,fd_nonseq_%d", i ? "," : "", n,
				n, n, n);
	}
	bench_begin("bench_fd", rows);
}

/* Raises RLIMIT_NOFILE as far as needed and allowed; returns the soft limit. */
static rlim_t raise_nofile(void)
{
	struct rlimit r = {sizes[NSIZES - 1] + SLACK, sizes[NSIZES - 1] + SLACK};

	if (setrlimit(RLIMIT_NOFILE, &r) < 0 && getrlimit(RLIMIT_NOFILE, &r) == 0) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
	getrlimit(RLIMIT_NOFILE, &r);
	return r.rlim_cur;
}

int main(void)
{
	rlim_t limit = raise_nofile();
	long probe;

	src = open("/dev/null", O_RDONLY);
	probe = dup_nonseq();
	has_nonseq = probe >= NONSEQ_FD_BASE;
	if (probe >= 0)
		close((int)probe);
	plan();
	if (src < 0) {
		bench_fail("fd_seq_16", "open /dev/null: %s", strerror(errno));
		return bench_end();
	}
	for (int i = 0; i < NSIZES; i++)
		size_rows(sizes[i], limit);
	return bench_end();
}
