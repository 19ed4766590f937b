/* What the fd and pipe tests share: the fdkernel-only flags and how they
 * skip on Linux, bad pointers and fds, and the lowest free fd as a leak probe. */
#ifndef FD_UTIL_H
#define FD_UTIL_H

#define _GNU_SOURCE /* pipe2, dup3 */
#include <fcntl.h>
#include <fdkernel.h>
#include <unistd.h>

#include "testutil.h"

#define KERNEL_PTR ((void *)0xffffffff80001000UL) /* in the kernel half */
#define GAP_FD	   (1 << 29)			  /* between the two fd areas */
#define NOT_LINUX  "fdkernel-only (O_CLOFORK, O_NONSEQFD...): not on Linux"

/* /dev/null opened read-write with extra open flags. */
static inline int open_null(int oflags)
{
	return open("/dev/null", O_RDWR | oflags);
}

/* The fd the next plain open gets: a failed call must leave it unchanged. */
static inline int next_fd(void)
{
	int fd = open_null(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* A nonseq fd: at or above NONSEQ_FD_BASE. */
static inline bool nonseq(int fd)
{
	return fd >= NONSEQ_FD_BASE;
}

/* One assertion, or a skip on Linux for checks only fdkernel can pass. */
static inline bool fdk_only(const char *what)
{
	if (on_fdkernel())
		return true;
	skip(NOT_LINUX, what);
	return false;
}

#endif
