/*
 * Sockets (newlib has none): Linux values and layouts from kernel/uapi,
 * wrappers in libc/sys/socket.c.  Values go to the kernel untranslated.
 */
#ifndef _SYS_SOCKET_H
#define _SYS_SOCKET_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <uapi/socket.h>

/* SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_CLOFORK. */
#define UAPI_NO_FLAG_NAMES
#include <uapi/fcntl.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t socklen_t;
typedef uint16_t sa_family_t;

#define CMSG_ALIGN(len) (((len) + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1))
#define CMSG_SPACE(len) (CMSG_ALIGN(sizeof(struct cmsghdr)) + CMSG_ALIGN(len))
#define CMSG_LEN(len)	(CMSG_ALIGN(sizeof(struct cmsghdr)) + (len))
#define CMSG_DATA(cmsg) ((unsigned char *)(cmsg) + CMSG_ALIGN(sizeof(struct cmsghdr)))
#define CMSG_FIRSTHDR(msg)                                                                         \
	((msg)->msg_controllen >= sizeof(struct cmsghdr) ? (struct cmsghdr *)(msg)->msg_control    \
							 : (struct cmsghdr *)0)
#define CMSG_NXTHDR(msg, cmsg) __cmsg_nxthdr((msg), (cmsg))

/* The header after `cmsg` in `msg`'s control buffer, or NULL. */
static inline struct cmsghdr *__cmsg_nxthdr(const struct msghdr *msg, const struct cmsghdr *cmsg)
{
	const unsigned char *end = (const unsigned char *)msg->msg_control + msg->msg_controllen;
	const unsigned char *next = (const unsigned char *)cmsg + CMSG_ALIGN(cmsg->cmsg_len);

	if (cmsg->cmsg_len < sizeof(struct cmsghdr) ||
	    (size_t)(end - next) < sizeof(struct cmsghdr))
		return (struct cmsghdr *)0;
	return (struct cmsghdr *)next;
}

int socket(int domain, int type, int protocol);
int socketpair(int domain, int type, int protocol, int fds[2]);
int bind(int fd, const struct sockaddr *addr, socklen_t len);
int listen(int fd, int backlog);
int accept(int fd, struct sockaddr *addr, socklen_t *len);
int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int connect(int fd, const struct sockaddr *addr, socklen_t len);
ssize_t send(int fd, const void *buf, size_t len, int flags);
ssize_t recv(int fd, void *buf, size_t len, int flags);
ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t alen);
ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen);
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
int shutdown(int fd, int how);
int getsockname(int fd, struct sockaddr *addr, socklen_t *len);
int getpeername(int fd, struct sockaddr *addr, socklen_t *len);
int setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int getsockopt(int fd, int level, int name, void *val, socklen_t *len);

#ifdef __cplusplus
}
#endif
#endif
