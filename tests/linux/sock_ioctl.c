/* A socket's own ioctl requests: FIONREAD (a stream's bytes ready, EINVAL
 * while listening; a datagram socket's next message length) on AF_UNIX
 * and loopback TCP and UDP; SIOCATMARK.  The interface requests are
 * sock_ifreq's. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

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

int main(void)
{
	plan(16);
	test_unix();
	test_inet();
	test_atmark();
	return done();
}
