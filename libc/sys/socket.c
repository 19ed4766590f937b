/*
 * Socket calls: thin wrappers, values are Linux's (<sys/socket.h> is ours).
 * socket2() is fdkernel's: its flags are open flags (O_NONSEQFD,
 * O_CLOEXEC, O_CLOFORK, O_NONBLOCK), translated like open()'s.
 */
#include <fdkernel.h>
#include <sys/socket.h>

#include "syscall.h"
#include "translate.h"

int socket(int domain, int type, int protocol)
{
	return sys_call(__NR_socket, domain, type, protocol);
}

int socket2(int domain, int type, int protocol, int flags)
{
	long lflags = open_flags_to_linux(flags);

	if (lflags < 0)
		return -1;
	return sys_call(__NR_socket2, domain, type, protocol, lflags);
}

int socketpair(int domain, int type, int protocol, int fds[2])
{
	return sys_call(__NR_socketpair, domain, type, protocol, fds);
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return sys_call(__NR_bind, fd, addr, len);
}

int listen(int fd, int backlog)
{
	return sys_call(__NR_listen, fd, backlog);
}

int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sys_call(__NR_accept, fd, addr, len);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	return sys_call(__NR_accept4, fd, addr, len, flags);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	return sys_call(__NR_connect, fd, addr, len);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
	       socklen_t alen)
{
	return sys_call(__NR_sendto, fd, buf, len, flags, addr, alen);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen)
{
	return sys_call(__NR_recvfrom, fd, buf, len, flags, addr, alen);
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	return sys_call(__NR_sendmsg, fd, msg, flags);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	return sys_call(__NR_recvmsg, fd, msg, flags);
}

int shutdown(int fd, int how)
{
	return sys_call(__NR_shutdown, fd, how);
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sys_call(__NR_getsockname, fd, addr, len);
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len)
{
	return sys_call(__NR_getpeername, fd, addr, len);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	return sys_call(__NR_setsockopt, fd, level, name, val, len);
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	return sys_call(__NR_getsockopt, fd, level, name, val, len);
}
