/* What the block-device tests share: Linux's BLK* and LOOP_* requests and
 * structures (kernel/uapi/blkdev.h: musl has no <linux/loop.h>, and running
 * on the host checks the values are Linux's), a byte pattern to recognise
 * offsets by, and a loop device set up on a file. */
#ifndef LINUX_BLK_UTIL_H
#define LINUX_BLK_UTIL_H

#include "../../kernel/uapi/blkdev.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

#endif
