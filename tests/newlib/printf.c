/*
 * The printf family: long long, size_t, floating point, widths and the
 * return value of a truncated snprintf.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

static int same(const char *got, const char *expected)
{
	if (strcmp(got, expected) == 0)
		return 1;
	diag("got \"%s\", expected \"%s\"", got, expected);
	return 0;
}

int main(void)
{
	char buf[128];
	volatile size_t small = 4; /* hides the truncation from the compiler */

	plan(10);
	snprintf(buf, sizeof(buf), "%lld %lld", 9223372036854775807LL, -42LL);
	ok(same(buf, "9223372036854775807 -42"), "%%lld");
	snprintf(buf, sizeof(buf), "%zu %zd", (size_t)18446744073709551615ULL, (ssize_t)-7);
	ok(same(buf, "18446744073709551615 -7"), "%%zu and %%zd");
	snprintf(buf, sizeof(buf), "%f %.2f %e", 3.5, -0.126, 12345.678);
	ok(same(buf, "3.500000 -0.13 1.234568e+04"), "%%f and %%e");
	snprintf(buf, sizeof(buf), "[%5d|%-5d|%05d]", 42, 42, 42);
	ok(same(buf, "[   42|42   |00042]"), "widths and flags");
	snprintf(buf, sizeof(buf), "%x %X %o %#x", 255u, 255u, 8u, 16u);
	ok(same(buf, "ff FF 10 0x10"), "hex and octal");
	snprintf(buf, sizeof(buf), "%s|%.3s|%c", "hello", "abcdef", 'z');
	ok(same(buf, "hello|abc|z"), "strings and chars");
	snprintf(buf, sizeof(buf), "%jd %" PRIu64, (intmax_t)-1, UINT64_MAX);
	ok(same(buf, "-1 18446744073709551615"), "%%jd and PRIu64");
	is_int(snprintf(buf, small, "abcdef"), 6, "truncated snprintf returns the full length");
	ok(same(buf, "abc"), "truncated snprintf terminates the buffer");
	is_int(printf("# printed to stdout\n"), 20, "printf returns the byte count");
	return done();
}
