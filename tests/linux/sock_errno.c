/* Socket errnos LTP found wrong (socket01, socketpair01, recv01,
 * recvfrom01, recvmsg01, send01, sendto01, getsockname01): the family's
 * type and protocol checks, MSG_OOB and MSG_ERRQUEUE on each kind of
 * socket, msg_namelen, a bad buffer for a datagram nobody receives, and
 * address results written only where there is something to write. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "inet_pair.h"
#include "testutil.h"

static void test_socket_types(void)
{
	int sv[2], s, v;
	socklen_t len = sizeof v;

	is_errno(socket(AF_INET, SOCK_RAW, 0), EPROTONOSUPPORT,
		 "inet SOCK_RAW protocol 0: EPROTONOSUPPORT");
	is_errno(socket(AF_INET, SOCK_STREAM, IPPROTO_UDP), EPROTONOSUPPORT,
		 "inet stream, UDP: EPROTONOSUPPORT");
	is_errno(socket(AF_INET, SOCK_DGRAM, IPPROTO_TCP), EPROTONOSUPPORT,
		 "inet datagram, TCP: EPROTONOSUPPORT");
	is_errno(socket(AF_INET, SOCK_STREAM, 1), EPROTONOSUPPORT,
		 "inet stream, ICMP: EPROTONOSUPPORT");
	is_errno(socket(AF_INET, SOCK_SEQPACKET, 0), ESOCKTNOSUPPORT,
		 "inet SOCK_SEQPACKET: ESOCKTNOSUPPORT");
	is_errno(socket(AF_INET, SOCK_SEQPACKET, 300), EINVAL,
		 "inet protocol 300: EINVAL before the type");
	is_errno(socket(AF_INET, SOCK_STREAM, -1), EINVAL, "inet protocol -1: EINVAL");
	is_errno(socket(AF_INET, 75, 0), EINVAL, "type 75: EINVAL");
	is_errno(socket(AF_UNIX, SOCK_STREAM, 2), EPROTONOSUPPORT,
		 "unix protocol 2: EPROTONOSUPPORT");
	is_errno(socket(AF_UNIX, 7, 2), EPROTONOSUPPORT,
		 "unix: the protocol is checked before the type");
	is_errno(socket(AF_UNIX, 4 /* SOCK_RDM */, 0), ESOCKTNOSUPPORT,
		 "unix SOCK_RDM: ESOCKTNOSUPPORT");

	s = socket(AF_UNIX, SOCK_RAW, 0);
	ok(s >= 0 && getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &len) == 0 && v == SOCK_DGRAM,
	   "unix SOCK_RAW makes a datagram socket");
	close(s);

	is_errno(socketpair(AF_INET, SOCK_RAW, 0, sv), EPROTONOSUPPORT,
		 "socketpair inet SOCK_RAW: EPROTONOSUPPORT");
	is_errno(socketpair(AF_INET, SOCK_DGRAM, IPPROTO_TCP, sv), EPROTONOSUPPORT,
		 "socketpair inet datagram, TCP: EPROTONOSUPPORT");
	is_errno(socketpair(AF_INET, SOCK_STREAM, IPPROTO_TCP, sv), EOPNOTSUPP,
		 "socketpair inet TCP: EOPNOTSUPP");
	is_errno(socketpair(AF_INET, SOCK_STREAM, 1, sv), EPROTONOSUPPORT,
		 "socketpair inet stream, ICMP: EPROTONOSUPPORT");
}

static void test_oob_errqueue(void)
{
	int c, a, sv[2], s, u;
	char buf[16];

	tcp_pair(&c, &a);
	require(write(c, "data", 4) == 4, "write");
	is_errno(recv(a, buf, sizeof buf, MSG_OOB), EINVAL,
		 "TCP recv MSG_OOB without urgent data: EINVAL");
	is_errno(recv(a, buf, sizeof buf, MSG_ERRQUEUE), EAGAIN, "TCP recv MSG_ERRQUEUE: EAGAIN");
	is_int(recv(a, buf, sizeof buf, 0), 4, "the data is still there");
	close(c);
	close(a);

	s = socket(AF_INET, SOCK_STREAM, 0);
	is_errno(recv(s, buf, sizeof buf, MSG_OOB), EINVAL, "unconnected TCP recv MSG_OOB: EINVAL");
	is_errno(recv(s, buf, sizeof buf, MSG_ERRQUEUE), EAGAIN,
		 "unconnected TCP MSG_ERRQUEUE: EAGAIN");
	is_errno(recv(s, buf, sizeof buf, 0), ENOTCONN, "unconnected TCP recv: ENOTCONN");
	close(s);

	u = socket(AF_INET, SOCK_DGRAM, 0);
	is_errno(send(u, buf, 8, MSG_OOB), EOPNOTSUPP, "UDP send MSG_OOB: EOPNOTSUPP");
	is_errno(recv(u, buf, sizeof buf, MSG_OOB | MSG_DONTWAIT), EAGAIN,
		 "UDP recv ignores MSG_OOB");
	is_errno(recv(u, buf, sizeof buf, MSG_ERRQUEUE), EAGAIN, "UDP recv MSG_ERRQUEUE: EAGAIN");
	close(u);

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	is_errno(recv(sv[0], buf, sizeof buf, MSG_OOB | MSG_DONTWAIT), EINVAL,
		 "unix stream recv MSG_OOB without urgent data: EINVAL");
	is_errno(recv(sv[0], buf, sizeof buf, MSG_ERRQUEUE | MSG_DONTWAIT), EAGAIN,
		 "unix ignores MSG_ERRQUEUE (an empty read)");
	close(sv[0]);
	close(sv[1]);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	is_errno(recv(s, buf, sizeof buf, MSG_DONTWAIT), EINVAL,
		 "unconnected unix stream recv: EINVAL");
	is_errno(send(s, buf, 1, MSG_OOB | MSG_NOSIGNAL), ENOTCONN,
		 "unconnected unix send MSG_OOB: ENOTCONN");
	close(s);

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "dgram socketpair");
	is_errno(send(sv[0], buf, 8, MSG_OOB), EOPNOTSUPP,
		 "unix datagram send MSG_OOB: EOPNOTSUPP");
	is_errno(recv(sv[1], buf, sizeof buf, MSG_OOB | MSG_DONTWAIT), EOPNOTSUPP,
		 "unix datagram recv MSG_OOB: EOPNOTSUPP");
	close(sv[0]);
	close(sv[1]);
}

static void test_msghdr(void)
{
	int sv[2];
	char buf[16];
	struct sockaddr_storage from;
	struct iovec iov = {buf, sizeof buf};
	struct msghdr m = {.msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1};

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	require(send(sv[0], "x", 1, 0) == 1, "send");
	m.msg_namelen = -1;
	is_errno(recvmsg(sv[1], &m, MSG_DONTWAIT), EINVAL, "recvmsg msg_namelen -1: EINVAL");
	m.msg_namelen = 100000;
	is_int(recvmsg(sv[1], &m, MSG_DONTWAIT), 1,
	       "recvmsg: a huge msg_namelen is cut, not refused");
	m.msg_name = NULL;
	m.msg_namelen = -1;
	require(send(sv[0], "y", 1, 0) == 1, "send");
	is_int(recvmsg(sv[1], &m, MSG_DONTWAIT), 1, "msg_namelen -1 without msg_name: ignored");
	close(sv[0]);
	close(sv[1]);
}

static void test_addresses(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sin;
	int u = socket(AF_INET, SOCK_DGRAM, 0), s, c, a;
	char buf[8];

	/* Nobody is bound to the port, yet the data is read first. */
	require(bind(u, (struct sockaddr *)&sin, sizeof sin) == 0 &&
		    getsockname(u, (struct sockaddr *)&sin, &len) == 0,
		"bind");
	close(u);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	is_errno(sendto(u, (void *)-1, 8, 0, (struct sockaddr *)&sin, sizeof sin), EFAULT,
		 "UDP sendto a bad buffer to a port nobody has: EFAULT");
	len = sizeof sin;
	is_errno(getsockname(u, NULL, &len), EFAULT, "getsockname with a NULL address: EFAULT");
	len = 0;
	is_int(getsockname(u, NULL, &len), 0, "getsockname with length 0 writes no address");
	is_errno(getsockname(u, (struct sockaddr *)&sin, (socklen_t *)1), EFAULT,
		 "getsockname, unaligned bad length pointer: EFAULT");
	close(u);

	s = socket(AF_INET, SOCK_STREAM, 0);
	len = sizeof sin;
	is_errno(recvfrom(s, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)-1, &len), ENOTCONN,
		 "unconnected TCP recvfrom: ENOTCONN before the address");
	close(s);
	tcp_pair(&c, &a);
	require(write(c, "abc", 3) == 3, "write");
	len = sizeof sin;
	is_int(recvfrom(a, buf, sizeof buf, 0, (struct sockaddr *)-1, &len), 3,
	       "TCP recvfrom: no address, so a bad address pointer is not touched");
	is_int(len, 0, "TCP recvfrom: address length 0");
	close(c);
	close(a);
}

int main(void)
{
	plan(41);
	test_socket_types();
	test_oob_errqueue();
	test_msghdr();
	test_addresses();
	return done();
}
