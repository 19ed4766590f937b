/*
 * struct iovec for readv/writev/sendmsg/recvmsg, Linux x86_64 layout, shared
 * by the kernel and libc/.
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

#endif
