/*
 * stdlib conversions and sorting: strtol (bases, end pointer, ERANGE),
 * strtod, qsort, snprintf into small buffers.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	char *end;
	int v[1000], sorted = 1;

	plan(11);
	is_int(strtol("12345", &end, 10), 12345, "strtol decimal");
	ok(*end == '\0', "end pointer at the end");
	is_int(strtol("0x1f", NULL, 0), 31, "base 0 reads hex");
	is_int(strtol("0755", NULL, 0), 0755, "base 0 reads octal");
	is_int(strtol("  -42xyz", &end, 10), -42, "leading spaces, sign, trailing junk");
	ok(strcmp(end, "xyz") == 0, "end pointer at the junk");
	errno = 0;
	is_int(strtol("99999999999999999999", NULL, 10), LONG_MAX, "overflow clamps to LONG_MAX");
	is_int(errno, ERANGE, "overflow sets ERANGE");
	ok(strtod("2.5e3", NULL) == 2500.0, "strtod");

	for (int i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000 - 500;
	qsort(v, 1000, sizeof(int), cmp_int);
	for (int i = 1; i < 1000; i++)
		sorted &= v[i - 1] <= v[i];
	ok(sorted && v[0] == -500 && v[999] == 499, "qsort of 1000 ints");

	char buf[8];
	volatile size_t size = sizeof(buf); /* hides the truncation from the compiler */
	snprintf(buf, size, "%d-%s", 123, "abcdefgh");
	ok(strcmp(buf, "123-abc") == 0, "snprintf truncates to the buffer");
	return done();
}
