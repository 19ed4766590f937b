/*
 * Micro-benchmark of the files table on the host: ns per alloc+install+close
 * with N fds open, beside the same workload as dup+close on the host's Linux.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

#include "fd/fdtable.h"
#include "host_heap.h"
#include "fake_file.h"

#define REPEATS	    7	    /* timed runs per cell; the fastest is reported (noise only adds) */
#define FDMAP_ITERS 1000000 /* pairs per run */
#define LINUX_ITERS 200000

/* 16000: the largest size the host's 20,000 open-file limit lets Linux run. */
static const unsigned int sizes[] = {16, 1000, 16000, 64000, 1000000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

enum pattern { REOPEN, HOLES };
static const char *const pattern_name[] = {"reopen", "holes"};

/* One workload: a set of N open fds and the two operations on it. */
struct workload {
	int (*open_fd)(struct workload *w);
	void (*close_fd)(struct workload *w, int fd);
	struct files_table *t;
	struct file *file;
	unsigned int oflags;
	int dup_source;
	int *fds;
	unsigned int n;
};

static uint64_t rng = 88172645463325252ull;

static unsigned int random_below(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng % n);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int fdmap_open(struct workload *w)
{
	int fd = files_alloc_fd(w->t, 0, w->oflags);

	file_get(w->file);
	if (fd < 0 || files_install(w->t, fd, w->file)) {
		fprintf(stderr, "bench: files_alloc_fd: %d\n", fd);
		exit(1);
	}
	return fd;
}

static void fdmap_close(struct workload *w, int fd)
{
	files_close(w->t, fd);
}

static int linux_open(struct workload *w)
{
	int fd = dup(w->dup_source);

	if (fd < 0) {
		perror("bench: dup");
		exit(1);
	}
	return fd;
}

static void linux_close(struct workload *w, int fd)
{
	(void)w;
	close(fd);
}

/* ns per open+close pair over @iters pairs. */
static double run_once(struct workload *w, enum pattern p, unsigned int iters)
{
	double start = now_ns();
	unsigned int i, j;

	for (i = 0; i < iters; i++) {
		if (p == REOPEN) {
			w->close_fd(w, w->open_fd(w));
			continue;
		}
		j = random_below(w->n);
		w->close_fd(w, w->fds[j]);
		w->fds[j] = w->open_fd(w);
	}
	return (now_ns() - start) / iters;
}

/* Open n fds, warm up, time REPEATS runs, close them all; returns the fastest. */
static double measure(struct workload *w, enum pattern p, unsigned int n, unsigned int iters)
{
	double best = 1e300, ns;
	unsigned int i;

	w->n = n;
	w->fds = malloc(n * sizeof(int));
	for (i = 0; i < n; i++)
		w->fds[i] = w->open_fd(w);
	run_once(w, p, iters / 4);
	for (i = 0; i < REPEATS; i++) {
		ns = run_once(w, p, iters);
		best = ns < best ? ns : best;
	}
	for (i = 0; i < n; i++)
		w->close_fd(w, w->fds[i]);
	free(w->fds);
	return best;
}

static int null_open(struct workload *w)
{
	return (int)w->n;
}

static void null_close(struct workload *w, int fd)
{
	(void)w;
	(void)fd;
}

/* The loop alone (calls, random index, fds[] traffic): part of every figure. */
static double measure_harness(enum pattern p, unsigned int n)
{
	struct workload w = {null_open, null_close, NULL, NULL, 0, 0, NULL, 0};

	return measure(&w, p, n, FDMAP_ITERS);
}

static double measure_fdmap(unsigned int oflags, enum pattern p, unsigned int n)
{
	struct workload w = {fdmap_open, fdmap_close, files_create(), fake_file_new(0),
			     oflags,	 -1,	      NULL,	      0};
	double ns;

	files_set_nofile(w.t, NR_OPEN_MAX);
	ns = measure(&w, p, n, FDMAP_ITERS);
	files_destroy(w.t);
	grace_drain();
	file_put(w.file);
	return ns;
}

/* dup+close on the host kernel, or a negative value past its open-file limit. */
static double measure_linux(enum pattern p, unsigned int n)
{
	struct workload w = {linux_open, linux_close, NULL, NULL, 0, 0, NULL, 0};
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (n + 16 > rl.rlim_cur)
		return -1;
	return measure(&w, p, n, LINUX_ITERS);
}

/* Bytes of one allocated map divided by its slots. */
static double bytes_per_slot(void)
{
	size_t before = heap_live_bytes();
	struct fdmap *map = fdmap_alloc(0, NR_OPEN_MAX);
	double b = (double)(heap_live_bytes() - before) / NR_OPEN_MAX;

	fdmap_free(map);
	return b;
}

int main(void)
{
	static const char *const area_name[] = {"nonseq", "seq"};
	static const unsigned int area_flags[] = {FDF_NONSEQ, 0};
	double ns[2][2][NSIZES], linux_ns[2][NSIZES];
	unsigned int a, p;
	size_t s;

	printf("fdmap micro-benchmark: ns per alloc+install+close (fdkernel files table, host "
	       "-O2)\nbeside dup+close on the host Linux; best of %d runs;\nharness = the loop "
	       "with empty open/close (random index, fds[] traffic)\n\n",
	       REPEATS);
	printf("%-7s %-7s %9s %12s %10s %8s %8s\n", "area", "pattern", "open fds", "fdkernel ns",
	       "Linux ns", "ratio", "harness");
	for (p = 0; p < 2; p++)
		for (s = 0; s < NSIZES; s++)
			linux_ns[p][s] = measure_linux(p, sizes[s]);
	for (a = 0; a < 2; a++)
		for (p = 0; p < 2; p++)
			for (s = 0; s < NSIZES; s++) {
				ns[a][p][s] = measure_fdmap(area_flags[a], p, sizes[s]);
				printf("%-7s %-7s %9u %12.1f ", area_name[a], pattern_name[p],
				       sizes[s], ns[a][p][s]);
				if (linux_ns[p][s] < 0)
					printf("%10s %8s", "not meas.", "-");
				else
					printf("%10.1f %8.2f", linux_ns[p][s],
					       ns[a][p][s] / linux_ns[p][s]);
				printf(" %8.1f\n", measure_harness(p, sizes[s]));
			}
	printf("\ncost at 1,000,000 / cost at 16 (goal for nonseq: <= 1.2):\n");
	for (a = 0; a < 2; a++)
		for (p = 0; p < 2; p++)
			printf("  %-7s %-7s %.2f\n", area_name[a], pattern_name[p],
			       ns[a][p][NSIZES - 1] / ns[a][p][0]);
	printf("\nbytes per fd slot: %.3f (struct fdmap_slot %zu + busy bitmap + summary)\n",
	       bytes_per_slot(), sizeof(struct fdmap_slot));
	return 0;
}
