/* AF_UNIX through musl: a socketpair (stream and datagram), sendmsg and
 * recvmsg with SCM_RIGHTS passing a descriptor (MSG_CMSG_CLOEXEC),
 * shutdown, and EPIPE with MSG_NOSIGNAL. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "testutil.h"

/* Send one byte with FD attached. */
static ssize_t send_fd(int sock, int fd)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} c = {0};
	struct iovec iov = {"F", 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.space,
			   .msg_controllen = sizeof c.space};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof fd);
	return sendmsg(sock, &m, 0);
}

/* Receive one byte and the descriptor with it; -1 if none came. */
static int recv_fd(int sock, int flags)
{
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(sizeof(int))];
	} c;
	char byte;
	int fd = -1;
	struct iovec iov = {&byte, 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = c.space,
			   .msg_controllen = sizeof c.space};

	if (recvmsg(sock, &m, flags) != 1)
		return -1;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof fd);
	return fd;
}

static void test_rights(void)
{
	int sv[2], p[2];
	char buf[8] = "";

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	require(pipe(p) == 0, "pipe");
	is_int(send_fd(sv[0], p[0]), 1, "sendmsg with SCM_RIGHTS");
	close(p[0]);
	int got = recv_fd(sv[1], 0);
	ok(got >= 0, "recvmsg returns a descriptor");
	write(p[1], "piped", 5);
	ok(read(got, buf, 5) == 5 && memcmp(buf, "piped", 5) == 0,
	   "the passed fd reads the pipe whose own fd was closed");
	is_int(fcntl(got, F_GETFD), 0, "without MSG_CMSG_CLOEXEC: no FD_CLOEXEC");
	close(got);
	send_fd(sv[0], p[1]);
	got = recv_fd(sv[1], MSG_CMSG_CLOEXEC);
	is_int(fcntl(got, F_GETFD), FD_CLOEXEC, "MSG_CMSG_CLOEXEC: FD_CLOEXEC");
	close(got);
	close(p[1]);

	ok(shutdown(sv[0], SHUT_WR) == 0 && read(sv[1], buf, 1) == 0,
	   "shutdown(SHUT_WR): peer reads EOF");
	close(sv[1]);
	is_errno(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "send to a closed peer: EPIPE");
	close(sv[0]);
}

static void test_dgram(void)
{
	int sv[2];
	char buf[16];

	require(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0, "dgram socketpair");
	is_int(fcntl(sv[0], F_GETFD), FD_CLOEXEC, "SOCK_CLOEXEC on socketpair");
	send(sv[0], "one", 3, 0);
	send(sv[0], "three", 5, 0);
	is_int(recv(sv[1], buf, sizeof buf, 0), 3, "datagrams keep their boundaries (1)");
	is_int(recv(sv[1], buf, sizeof buf, 0), 5, "datagrams keep their boundaries (2)");
	is_errno(recv(sv[1], buf, sizeof buf, MSG_DONTWAIT), EAGAIN, "empty, MSG_DONTWAIT: EAGAIN");
	close(sv[0]);
	close(sv[1]);
	is_errno(socketpair(AF_INET, SOCK_STREAM, 0, sv), EOPNOTSUPP,
		 "socketpair(AF_INET): EOPNOTSUPP");
}

int main(void)
{
	plan(12);
	test_rights();
	test_dgram();
	return done();
}
