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
 * timed out, never as a number.  Rows fd_<pattern>_<nfds> (ns per
 * alloc+close) are also drawn in docs/bench-fd.png.
 *
 * BENCH_ROWS (make bench) reaches the guest as the file BENCH_ROWS_FILE: a
 * list of row names, a trailing '*' matching any suffix.  Rows it does not
 * name are left out of the plan and not run; no file runs every row.
 */

#define BENCH_MAX_REPS 64

#define BENCH_ROWS_FILE "/etc/bench-rows"

static const char *bench_prog;
static int bench_status;

/* Whether PATTERN (one word of BENCH_ROWS_FILE, LEN bytes) names row NAME. */
static inline int bench_row_matches(const char *pattern, size_t len, const char *name)
{
	if (len > 0 && pattern[len - 1] == '*')
		return strncmp(pattern, name, len - 1) == 0;
	return strlen(name) == len && strncmp(pattern, name, len) == 0;
}

/* Whether row NAME is to be run: named in BENCH_ROWS_FILE, or no such file.
 * The file is read once, at the first call. */
static inline int bench_wanted(const char *name)
{
	static char rows[1024];
	static int state; /* 0: not read yet, 1: every row, 2: the rows listed */
	const char *sep = ", \t\n";

	if (state == 0) {
		FILE *f = fopen(BENCH_ROWS_FILE, "r");
		size_t n = f ? fread(rows, 1, sizeof rows - 1, f) : 0;
		rows[n] = '\0';
		state = n > strspn(rows, sep) ? 2 : 1;
		if (f)
			fclose(f);
	}
	if (state == 1)
		return 1;
	for (const char *w = rows + strspn(rows, sep); *w; w += strspn(w, sep)) {
		size_t len = strcspn(w, sep);
		if (bench_row_matches(w, len, name))
			return 1;
		w += len;
	}
	return 0;
}

/* Monotonic time in nanoseconds. */
static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define BENCH_NAME_MAX 64

/* The next name of the comma-separated list at *r into name (BENCH_NAME_MAX
 * bytes), *r moved past it; false at the list's end. */
static inline int bench_next_row(const char **r, char *name)
{
	size_t len = strcspn(*r, ",");

	if (!**r)
		return 0;
	snprintf(name, BENCH_NAME_MAX, "%.*s", (int)len, *r);
	*r += len + ((*r)[len] == ',');
	return 1;
}

/* Prints the plan: PROG's name and those of its comma-separated ROWS that
 * are wanted. */
static inline void bench_begin(const char *prog, const char *rows)
{
	const char *comma = "";
	char name[BENCH_NAME_MAX];

	bench_prog = prog;
	printf("# bench %s rows=", prog);
	while (bench_next_row(&rows, name))
		if (bench_wanted(name)) {
			printf("%s%s", comma, name);
			comma = ",";
		}
	printf("\n");
	fflush(stdout);
}

/* Whether any of the comma-separated ROWS is wanted. */
static inline int bench_any_wanted(const char *rows)
{
	char name[BENCH_NAME_MAX];

	while (bench_next_row(&rows, name))
		if (bench_wanted(name))
			return 1;
	return 0;
}

/* Row NAME cannot be measured on this kernel (not a failure): "n/a" in the table. */
static inline __attribute__((format(printf, 2, 3))) void bench_skip(const char *name,
								    const char *fmt, ...)
{
	va_list ap;
	if (!bench_wanted(name))
		return;
	printf("# SKIP name=%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Every one of the comma-separated ROWS cannot be measured, for WHY. */
static inline void bench_skip_rows(const char *rows, const char *why)
{
	char name[BENCH_NAME_MAX];

	while (bench_next_row(&rows, name))
		bench_skip(name, "%s", why);
}

/* Reports row NAME as not measured, with a printf-style reason. */
static inline __attribute__((format(printf, 2, 3))) void bench_fail(const char *name,
								    const char *fmt, ...)
{
	va_list ap;
	if (!bench_wanted(name))
		return;
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
 * prints row NAME's median and spread.  ARG is passed through.  Does nothing
 * for a row that is not wanted.
 */
static inline void bench_row(const char *name, const char *unit, int reps,
			     double (*one_rep)(const char *name, void *arg), void *arg)
{
	double v[BENCH_MAX_REPS];

	if (!bench_wanted(name))
		return;

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
