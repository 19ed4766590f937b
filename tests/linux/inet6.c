/* AF_INET6 on loopback (recvmsg02, setsockopt02 and programs that try ::1
 * first): stream and datagram sockets on ::1 and ::, names in sockaddr_in6
 * form, dual-stack (IPv4 peers of a socket on :: appear v4-mapped) unless
 * IPV6_V6ONLY, one port space with IPv4, address checks, ECONNREFUSED,
 * and getaddrinfo("localhost"). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

static struct sockaddr_in6 addr6(const char *text, unsigned short port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port)};

	inet_pton(AF_INET6, text, &a.sin6_addr);
	return a;
}

static bool is_addr6(const struct sockaddr_in6 *a, const char *text)
{
	struct in6_addr want;

	inet_pton(AF_INET6, text, &want);
	return a->sin6_family == AF_INET6 && memcmp(&a->sin6_addr, &want, sizeof want) == 0;
}

/* A listener of family fam (AF_INET or AF_INET6) on addr (text) port 0,
 * v6only if asked; its port in *port. */
static int listener(int fam, const char *addr, int v6only, unsigned short *port)
{
	struct sockaddr_storage ss = {0};
	socklen_t len = fam == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int l = socket(fam, SOCK_STREAM, 0);

	if (fam == AF_INET6) {
		*(struct sockaddr_in6 *)&ss = addr6(addr, 0);
		setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;
		in->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &in->sin_addr);
	}
	require(l >= 0 && bind(l, (struct sockaddr *)&ss, len) == 0 && listen(l, 4) == 0 &&
		    getsockname(l, (struct sockaddr *)&ss, &len) == 0,
		"listener");
	*port = ntohs(((struct sockaddr_in *)&ss)->sin_port); /* same offset in both */
	return l;
}

static void test_checks(void)
{
	int s = socket(AF_INET6, SOCK_STREAM, 0), v = -1;
	struct sockaddr_in6 a = addr6("::1", 0), got;
	struct sockaddr_in in = {.sin_family = AF_INET};
	socklen_t len = sizeof got;

	ok(s >= 0, "socket(AF_INET6, SOCK_STREAM)");
	ok(getsockname(s, (struct sockaddr *)&got, &len) == 0 && len == sizeof got &&
	       is_addr6(&got, "::") && got.sin6_port == 0,
	   "unbound: :: port 0, 28 bytes");
	len = sizeof v;
	ok(getsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len) == 0 && v == 0,
	   "IPV6_V6ONLY starts off");
	is_errno(bind(s, (struct sockaddr *)&a, 23), EINVAL, "bind with 23 bytes: EINVAL");
	is_errno(bind(s, (struct sockaddr *)&in, sizeof in), EINVAL,
		 "bind to a (16-byte) sockaddr_in: EINVAL");
	a.sin6_family = AF_INET;
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EAFNOSUPPORT,
		 "bind, family AF_INET: EAFNOSUPPORT");
	a = addr6("2001:db8::1", 0);
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EADDRNOTAVAIL,
		 "bind to 2001:db8::1: EADDRNOTAVAIL");
	a = addr6("fe80::1", 0);
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), EINVAL,
		 "link-local without a scope: EINVAL");
	a = addr6("2001:db8::1", 9); /* Off loopback there is no route; a host with an IPv6 network
					may say EHOSTUNREACH. */
	ok(connect(s, (struct sockaddr *)&a, sizeof a) == -1 &&
	       (errno == ENETUNREACH || (errno == EHOSTUNREACH && !on_fdkernel())),
	   "connect off loopback: ENETUNREACH");
	close(s);
	s = socket(AF_INET6, SOCK_STREAM, 0);
	a = addr6("fe80::1", 0);
	a.sin6_scope_id = 1000;
	is_errno(bind(s, (struct sockaddr *)&a, sizeof a), ENODEV,
		 "link-local, no such interface: ENODEV");
	close(s);
	s = socket(AF_INET6, SOCK_STREAM, 0);
	a = addr6("::1", 0);
	ok(bind(s, (struct sockaddr *)&a, 24) == 0, "bind with the 24-byte RFC 2133 form");
	len = sizeof got;
	ok(getsockname(s, (struct sockaddr *)&got, &len) == 0 && is_addr6(&got, "::1") &&
	       got.sin6_port != 0,
	   "bound: ::1 and an ephemeral port");
	v = 1;
	is_errno(setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v, sizeof v), EINVAL,
		 "IPV6_V6ONLY once bound: EINVAL");
	a = addr6("::1", ntohs(got.sin6_port));
	close(s);
	s = socket(AF_INET6, SOCK_STREAM, 0);
	is_errno(connect(s, (struct sockaddr *)&a, sizeof a), ECONNREFUSED,
		 "connect to a port nobody listens on: ECONNREFUSED");
	close(s);
	s = socket(AF_INET, SOCK_STREAM, 0);
	len = sizeof v;
	is_errno(getsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v, &len), EOPNOTSUPP,
		 "IPV6_V6ONLY on an AF_INET socket: EOPNOTSUPP");
	close(s);
}

static void test_stream(void)
{
	unsigned short port;
	int l = listener(AF_INET6, "::1", 0, &port), c = socket(AF_INET6, SOCK_STREAM, 0), a;
	struct sockaddr_in6 to = addr6("::1", port), peer, name;
	socklen_t len = sizeof peer;
	char buf[8];

	ok(connect(c, (struct sockaddr *)&to, sizeof to) == 0, "connect to [::1]:port");
	a = accept(l, (struct sockaddr *)&peer, &len);
	ok(a >= 0 && len == sizeof peer && is_addr6(&peer, "::1"), "accept: the peer is ::1");
	ok(write(c, "ping", 4) == 4 && read(a, buf, sizeof buf) == 4 && memcmp(buf, "ping", 4) == 0,
	   "data flows");
	len = sizeof name;
	ok(getpeername(c, (struct sockaddr *)&name, &len) == 0 && is_addr6(&name, "::1") &&
	       ntohs(name.sin6_port) == port,
	   "getpeername: [::1]:port");
	len = sizeof name;
	ok(getsockname(a, (struct sockaddr *)&name, &len) == 0 && is_addr6(&name, "::1") &&
	       ntohs(name.sin6_port) == port,
	   "the accepted end's name: [::1]:port");
	close(a);
	close(c);
	close(l);

	/* :: means loopback to connect, as 0.0.0.0 does. */
	l = listener(AF_INET6, "::", 0, &port);
	c = socket(AF_INET6, SOCK_STREAM, 0);
	to = addr6("::", port);
	ok(connect(c, (struct sockaddr *)&to, sizeof to) == 0,
	   "connect to [::]:port reaches a listener on ::");
	len = sizeof name;
	ok(getpeername(c, (struct sockaddr *)&name, &len) == 0 && is_addr6(&name, "::1"),
	   "... whose name is ::1");
	close(c);
	close(l);
}

static void test_dual_stack(void)
{
	unsigned short port;
	int l = listener(AF_INET6, "::", 0, &port), c = socket(AF_INET, SOCK_STREAM, 0), a, b;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)}, n4;
	struct sockaddr_in6 peer, to6;
	socklen_t len = sizeof peer;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok(connect(c, (struct sockaddr *)&to, sizeof to) == 0,
	   "IPv4 connect to a dual-stack listener on ::");
	a = accept(l, (struct sockaddr *)&peer, &len);
	ok(a >= 0 && is_addr6(&peer, "::ffff:127.0.0.1"),
	   "accept: the IPv4 peer as ::ffff:127.0.0.1");
	len = sizeof n4;
	ok(getpeername(c, (struct sockaddr *)&n4, &len) == 0 && len == sizeof n4 &&
	       n4.sin_family == AF_INET && n4.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	   "the IPv4 client sees 127.0.0.1");
	close(a);
	close(c);

	/* A v6 socket connects to a v4-mapped address. */
	c = socket(AF_INET6, SOCK_STREAM, 0);
	to6 = addr6("::ffff:127.0.0.1", port);
	ok(connect(c, (struct sockaddr *)&to6, sizeof to6) == 0, "connect to ::ffff:127.0.0.1");
	close(c);
	b = socket(AF_INET, SOCK_STREAM, 0);
	to.sin_port = htons(port);
	is_errno(bind(b, (struct sockaddr *)&to, sizeof to), EADDRINUSE,
		 "IPv4 bind of a port a dual-stack socket has: EADDRINUSE");
	close(b);
	close(l);
}

/* IPV6_V6ONLY: a socket on :: that IPv4 does not reach. */
static void test_v6only(void)
{
	unsigned short port;
	int l = listener(AF_INET6, "::", 1, &port), c, b, one = 1;
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_in6 to6;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c = socket(AF_INET, SOCK_STREAM, 0);
	is_errno(connect(c, (struct sockaddr *)&to, sizeof to), ECONNREFUSED,
		 "IPV6_V6ONLY: an IPv4 connect is refused");
	close(c);
	b = socket(AF_INET, SOCK_STREAM, 0);
	ok(bind(b, (struct sockaddr *)&to, sizeof to) == 0,
	   "IPV6_V6ONLY: IPv4 may bind the same port");
	close(b);
	c = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(c, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	to6 = addr6("::ffff:127.0.0.1", port);
	is_errno(connect(c, (struct sockaddr *)&to6, sizeof to6), ENETUNREACH,
		 "IPV6_V6ONLY: connect to a v4-mapped address: ENETUNREACH");
	is_errno(bind(c, (struct sockaddr *)&to6, sizeof to6), EINVAL,
		 "IPV6_V6ONLY: bind to a v4-mapped address: EINVAL");
	close(c);
	close(l);

	/* The other way round: IPv4 first, then a dual-stack bind. */
	l = listener(AF_INET, "127.0.0.1", 0, &port);
	b = socket(AF_INET6, SOCK_STREAM, 0);
	to6 = addr6("::", port);
	is_errno(bind(b, (struct sockaddr *)&to6, sizeof to6), EADDRINUSE,
		 "dual-stack bind of a port IPv4 has: EADDRINUSE");
	to6 = addr6("::1", port);
	ok(bind(b, (struct sockaddr *)&to6, sizeof to6) == 0,
	   "... but ::1 does not overlap 127.0.0.1");
	close(b);
	close(l);
}

static void test_dgram(void)
{
	int r = socket(AF_INET6, SOCK_DGRAM, 0), s = socket(AF_INET6, SOCK_DGRAM, 0);
	int s4 = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in6 a = addr6("::", 0), from;
	struct sockaddr_in to4 = {.sin_family = AF_INET};
	socklen_t len = sizeof a;
	char buf[8];

	require(bind(r, (struct sockaddr *)&a, sizeof a) == 0 &&
		    getsockname(r, (struct sockaddr *)&a, &len) == 0,
		"bind ::");
	a = addr6("::1", ntohs(a.sin6_port));
	ok(sendto(s, "six", 3, 0, (struct sockaddr *)&a, sizeof a) == 3, "UDP sendto [::1]:port");
	len = sizeof from;
	ok(recvfrom(r, buf, sizeof buf, 0, (struct sockaddr *)&from, &len) == 3 &&
	       len == sizeof from && is_addr6(&from, "::1") && from.sin6_port != 0,
	   "recvfrom: the sender as [::1]:port");
	to4.sin_port = a.sin6_port;
	to4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok(sendto(s4, "four", 4, 0, (struct sockaddr *)&to4, sizeof to4) == 4,
	   "IPv4 sendto the same port");
	len = sizeof from;
	ok(recvfrom(r, buf, sizeof buf, 0, (struct sockaddr *)&from, &len) == 4 &&
	       is_addr6(&from, "::ffff:127.0.0.1"),
	   "the dual-stack receiver sees it from ::ffff:127.0.0.1");
	ok(connect(s, (struct sockaddr *)&a, sizeof a) == 0 && send(s, "c", 1, 0) == 1 &&
	       recv(r, buf, sizeof buf, 0) == 1,
	   "connected UDP over ::1");
	close(r);
	close(s);
	close(s4);
}

static void test_getaddrinfo(void)
{
	struct addrinfo hints = {.ai_family = AF_INET6, .ai_socktype = SOCK_STREAM}, *res = NULL;
	int err = getaddrinfo("localhost", "80", &hints, &res);
	if (on_fdkernel()) /* the host's /etc/hosts may not name ::1 */
		ok(err == 0 && res && res->ai_family == AF_INET6 &&
		       is_addr6((struct sockaddr_in6 *)res->ai_addr, "::1"),
		   "getaddrinfo(localhost, AF_INET6): ::1 (the guest's /etc/hosts)");
	else
		skip("the host's /etc/hosts", "getaddrinfo(localhost, AF_INET6)");
	if (res)
		freeaddrinfo(res);
	hints.ai_family = AF_UNSPEC;
	res = NULL;
	err = getaddrinfo("localhost", "80", &hints, &res);
	ok(err == 0 && res, "getaddrinfo(localhost, AF_UNSPEC) answers");
	if (res)
		freeaddrinfo(res);
}

int main(void)
{
	plan(40);
	test_checks();
	test_stream();
	test_dual_stack();
	test_v6only();
	test_dgram();
	test_getaddrinfo();
	return done();
}
