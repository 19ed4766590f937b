/*
 * struct iovec for readv/writev/sendmsg/recvmsg, Linux x86_64 layout, and
 * preadv2/pwritev2 flags, shared by the kernel and libc/.
 */
#ifndef UAPI_UIO_H
#define UAPI_UIO_H

#ifndef UAPI_IOVEC_DEFINED
#define UAPI_IOVEC_DEFINED
struct iovec {
	void *iov_base;
	__SIZE_TYPE__ iov_len;
};
#endif

#define UIO_MAXIOV 1024 /* most iovecs one call takes (EINVAL beyond) */

/* preadv2/pwritev2 flags fdkernel takes (fs/read_write.c); others
 * EOPNOTSUPP. */
#define RWF_HIPRI  0x1
#define RWF_DSYNC  0x2
#define RWF_SYNC   0x4
#define RWF_NOWAIT 0x8
#define RWF_APPEND 0x10

#endif
