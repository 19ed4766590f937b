/*
 * Freestanding memory and string functions.  gcc may emit calls to memset,
 * memcpy, memmove and memcmp on its own, so these four must exist.
 *
 * memset and memcpy move 8 bytes per iteration of rep stosq / rep movsq:
 * under QEMU's TCG a rep-prefixed string instruction costs about the same
 * per iteration whatever its width, so the byte forms were 8 times slower
 * at zeroing and copying pages (the profiler showed memset on top of exec).
 */
#include <stdbool.h>
#include <stdint.h>
#include "lib/string.h"
#include <uapi/errno.h>

void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;
	size_t words = n / 8, tail = n % 8;
	uint64_t pattern = 0x0101010101010101UL * (uint8_t)c;

	asm volatile("rep stosq" : "+D"(dst), "+c"(words) : "a"(pattern) : "memory");
	asm volatile("rep stosb" : "+D"(dst), "+c"(tail) : "a"(pattern) : "memory");
	return ret;
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	void *ret = dst;
	size_t words = n / 8, tail = n % 8;

	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(words) : : "memory");
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(tail) : : "memory");
	return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlap with dst above src: copy backwards. */
	while (n--)
		d[n] = s[n];
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == (char)c)
			return (char *)s;
	return c ? NULL : (char *)s;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'z' ? c - 'a' + 10 : 99;
}

/* Linux's _parse_integer_fixup_radix: base 0 guessed from the prefix, and
 * a hex 0x prefix skipped. */
static const char *radix_prefix(const char *s, unsigned int *base)
{
	bool hex_prefix = s[0] == '0' && (s[1] | 0x20) == 'x' && digit_value(s[2]) < 16;

	if (!*base)
		*base = hex_prefix ? 16 : s[0] == '0' ? 8 : 10;
	return *base == 16 && hex_prefix ? s + 2 : s;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long v = 0;
	bool over = false;
	const char *p;
	int d;

	if (*s == '+')
		s++;
	s = radix_prefix(s, &base);
	/* Linux's order: past 64 bits, no digit, a stray character, then
	 * past 32 bits. */
	for (p = s; (d = digit_value(*p)) < (int)base; p++) {
		over |= v > (~0ULL - d) / base;
		v = over ? v : v * base + d;
	}
	if (over)
		return -ERANGE;
	if (p == s)
		return -EINVAL;
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	if (v > 0xffffffffULL)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}
