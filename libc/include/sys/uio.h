/*
 * Vectored I/O (newlib has no <sys/uio.h>): struct iovec from kernel/uapi,
 * readv/writev from libc/sys/file.c.
 */
#ifndef _SYS_UIO_H
#define _SYS_UIO_H

#include <sys/types.h>
#include <uapi/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

ssize_t readv(int fd, const struct iovec *iov, int iovcnt);
ssize_t writev(int fd, const struct iovec *iov, int iovcnt);

#ifdef __cplusplus
}
#endif
#endif
