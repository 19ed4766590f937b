/*
 * In-kernel self-tests (command-line word `test`): TAP lines on the console
 * and a running count that kmain turns into the "N passed, N failed" line.
 */
#ifndef LIB_KTEST_H
#define LIB_KTEST_H

#include <stdbool.h>

struct ktest_counts {
	int passed;
	int failed;
};
extern struct ktest_counts ktest_counts;

/* Prints "ok N - desc" or "not ok N - desc" and counts it; returns cond. */
bool ktest_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define KTEST_OK(cond, ...) ktest_ok(!!(cond), __VA_ARGS__)

#endif
