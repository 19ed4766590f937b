/*
 * Vectored I/O (newlib has no <sys/uio.h>): struct iovec from kernel/uapi,
 * readv/writev/preadv/pwritev(2) from libc/sys/file.c.
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
ssize_t preadv(int fd, const struct iovec *iov, int iovcnt, off_t offset);
ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset);
ssize_t preadv2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);
ssize_t pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t offset, int flags);

#ifdef __cplusplus
}
#endif
#endif
