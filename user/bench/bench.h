/* What every benchmark of user/bench shares: the clock, repetitions with a
 * median and spread, and the line format bench/run parses (docs/bench.md). */
#ifndef BENCH_H
#define BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Output, one line each, flushed at once so a crash loses nothing:
 *   # bench <prog> rows=<id>,<id>...       the plan, first
 *   BENCH name=<id> value=<median> unit=<u> rep=<k> min=<v> max=<v>
 *   # FAIL name=<id>: <reason>             a row that could not be measured
 *   # end <prog> status=<0|1>              last; missing if the program died
 * bench/run reports planned rows without a BENCH line as failed, crashed or
 * timed out, never as a number.  Rows fd_seq_<nfds> and fd_nonseq_<nfds>
 * (ns per alloc+close) are also drawn in docs/bench.png.
 */

#define BENCH_MAX_REPS 64

static const char *bench_prog;
static int bench_status;

/* Monotonic time in nanoseconds. */
static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Prints the plan: PROG's name and the comma-separated ids of its ROWS. */
static inline void bench_begin(const char *prog, const char *rows)
{
	bench_prog = prog;
	printf("# bench %s rows=%s\n", prog, rows);
	fflush(stdout);
}

/* Reports row NAME as not measured, with a printf-style reason. */
/* Row NAME cannot be measured on this kernel (not a failure): "n/a" in the table. */
static inline __attribute__((format(printf, 2, 3))) void bench_skip(const char *name,
								    const char *fmt, ...)
{
	va_list ap;
	printf("# SKIP name=%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline __attribute__((format(printf, 2, 3))) void bench_fail(const char *name,
								    const char *fmt, ...)
{
	va_list ap;
	printf("# FAIL name=%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	bench_status = 1;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Runs ONE_REP (which returns one repetition's figure in UNIT, or a negative
 * number after calling bench_fail) once to warm up, then REPS times, and
 * prints row NAME's median and spread.  ARG is passed through.
 */
static inline void bench_row(const char *name, const char *unit, int reps,
			     double (*one_rep)(const char *name, void *arg), void *arg)
{
	double v[BENCH_MAX_REPS];

	if (reps > BENCH_MAX_REPS)
		reps = BENCH_MAX_REPS;
	if (one_rep(name, arg) < 0)
		return;
	for (int i = 0; i < reps; i++)
		if ((v[i] = one_rep(name, arg)) < 0)
			return;
	qsort(v, reps, sizeof v[0], bench_cmp_double);
	double median = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
	printf("BENCH name=%s value=%.6g unit=%s rep=%d min=%.6g max=%.6g\n", name, median, unit,
	       reps, v[0], v[reps - 1]);
	fflush(stdout);
}

/* Prints the end marker; returns the exit status for main. */
static inline int bench_end(void)
{
	printf("# end %s status=%d\n", bench_prog, bench_status);
	fflush(stdout);
	return bench_status;
}

/* Nanoseconds per operation from a start time and an operation count. */
static inline double bench_ns_per_op(uint64_t start, long ops)
{
	return (double)(bench_now_ns() - start) / (double)ops;
}

#endif
