/* What the block-device tests share: Linux's BLK* and LOOP_* requests and
 * structures (kernel/uapi/blkdev.h: musl has no <linux/loop.h>, and running
 * on the host checks the values are Linux's), a byte pattern to recognise
 * offsets by, and a loop device set up on a file. */
#ifndef LINUX_BLK_UTIL_H
#define LINUX_BLK_UTIL_H

#include "../../kernel/uapi/blkdev.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The byte at offset off of a test file: different in every sector. */
static inline char pattern_byte(uint64_t off)
{
	return (char)(off * 7 + off / 512 * 13 + 1);
}

static inline void fill_pattern(char *buf, size_t len, uint64_t off)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern_byte(off + i);
}

/* The number in a /sys file, or -1 (missing, unreadable). */
static inline long long sys_number(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline long long sys_number(const char *fmt, ...)
{
	char path[128], text[32];
	va_list ap;
	long n;

	va_start(ap, fmt);
	vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	n = read_text(path, text, sizeof text);
	return n > 0 ? strtoll(text, NULL, 10) : -1;
}

#endif
