/*
 * SCM_RIGHTS: fds passed between processes over AF_UNIX (stream and
 * datagram), used by the receiver; MSG_CMSG_CLOEXEC / MSG_CMSG_CLOFORK,
 * MSG_CTRUNC, fds dropped with an unread message, and bad control data.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "sock_util.h"

#define MAXFDS 4

/* Receives one byte and up to room fds (control room for that many): how
 * many fds came (into fds), or -1; msg_flags into *mflags. */
static int recv_fds(int sock, int *fds, int room, int flags, int *mflags)
{
	char buf[CMSG_SPACE(MAXFDS * sizeof(int))] __attribute__((aligned(8)));
	char byte;
	struct iovec v = {&byte, 1};
	struct msghdr m = {.msg_iov = &v,
			   .msg_iovlen = 1,
			   .msg_control = room ? buf : NULL,
			   .msg_controllen = room ? CMSG_SPACE(room * sizeof(int)) : 0};

	if (recvmsg(sock, &m, flags) != 1)
		return -1;
	*mflags = m.msg_flags;
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	if (!h || h->cmsg_type != SCM_RIGHTS)
		return 0;
	int n = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	memcpy(fds, CMSG_DATA(h), n * sizeof(int));
	return n;
}

/* A child receives a pipe's read end over sock and reads the message from it. */
static void test_pass_pipe(int type)
{
	int sv[2], pp[2];

	require(socketpair(AF_UNIX, type, 0, sv) == 0, "socketpair");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int fd, fl;
		char buf[32] = {0};
		close(sv[0]);
		if (recv_fds(sv[1], &fd, 1, 0, &fl) != 1)
			_exit(1);
		_exit(read(fd, buf, sizeof(buf)) == 12 && !strcmp(buf, "through pipe") ? 0 : 2);
	}
	close(sv[1]);
	require(pipe(pp) == 0, "pipe");
	ok(send_fds(sv[0], "F", 1, &pp[0], 1) == 1, "%s: sendmsg with a pipe's read end",
	   type_name(type));
	close(pp[0]);
	write(pp[1], "through pipe", 12);
	ok(child_ok(pid), "%s: the receiving process reads the pipe through its new fd",
	   type_name(type));
	close(pp[1]);
	close(sv[0]);
}

/* The fd flags a received fd gets from recvmsg's flags. */
static void test_cmsg_flags(void)
{
	int sv[2], fd = -1, fl;
	int null = open("/dev/null", O_RDONLY);

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	send_fds(sv[0], "F", 1, &null, 1);
	ok(recv_fds(sv[1], &fd, 1, 0, &fl) == 1 && fcntl(fd, F_GETFD) == 0,
	   "received fd: no fd flags by default");
	close(fd);
	send_fds(sv[0], "F", 1, &null, 1);
	ok(recv_fds(sv[1], &fd, 1, MSG_CMSG_CLOEXEC, &fl) == 1 && fcntl(fd, F_GETFD) == FD_CLOEXEC,
	   "MSG_CMSG_CLOEXEC: FD_CLOEXEC");
	close(fd);
	if (on_fdkernel()) {
		send_fds(sv[0], "F", 1, &null, 1);
		ok(recv_fds(sv[1], &fd, 1, MSG_CMSG_CLOFORK, &fl) == 1 &&
		       fcntl(fd, F_GETFD) == FD_CLOFORK,
		   "MSG_CMSG_CLOFORK: FD_CLOFORK");
		close(fd);
	} else {
		skip("fdkernel-only", "MSG_CMSG_CLOFORK: FD_CLOFORK");
	}
	close(null);
	close(sv[0]);
	close(sv[1]);
}

static void test_ctrunc(void)
{
	int sv[2], fds[3], got[MAXFDS], fl = 0;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	for (int i = 0; i < 3; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	send_fds(sv[0], "F", 1, fds, 3);
	int n = recv_fds(sv[1], got, 1, 0, &fl);
	ok(n >= 1 && n < 3 && (fl & MSG_CTRUNC),
	   "room for fewer than 3 fds: some arrive, MSG_CTRUNC");
	for (int i = 0; i < n; i++)
		close(got[i]);
	send_fds(sv[0], "F", 1, fds, 3);
	fl = 0;
	ok(recv_fds(sv[1], got, 0, 0, &fl) == 0 && (fl & MSG_CTRUNC),
	   "no control buffer: the fds are dropped, MSG_CTRUNC");
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	close(sv[0]);
	close(sv[1]);
}

/* fds in a message nobody reads are released when the receiver closes. */
static void test_unread(void)
{
	int sv[2], pp[2];
	char b;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(pp) == 0, "set-up");
	send_fds(sv[0], "F", 1, &pp[1], 1);
	close(pp[1]);
	close(sv[1]);
	close(sv[0]);
	is_int(read(pp[0], &b, 1), 0,
	       "the pipe's write end in an unread message is closed with the socket (EOF)");
	close(pp[0]);
}

static void test_bad(void)
{
	int sv[2], bad = 9999, null = open("/dev/null", O_RDONLY);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct saddr a;
	int r = sock_server(AF_INET, SOCK_DGRAM, "", &a);

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	is_errno(send_fds(sv[0], "F", 1, &bad, 1), EBADF, "SCM_RIGHTS with a closed fd: EBADF");
	struct cmsghdr h = {.cmsg_len = 64, .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS};
	struct iovec v = {"x", 1};
	struct msghdr m = {
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = &h, .msg_controllen = sizeof(h)};
	is_errno(sendmsg(sv[0], &m, 0), EINVAL, "cmsg_len past the control buffer: EINVAL");
	h.cmsg_len = sizeof(h);
	h.cmsg_type = 77;
	is_errno(sendmsg(sv[0], &m, 0), EINVAL, "unknown SOL_SOCKET control message: EINVAL");
	connect(u, (struct sockaddr *)&a.ss, a.len);
	is_int(send_fds(u, "F", 1, &null, 1), 1, "SCM_RIGHTS over AF_INET: ignored, as Linux");
	close(u);
	close(r);
	close(null);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(4 + 3 + 2 + 1 + 4);
	test_pass_pipe(SOCK_STREAM);
	test_pass_pipe(SOCK_DGRAM);
	test_cmsg_flags();
	test_ctrunc();
	test_unread();
	test_bad();
	return done();
}
