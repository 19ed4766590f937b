/* A socket's own ioctl requests: FIONREAD (a stream's bytes ready, EINVAL
 * while listening; a datagram socket's next message length) on AF_UNIX
 * and loopback TCP and UDP; SIOCATMARK; SIOCOUTQ; the SIGIO owner
 * (FIOSETOWN, SIOCSPGRP, FIOGETOWN, SIOCGPGRP).  The interface requests
 * are sock_ifreq's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"

#ifndef SIOCOUTQ
#define SIOCOUTQ TIOCOUTQ /* Linux's sockios.h; musl has no name for it */
#endif

static int inq(int fd)
{
	int n = -1;

	return ioctl(fd, FIONREAD, &n) ? -1 : n;
}

static void wait_readable(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};

	poll(&p, 1, 10000);
}

static void test_unix(void)
{
	int sv[2], dg[2];
	char buf[16];

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 &&
		    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0,
		"socketpairs");
	is_int(inq(sv[1]), 0, "AF_UNIX stream, nothing sent: 0");
	require(write(sv[0], "hello", 5) == 5 && write(sv[0], "!!", 2) == 2, "write 5 + 2");
	is_int(inq(sv[1]), 7, "... 7 bytes ready");
	require(read(sv[1], buf, 3) == 3, "read 3");
	is_int(inq(sv[1]), 4, "... 4 left");
	require(write(dg[0], "abc", 3) == 3 && write(dg[0], "0123456789", 10) == 10, "send 3, 10");
	is_int(inq(dg[1]), 3, "AF_UNIX datagram: the first message's length");
	require(read(dg[1], buf, sizeof buf) == 3, "read it");
	is_int(inq(dg[1]), 10, "... then the next one's");
	require(read(dg[1], buf, sizeof buf) == 10, "read it");
	is_int(inq(dg[1]), 0, "... none left: 0");
	is_errno(ioctl(sv[1], FIONREAD, (int *)8), EFAULT, "a bad pointer: EFAULT");
	close(sv[0]), close(sv[1]), close(dg[0]), close(dg[1]);
}

static void test_inet(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), s;
	int u = socket(AF_INET, SOCK_DGRAM, 0), v = socket(AF_INET, SOCK_DGRAM, 0);

	require(l >= 0 && c >= 0 && bind(l, (void *)&a, sizeof a) == 0 && listen(l, 1) == 0 &&
		    getsockname(l, (void *)&a, &len) == 0,
		"a TCP listener on 127.0.0.1");
	is_errno(ioctl(l, FIONREAD, &(int){0}), EINVAL, "FIONREAD on a listener: EINVAL");
	require(connect(c, (void *)&a, sizeof a) == 0 && (s = accept(l, NULL, NULL)) >= 0,
		"connect, accept");
	require(write(c, "1234567", 7) == 7, "write 7");
	wait_readable(s);
	is_int(inq(s), 7, "TCP: the 7 bytes ready");
	a.sin_port = 0;
	len = sizeof a;
	require(u >= 0 && v >= 0 && bind(u, (void *)&a, sizeof a) == 0 &&
		    getsockname(u, (void *)&a, &len) == 0,
		"a UDP socket on 127.0.0.1");
	require(sendto(v, "xy", 2, 0, (void *)&a, sizeof a) == 2 &&
		    sendto(v, "abcdef", 6, 0, (void *)&a, sizeof a) == 6,
		"send 2, 6");
	wait_readable(u);
	is_int(inq(u), 2, "UDP: the first datagram's length");
	close(l), close(c), close(s), close(u), close(v);
}

/* No urgent data is ever pending here: TCP and AF_UNIX streams answer
 * 0; a UDP socket leaves SIOCATMARK to the interface requests (ENOTTY,
 * after reading an ifreq: EFAULT), an AF_UNIX datagram one refuses it. */
static void test_atmark(void)
{
	int t = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET6, SOCK_DGRAM, 0), sv[2], dg[2];
	int n = -1;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 &&
		    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0,
		"socketpairs");
	ok(ioctl(t, SIOCATMARK, &n) == 0 && n == 0, "SIOCATMARK on TCP: 0");
	is_errno(ioctl(t, SIOCATMARK, NULL), EFAULT, "... NULL: EFAULT");
	n = -1;
	require(write(sv[0], "ab", 2) == 2, "write 2");
	ok(ioctl(sv[1], SIOCATMARK, &n) == 0 && n == 0, "on an AF_UNIX stream with data: 0");
	is_errno(ioctl(u, SIOCATMARK, &n), ENOTTY, "on UDP: ENOTTY");
	is_errno(ioctl(u, SIOCATMARK, NULL), EFAULT, "... NULL: EFAULT");
	is_errno(ioctl(dg[0], SIOCATMARK, &n), EOPNOTSUPP,
		 "on an AF_UNIX datagram socket: EOPNOTSUPP");
	close(t), close(u), close(sv[0]), close(sv[1]), close(dg[0]), close(dg[1]);
}

static int outq(int fd)
{
	int n = -1;

	return ioctl(fd, SIOCOUTQ, &n) ? -1 : n;
}

/* TCP data MSG_MORE holds back is not sent yet: fdkernel only, as the
 * host sends it once a timer or Nagle says so. */
static void test_outq_tcp(int l)
{
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	int c = socket(AF_INET, SOCK_STREAM, 0), s;

	require(getsockname(l, (void *)&a, &len) == 0 && connect(c, (void *)&a, sizeof a) == 0 &&
		    (s = accept(l, NULL, NULL)) >= 0,
		"a TCP connection");
	is_int(outq(c), 0, "TCP, nothing sent: 0");
	if (on_fdkernel()) {
		require(send(c, "0123456789", 10, MSG_MORE) == 10, "10 bytes with MSG_MORE");
		is_int(outq(c), 10, "... held back: 10");
		require(send(c, "!", 1, 0) == 1, "1 more without it");
		is_int(outq(c), 0, "... all sent: 0");
	} else {
		skip("the host sends on its own timing", "TCP's held-back bytes");
		skip("the host sends on its own timing", "... sent");
	}
	close(c), close(s);
}

/* An unread AF_UNIX datagram outlives its sender, and one a socket sent
 * itself goes with it (the guest's leak check counts the sockets). */
static void test_outq_teardown(void)
{
	struct sockaddr_un self = {.sun_family = AF_UNIX, .sun_path = "\0sock_ioctl_self"};
	int dg[2], s = socket(AF_UNIX, SOCK_DGRAM, 0);
	char buf[8];

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0 && write(dg[0], "abc", 3) == 3,
		"a datagram sent");
	close(dg[0]);
	is_int(read(dg[1], buf, sizeof buf), 3, "read after its sender closed");
	close(dg[1]);
	require(s >= 0 && bind(s, (void *)&self, sizeof self) == 0, "an AF_UNIX datagram socket");
	ok(sendto(s, "me", 2, 0, (void *)&self, sizeof self) == 2 && outq(s) > 0,
	   "one sent to itself: charged");
	close(s);
}

/* SIOCOUTQ: what the receiver does not have yet.  AF_UNIX charges the
 * sender until the receiver reads (Linux: the messages' truesize, so only
 * "some" on the host; fdkernel counts a stream's bytes); a UDP cork holds
 * its datagram; TCP's connected queue is empty, a listener EINVAL. */
static void test_outq(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int sv[2], dg[2], l = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
	int one = 1, zero = 0, n;
	char buf[16];

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 &&
		    socketpair(AF_UNIX, SOCK_DGRAM, 0, dg) == 0,
		"socketpairs");
	is_int(outq(sv[0]), 0, "SIOCOUTQ on an AF_UNIX stream, nothing sent: 0");
	require(write(sv[0], "hello", 5) == 5, "write 5");
	n = outq(sv[0]);
	ok(on_fdkernel() ? n == 5 : n > 0, "... 5 unread: counted (%d)", n);
	require(read(sv[1], buf, sizeof buf) == 5, "the peer reads them");
	is_int(outq(sv[0]), 0, "... read: 0");
	require(write(dg[0], "0123456789", 10) == 10, "send a datagram");
	ok(outq(dg[0]) > 10, "AF_UNIX datagram unread: its cost");
	is_int(outq(dg[1]), 0, "... charged to the sender, not the receiver");
	require(read(dg[1], buf, sizeof buf) == 10, "the peer reads it");
	is_int(outq(dg[0]), 0, "... read: 0");
	test_outq_teardown();
	require(bind(l, (void *)&a, sizeof a) == 0 && listen(l, 1) == 0, "a TCP listener");
	is_errno(ioctl(l, SIOCOUTQ, &n), EINVAL, "SIOCOUTQ on a TCP listener: EINVAL");
	test_outq_tcp(l);
	is_errno(ioctl(sv[0], SIOCOUTQ, NULL), EFAULT, "NULL: EFAULT");
	require(connect(u, (void *)&a, sizeof a) == 0, "connect UDP to 127.0.0.1");
	is_int(outq(u), 0, "UDP, nothing sent: 0");
	require(setsockopt(u, IPPROTO_UDP, UDP_CORK, &one, sizeof one) == 0 &&
		    send(u, "abcdefgh", 8, 0) == 8,
		"8 bytes under UDP_CORK");
	ok(outq(u) >= 8, "... held: counted");
	require(setsockopt(u, IPPROTO_UDP, UDP_CORK, &zero, sizeof zero) == 0, "uncork");
	is_int(outq(u), 0, "... sent: 0");
	close(sv[0]), close(sv[1]), close(dg[0]), close(dg[1]), close(l), close(u);
}

/* FIOSETOWN/SIOCSPGRP set the owner F_SETOWN sets, read back by
 * FIOGETOWN/SIOCGPGRP and fcntl. */
static void test_owner(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), n = getpid(), got = 0;

	is_int(ioctl(fd, FIOSETOWN, &n), 0, "FIOSETOWN getpid()");
	ok(ioctl(fd, FIOGETOWN, &got) == 0 && got == n && fcntl(fd, F_GETOWN) == n,
	   "... FIOGETOWN and F_GETOWN read it");
	n = -getpgrp();
	is_int(ioctl(fd, SIOCSPGRP, &n), 0, "SIOCSPGRP -getpgrp()");
	ok(ioctl(fd, SIOCGPGRP, &got) == 0 && got == n, "... SIOCGPGRP reads it");
	n = 0x3ffffff0;
	is_errno(ioctl(fd, FIOSETOWN, &n), ESRCH, "no such process: ESRCH");
	is_errno(ioctl(fd, FIOSETOWN, NULL), EFAULT, "NULL: EFAULT");
	is_errno(ioctl(fd, FIOGETOWN, NULL), EFAULT, "FIOGETOWN NULL: EFAULT");
	close(fd);
}

int main(void)
{
	plan(39);
	test_unix();
	test_inet();
	test_atmark();
	test_outq();
	test_owner();
	return done();
}
