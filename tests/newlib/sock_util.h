/*
 * Helpers the sock_* tests share: one address type for AF_UNIX and AF_INET,
 * listening and connecting in one call, whole-buffer I/O.  AF_UNIX names
 * are /tmp/sk-<tag>-<pid>; inet sockets bind 127.0.0.1 port 0 (the host's
 * ports may be taken) and read the port back.
 */
#ifndef SOCK_UTIL_H
#define SOCK_UTIL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"

struct saddr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static const int families[2] = {AF_UNIX, AF_INET};

static inline const char *fam_name(int family)
{
	return family == AF_UNIX ? "unix" : "inet";
}

static inline const char *type_name(int type)
{
	return type == SOCK_STREAM ? "stream" : "dgram";
}

/* A fresh name for family: a unique /tmp path, or 127.0.0.1 port 0. */
static inline void saddr_make(struct saddr *a, int family, const char *tag)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_UNIX) {
		struct sockaddr_un *u = (struct sockaddr_un *)&a->ss;
		u->sun_family = AF_UNIX;
		snprintf(u->sun_path, sizeof(u->sun_path), "/tmp/sk-%s-%d", tag, (int)getpid());
		unlink(u->sun_path);
		a->len = sizeof(*u);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->len = sizeof(*in);
	}
}

/* Removes an AF_UNIX name (nothing for inet). */
static inline void saddr_drop(const struct saddr *a)
{
	if (a->ss.ss_family == AF_UNIX)
		unlink(((const struct sockaddr_un *)&a->ss)->sun_path);
}

/* A socket bound to a fresh name (stored in *a, inet port filled in), listening
 * if it is a stream socket; -1 on failure. */
static inline int sock_server(int family, int type, const char *tag, struct saddr *a)
{
	int fd = socket(family, type, 0);

	saddr_make(a, family, tag);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a->ss, a->len) < 0)
		return -1;
	if (family == AF_INET) {
		a->len = sizeof(a->ss);
		if (getsockname(fd, (struct sockaddr *)&a->ss, &a->len) < 0)
			return -1;
	}
	if (type == SOCK_STREAM && listen(fd, 16) < 0)
		return -1;
	return fd;
}

/* A socket of family/type connected to a: the fd or -1. */
static inline int sock_client(int family, int type, const struct saddr *a)
{
	int fd = socket(family, type, 0);

	if (fd < 0 || connect(fd, (const struct sockaddr *)&a->ss, a->len) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static inline bool write_all(int fd, const void *buf, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n <= 0)
			return false;
		done += n;
	}
	return true;
}

/* Reads exactly len bytes unless EOF or an error comes first: bytes read. */
static inline size_t read_all(int fd, void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			break;
		done += n;
	}
	return done;
}

#define SEND_FDS_MAX 16

/* Sends len bytes of data with n (<= SEND_FDS_MAX) fds attached in one
 * SCM_RIGHTS message: sendmsg's result. */
static inline ssize_t send_fds(int sock, const void *data, size_t len, const int *fds, int n)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(SEND_FDS_MAX * sizeof(int))];
	} ctl;
	struct iovec v = {(void *)data, len};
	struct msghdr m = {.msg_iov = &v,
			   .msg_iovlen = 1,
			   .msg_control = &ctl,
			   .msg_controllen = CMSG_SPACE(n * sizeof(int))};

	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_len = CMSG_LEN(n * sizeof(int));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	memcpy(CMSG_DATA(&ctl.h), fds, n * sizeof(int));
	return sendmsg(sock, &m, 0);
}

/* Waits for a child and says whether it exited 0. */
static inline bool child_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

#endif
