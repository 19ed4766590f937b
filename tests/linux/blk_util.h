/* What the block-device tests share: Linux's BLK* and LOOP_* requests and
 * structures (kernel/uapi/blkdev.h: musl has no <linux/loop.h>, and running
 * on the host checks the values are Linux's), a byte pattern to recognise
 * offsets by, and a loop device set up on a file (loop_bind). */
#ifndef LINUX_BLK_UTIL_H
#define LINUX_BLK_UTIL_H

#include "../../kernel/uapi/blkdev.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

/* A free loop device bound to the file img (LOOP_CONFIGURE with lo_flags,
 * LO_FLAGS_READ_ONLY or 0), its path in dev: its open fd (O_RDWR unless
 * read-only); the program stops if there is none.  LOOP_CLR_FD and a
 * close let it go. */
static inline int loop_bind(const char *img, uint32_t lo_flags, char *dev, size_t size)
{
	int mode = (lo_flags & LO_FLAGS_READ_ONLY) ? O_RDONLY : O_RDWR;
	int ctl = open("/dev/loop-control", O_RDWR), nr, fd, back;
	struct loop_config cfg = {0};

	nr = ctl >= 0 ? ioctl(ctl, LOOP_CTL_GET_FREE) : -1;
	close(ctl);
	snprintf(dev, size, "/dev/loop%d", nr);
	back = open(img, mode);
	fd = open(dev, mode);
	require(nr >= 0 && back >= 0 && fd >= 0, "a free loop device and the image");
	cfg.fd = (uint32_t)back;
	cfg.info.lo_flags = lo_flags;
	require(ioctl(fd, LOOP_CONFIGURE, &cfg) == 0, "LOOP_CONFIGURE");
	close(back);
	return fd;
}

#endif
