/*
 * A tiny TAP producer for the test programs: a plan, numbered ok/not ok
 * lines, skips and diagnostics.  Every line is flushed at once, so a fork()
 * never duplicates buffered output and runtests sees progress live.
 */
#ifndef USER_TAP_H
#define USER_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_planned, tap_count, tap_failed;

/* Announce how many assertions follow. */
static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/* Skip the whole program (e.g. the feature is missing) and exit. */
static inline void skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	fflush(stdout);
	exit(0);
}

/* A "# " line that TAP readers treat as a comment. */
static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

static inline int vok(int cond, const char *fmt, va_list ap)
{
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

/* One assertion; returns cond so callers can add diagnostics. */
static inline int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cond = vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* One assertion counted as skipped, with the reason. */
static inline void skip(const char *reason, const char *what)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_count, what, reason);
	fflush(stdout);
}

/* got == expected, showing both when they differ. */
static inline int is_int(long long got, long long expected, const char *fmt, ...)
{
	va_list ap;
	int cond = got == expected;

	va_start(ap, fmt);
	vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("got %lld, expected %lld", got, expected);
	return cond;
}

/* A failed call: ret == -1 and errno == expected (captured right after). */
static inline int is_errno(long ret, int expected, const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	int cond = ret == -1 && err == expected;

	va_start(ap, fmt);
	vok(cond, fmt, ap);
	va_end(ap);
	if (!cond)
		diag("got ret %ld errno %d (%s), expected -1 errno %d (%s)", ret, err,
		     strerror(err), expected, strerror(expected));
	return cond;
}

/* The exit status: 0 when every planned assertion ran and passed. */
static inline int done(void)
{
	if (tap_count != tap_planned)
		diag("planned %d assertions, ran %d", tap_planned, tap_count);
	return tap_failed || tap_count != tap_planned ? 1 : 0;
}

#endif
