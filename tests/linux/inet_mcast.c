/* IPv4 multicast on the loopback interface, as Linux answers it: the
 * IPPROTO_IP options (IP_ADD/DROP_MEMBERSHIP, MCAST_JOIN/LEAVE_GROUP,
 * IP_MULTICAST_IF/TTL/LOOP/ALL) with their errnos, the per-socket limit
 * net.ipv4.igmp_max_memberships, which sockets a datagram sent to a group
 * reaches, groups left when their socket closes, and a TCP socket that
 * accept() made starting with no groups (LTP's accept02, CVE-2017-8890),
 * groups shared by a forked child's fd, members closing while a thread
 * sends to them.
 * Everything names lo (index 1, its address 127.0.0.1), so the host's other
 * interfaces and routes play no part.  A socket that must not receive a
 * datagram is shown not to by the next one it does receive. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "testutil.h"

#define LO	 1 /* lo's interface index (Linux's LOOPBACK_IFINDEX) */
#define NO_IF	 1000000
#define GROUP2	 "239.255.77.2"
#define NOT_HERE "203.0.113.77" /* TEST-NET-3: on no interface */

/* The group most tests use, 239.x.y.z from the pid: another run of this
 * test on the same host (a parallel test leg) keeps the host in a group
 * of its own, so what reaches this one's sockets is this one's doing. */
static char group[16];

static struct in_addr ip(const char *s)
{
	struct in_addr a;

	inet_aton(s, &a);
	return a;
}

static struct ip_mreqn mreqn(const char *group, const char *addr, int ifindex)
{
	return (struct ip_mreqn){.imr_multiaddr = ip(group),
				 .imr_address = ip(addr ? addr : "0.0.0.0"),
				 .imr_ifindex = ifindex};
}

static struct group_req greq(const char *group, unsigned int ifindex)
{
	struct group_req g = {.gr_interface = ifindex};
	struct sockaddr_in *in = (struct sockaddr_in *)&g.gr_group;

	in->sin_family = AF_INET;
	in->sin_addr = ip(group);
	return g;
}

static int join(int s, const char *group)
{
	struct ip_mreqn m = mreqn(group, NULL, LO);

	return setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m);
}

static int leave(int s, const char *group)
{
	struct ip_mreqn m = mreqn(group, NULL, LO);

	return setsockopt(s, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof m);
}

/* setsockopt(s, IPPROTO_IP, name, val, len) fails with err. */
static void set_fails(int s, int name, const void *val, socklen_t len, int err, const char *what)
{
	is_errno(setsockopt(s, IPPROTO_IP, name, val, len), err, "%s", what);
}

static int getint(int s, int name)
{
	int v = -12345;
	socklen_t len = sizeof v;

	return getsockopt(s, IPPROTO_IP, name, &v, &len) == 0 && len == sizeof v ? v : -12345;
}

static void test_defaults(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);
	struct in_addr a = ip("1.2.3.4");
	socklen_t len = 8;

	ok(getint(u, IP_MULTICAST_TTL) == 1 && getint(u, IP_MULTICAST_LOOP) == 1 &&
	       getint(u, IP_MULTICAST_ALL) == 1 && getint(t, IP_MULTICAST_LOOP) == 1,
	   "defaults: TTL 1, LOOP 1, ALL 1 (TCP too)");
	ok(getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &a, &len) == 0 && len == 4 && a.s_addr == 0,
	   "IP_MULTICAST_IF: 0.0.0.0, an in_addr");
	close(u);
	close(t);
}

static void test_join_errors(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);
	struct ip_mreqn m = mreqn("10.0.0.1", NULL, LO);
	struct group_req g = greq(group, LO);

	set_fails(u, IP_ADD_MEMBERSHIP, &m, sizeof m, EINVAL, "join a unicast address: EINVAL");
	set_fails(u, IP_DROP_MEMBERSHIP, &m, sizeof m, EADDRNOTAVAIL,
		  "leave a unicast address: EADDRNOTAVAIL");
	m = mreqn(group, NULL, NO_IF);
	set_fails(u, IP_ADD_MEMBERSHIP, &m, sizeof m, ENODEV,
		  "join on an unknown interface index: ENODEV");
	m = mreqn(group, NOT_HERE, 0);
	set_fails(u, IP_ADD_MEMBERSHIP, &m, sizeof m, ENODEV,
		  "join by an address no interface has: ENODEV");
	set_fails(u, IP_ADD_MEMBERSHIP, &m, 7, EINVAL, "join with 7 bytes: EINVAL");
	set_fails(u, IP_ADD_MEMBERSHIP, NULL, 8, EFAULT, "join from a bad pointer: EFAULT");
	set_fails(t, IP_ADD_MEMBERSHIP, &m, sizeof m, EPROTO, "IP_ADD_MEMBERSHIP on TCP: EPROTO");
	set_fails(u, MCAST_JOIN_GROUP, &g, sizeof g - 1, EINVAL,
		  "MCAST_JOIN_GROUP short of a group_req: EINVAL");
	set_fails(u, MCAST_JOIN_GROUP, NULL, sizeof g, EFAULT,
		  "MCAST_JOIN_GROUP from a bad pointer: EFAULT");
	g.gr_group.ss_family = AF_INET6;
	set_fails(u, MCAST_JOIN_GROUP, &g, sizeof g, EINVAL,
		  "MCAST_JOIN_GROUP of an AF_INET6 group: EINVAL");
	g = greq(group, NO_IF);
	set_fails(u, MCAST_JOIN_GROUP, &g, sizeof g, ENODEV,
		  "MCAST_JOIN_GROUP on an unknown interface: ENODEV");
	set_fails(u, 9999, &m, sizeof m, ENOPROTOOPT, "an unknown IPPROTO_IP name: ENOPROTOOPT");
	close(u);
	close(t);
}

static void test_join_leave(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0);
	struct ip_mreq old = {.imr_multiaddr = ip(group), .imr_interface = ip("127.0.0.1")};
	struct ip_mreqn m = mreqn(group, NULL, LO);
	struct group_req g = greq(group, LO);

	ok(setsockopt(u, IPPROTO_IP, IP_ADD_MEMBERSHIP, &old, sizeof old) == 0,
	   "join by lo's address (struct ip_mreq)");
	set_fails(u, IP_ADD_MEMBERSHIP, &m, sizeof m, EADDRINUSE,
		  "the same group on lo by index: EADDRINUSE");
	set_fails(u, MCAST_JOIN_GROUP, &g, sizeof g, EADDRINUSE,
		  "and by MCAST_JOIN_GROUP: EADDRINUSE");
	ok(setsockopt(u, IPPROTO_IP, IP_DROP_MEMBERSHIP, &m, sizeof m) == 0,
	   "leave it by index (struct ip_mreqn)");
	set_fails(u, IP_DROP_MEMBERSHIP, &old, sizeof old, EADDRNOTAVAIL,
		  "leave it again: EADDRNOTAVAIL");
	ok(setsockopt(t, IPPROTO_IP, MCAST_JOIN_GROUP, &g, sizeof g + 8) == 0,
	   "MCAST_JOIN_GROUP on TCP, a longer buffer");
	g.gr_interface = NO_IF;
	set_fails(t, MCAST_LEAVE_GROUP, &g, sizeof g, EADDRNOTAVAIL,
		  "MCAST_LEAVE_GROUP on another interface: EADDRNOTAVAIL");
	g.gr_interface = LO;
	ok(setsockopt(t, IPPROTO_IP, MCAST_LEAVE_GROUP, &g, sizeof g) == 0 &&
	       setsockopt(t, IPPROTO_IP, MCAST_LEAVE_GROUP, &g, sizeof g) == -1 &&
	       errno == EADDRNOTAVAIL,
	   "MCAST_LEAVE_GROUP, then again: EADDRNOTAVAIL");
	close(u);
	close(t);
}

/* net.ipv4.igmp_max_memberships, or Linux's default if it cannot be read. */
static int max_memberships(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/igmp_max_memberships", "r");
	int n = 20;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = 20;
		fclose(f);
	}
	return n;
}

static void test_limit(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), max = max_memberships(), joined = 0;
	char name[32];

	for (int i = 0; i < max; i++) {
		snprintf(name, sizeof name, "239.254.%d.%d", i / 256, i % 256);
		joined += join(u, name) == 0;
	}
	ok(joined == max, "%d groups joined (igmp_max_memberships)", max);
	is_errno(join(u, "239.255.79.1"), ENOBUFS, "one more: ENOBUFS");
	ok(leave(u, "239.254.0.0") == 0 && join(u, "239.255.79.1") == 0,
	   "after leaving one, another can be joined");
	close(u); /* leaves them all (the leak check counts them in fdkernel) */
}

/* Writes n to igmp_max_memberships: true if it took it. */
static bool set_max_memberships(int n)
{
	FILE *f = fopen("/proc/sys/net/ipv4/igmp_max_memberships", "w");
	bool ok = f && fprintf(f, "%d\n", n) > 0;

	return f && fclose(f) == 0 && ok;
}

/* Root may change the limit and joins follow it (in fdkernel only: on the
 * host it would change the machine's for everyone meanwhile). */
static void test_limit_set(void)
{
	int u, max = max_memberships(), joined = 0;

	if (!on_fdkernel()) {
		skip("fdkernel only: it would change the host's setting", "a lowered limit");
		return;
	}
	u = socket(AF_INET, SOCK_DGRAM, 0);
	require(set_max_memberships(2), "write igmp_max_memberships");
	joined += join(u, "239.254.0.1") == 0;
	joined += join(u, "239.254.0.2") == 0;
	joined += join(u, "239.254.0.3") == 0;
	ok(joined == 2 && errno == ENOBUFS, "igmp_max_memberships 2: two joins, the third ENOBUFS");
	require(set_max_memberships(max) && max_memberships() == max, "restore");
	close(u);
}

static void test_options(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), t = socket(AF_INET, SOCK_STREAM, 0), v;
	unsigned char c = 7;
	struct in_addr a = ip("127.0.0.1"), got;
	struct ip_mreqn m = mreqn("0.0.0.0", NULL, NO_IF);
	socklen_t len;

	ok(setsockopt(u, IPPROTO_IP, IP_MULTICAST_TTL, &c, 1) == 0 &&
	       getint(u, IP_MULTICAST_TTL) == 7,
	   "IP_MULTICAST_TTL from one byte");
	v = -1;
	len = 1;
	ok(setsockopt(u, IPPROTO_IP, IP_MULTICAST_TTL, &v, sizeof v) == 0 &&
	       getsockopt(u, IPPROTO_IP, IP_MULTICAST_TTL, &c, &len) == 0 && len == 1 && c == 1,
	   "TTL -1 is the default, 1; read as one byte when asked for one");
	v = 256;
	set_fails(u, IP_MULTICAST_TTL, &v, sizeof v, EINVAL, "TTL 256: EINVAL");
	set_fails(u, IP_MULTICAST_TTL, &v, 0, EINVAL, "TTL of 0 bytes: EINVAL");
	v = 3;
	set_fails(t, IP_MULTICAST_TTL, &v, sizeof v, EINVAL, "TTL on TCP: EINVAL");
	set_fails(u, IP_MULTICAST_TTL, NULL, sizeof v, EFAULT, "TTL from a bad pointer: EFAULT");
	v = 300;
	ok(setsockopt(u, IPPROTO_IP, IP_MULTICAST_LOOP, &v, sizeof v) == 0 &&
	       getint(u, IP_MULTICAST_LOOP) == 1,
	   "IP_MULTICAST_LOOP 300 reads back 1");
	set_fails(u, IP_MULTICAST_LOOP, &v, 0, EINVAL, "LOOP of 0 bytes: EINVAL");
	v = 2;
	set_fails(u, IP_MULTICAST_ALL, &v, sizeof v, EINVAL, "IP_MULTICAST_ALL 2: EINVAL");
	set_fails(u, IP_MULTICAST_IF, &a, 3, EINVAL, "IP_MULTICAST_IF of 3 bytes: EINVAL");
	len = sizeof got;
	ok(setsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &a, sizeof a) == 0 &&
	       getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &got, &len) == 0 && len == 4 &&
	       got.s_addr == a.s_addr,
	   "IP_MULTICAST_IF 127.0.0.1 reads back");
	a = ip(NOT_HERE);
	set_fails(u, IP_MULTICAST_IF, &a, sizeof a, EADDRNOTAVAIL,
		  "IP_MULTICAST_IF by an address no interface has: EADDRNOTAVAIL");
	set_fails(u, IP_MULTICAST_IF, &m, sizeof m, EADDRNOTAVAIL,
		  "IP_MULTICAST_IF on an unknown index: EADDRNOTAVAIL");
	m.imr_ifindex = LO;
	ok(setsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &m, sizeof m) == 0 &&
	       getsockopt(u, IPPROTO_IP, IP_MULTICAST_IF, &got, &len) == 0 && got.s_addr == 0,
	   "IP_MULTICAST_IF by lo's index reads back the address given (0.0.0.0)");
	set_fails(u, IP_MULTICAST_IF, NULL, sizeof a, EFAULT,
		  "IP_MULTICAST_IF from a bad pointer: EFAULT");
	a = ip("127.0.0.1");
	set_fails(t, IP_MULTICAST_IF, &a, sizeof a, EINVAL, "IP_MULTICAST_IF on TCP: EINVAL");
	is_errno(getsockopt(u, IPPROTO_IP, 9999, &v, &len), ENOPROTOOPT,
		 "get an unknown IPPROTO_IP name: ENOPROTOOPT");
	close(u);
	close(t);
}

/* A UDP socket on 0.0.0.0:port (0: a new one; *port gets it) or on addr:port. */
static int udp_on(const char *addr, unsigned short *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = *port, .sin_addr = ip(addr)};
	struct timeval guard = {10, 0}; /* only against a hang: the datagrams are there */
	socklen_t len = sizeof sin;
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	require(s >= 0 && setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
		    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &guard, sizeof guard) == 0 &&
		    bind(s, (struct sockaddr *)&sin, sizeof sin) == 0 &&
		    getsockname(s, (struct sockaddr *)&sin, &len) == 0,
		"udp socket");
	*port = sin.sin_port;
	return s;
}

static void send_to(int s, const char *group, unsigned short port, const char *tag)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = port, .sin_addr = ip(group)};

	require(sendto(s, tag, strlen(tag), 0, (struct sockaddr *)&to, sizeof to) ==
		    (ssize_t)strlen(tag),
		"sendto a group");
}

/* The next datagram s receives is tag. */
static bool next_is(int s, const char *tag)
{
	char buf[32];
	ssize_t n = recv(s, buf, sizeof buf, 0);

	return n == (ssize_t)strlen(tag) && memcmp(buf, tag, n) == 0;
}

static void test_delivery(void)
{
	unsigned short port = 0, port2 = 0, sport = 0;
	int r1 = udp_on("0.0.0.0", &port), r2 = udp_on("0.0.0.0", &port),
	    r3 = udp_on("0.0.0.0", &port), r4 = udp_on(group, &port),
	    r5 = udp_on("0.0.0.0", &port2), s = udp_on("127.0.0.1", &sport), off = 0;
	struct in_addr lo = ip("127.0.0.1");
	struct sockaddr_in from;
	socklen_t flen = sizeof from;
	char b;

	require(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo) == 0, "IF lo");
	require(setsockopt(r3, IPPROTO_IP, IP_MULTICAST_ALL, &off, sizeof off) == 0, "ALL off");
	send_to(s, group, port, "0"); /* the host is in no group yet: nobody gets it */
	ok(join(r1, group) == 0 && join(r5, group) == 0, "two sockets join, on two ports");
	send_to(s, group, port, "1");
	ok(recvfrom(r1, &b, 1, 0, (struct sockaddr *)&from, &flen) == 1 && b == '1' &&
	       from.sin_addr.s_addr == lo.s_addr && from.sin_port == sport,
	   "a member gets it, from the sender's name");
	ok(next_is(r2, "1"), "a socket on the port with IP_MULTICAST_ALL gets it unjoined");
	ok(next_is(r4, "1"), "so does one bound to the group's address");
	ok(join(r3, group) == 0, "the socket without IP_MULTICAST_ALL joins");
	send_to(s, group, port2, "2");
	ok(next_is(r5, "2"), "nothing sent to another port reached the member there");
	require(setsockopt(s, IPPROTO_IP, IP_MULTICAST_LOOP, &off, sizeof off) == 0 &&
		    setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &off, sizeof off) == 0,
		"LOOP 0, TTL 0");
	send_to(s, group, port, "3");
	ok(next_is(r3, "3"), "nothing reached the socket before it joined or had ALL");
	ok(next_is(r1, "3") && next_is(r2, "3"), "LOOP 0 and TTL 0 still deliver on lo");
	ok(next_is(r4, "3"), "so the group-bound one got each once");
	close(r1);
	close(r3);
	close(r5);
	send_to(s, group, port, "4");	    /* its members closed: the host left the group */
	send_to(s, "224.0.0.1", port, "5"); /* all-hosts: lo is always in it */
	ok(next_is(r2, "5"), "closing the members left the group; all-hosts reaches ALL sockets");
	close(r2);
	close(r4);
	close(s);
}

/* A dual-stack AF_INET6 socket joins through IPPROTO_IP and hears the group. */
static void test_inet6(void)
{
	struct sockaddr_in6 sin6 = {.sin6_family = AF_INET6}, from;
	socklen_t len = sizeof sin6;
	struct ip_mreqn m = mreqn(GROUP2, NULL, LO);
	struct in_addr lo = ip("127.0.0.1");
	unsigned short sport = 0;
	int r = socket(AF_INET6, SOCK_DGRAM, 0), s = udp_on("127.0.0.1", &sport);
	char b;

	require(r >= 0 && bind(r, (struct sockaddr *)&sin6, sizeof sin6) == 0 &&
		    getsockname(r, (struct sockaddr *)&sin6, &len) == 0 &&
		    setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo) == 0,
		"AF_INET6 socket");
	ok(setsockopt(r, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof m) == 0,
	   "AF_INET6: IP_ADD_MEMBERSHIP");
	send_to(s, GROUP2, sin6.sin6_port, "6");
	len = sizeof from;
	ok(recvfrom(r, &b, 1, 0, (struct sockaddr *)&from, &len) == 1 && b == '6' &&
	       IN6_IS_ADDR_V4MAPPED(&from.sin6_addr) &&
	       memcmp(&from.sin6_addr.s6_addr[12], &lo, 4) == 0,
	   "AF_INET6: the group's datagram, from ::ffff:127.0.0.1");
	close(r);
	close(s);
}

/* accept02: the accepted socket has none of the listener's groups. */
static void test_accept(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr = ip("127.0.0.1")};
	struct group_req g = greq(group, LO);
	socklen_t len = sizeof sin;
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), a, off = 0;

	require(l >= 0 && c >= 0, "sockets");
	ok(setsockopt(l, IPPROTO_IP, MCAST_JOIN_GROUP, &g, sizeof g) == 0 &&
	       setsockopt(l, IPPROTO_IP, IP_MULTICAST_LOOP, &off, sizeof off) == 0,
	   "a listener joins a group, LOOP 0");
	require(bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 1) == 0 &&
		    getsockname(l, (struct sockaddr *)&sin, &len) == 0 &&
		    connect(c, (struct sockaddr *)&sin, sizeof sin) == 0,
		"connect");
	a = accept(l, NULL, NULL);
	require(a >= 0, "accept");
	set_fails(a, MCAST_LEAVE_GROUP, &g, sizeof g, EADDRNOTAVAIL,
		  "the accepted socket is in no group (CVE-2017-8890)");
	ok(getint(a, IP_MULTICAST_LOOP) == 0, "it keeps the listener's IP_MULTICAST_LOOP");
	close(a);
	ok(setsockopt(l, IPPROTO_IP, MCAST_LEAVE_GROUP, &g, sizeof g) == 0,
	   "the listener is still in it");
	close(l);
	close(c);
}

/* The groups belong to the socket, not the fd: a child's copy of it
 * leaves a group its parent joined, after the parent closed its fd. */
static void test_fork(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0), status = -1;
	pid_t pid;

	require(u >= 0 && join(u, group) == 0, "join");
	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0)
		_exit(leave(u, group) == 0 && leave(u, group) == -1 && errno == EADDRNOTAVAIL ? 0
											      : 1);
	close(u);
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a forked child leaves the group through its copy of the fd");
}

#define CHURN_SENDS   2000
#define CHURN_MEMBERS 200

struct churn {
	unsigned short port;
	int sent;
};

static void *churn_sender(void *arg)
{
	struct churn *c = arg;
	struct in_addr lo = ip("127.0.0.1");
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = c->port, .sin_addr = ip(group)};
	unsigned short sport = 0;
	int s = udp_on("127.0.0.1", &sport);

	require(setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &lo, sizeof lo) == 0, "IF lo");
	for (int i = 0; i < CHURN_SENDS; i++)
		c->sent += sendto(s, "c", 1, 0, (struct sockaddr *)&to, sizeof to) == 1;
	close(s);
	return NULL;
}

/* Members join and close while another thread sends to their group:
 * every call succeeds (the leak check sees what the closes left). */
static void test_churn(void)
{
	unsigned short port = 0;
	int first = udp_on("0.0.0.0", &port), joined = 0;
	struct churn c = {.port = port};
	pthread_t th;

	require(pthread_create(&th, NULL, churn_sender, &c) == 0, "thread");
	for (int i = 0; i < CHURN_MEMBERS; i++) {
		int r = udp_on("0.0.0.0", &port);
		joined += join(r, group) == 0;
		close(r);
	}
	pthread_join(th, NULL);
	close(first);
	ok(joined == CHURN_MEMBERS && c.sent == CHURN_SENDS,
	   "%d joins and closes beside %d sends to the group: all succeed", joined, c.sent);
}

int main(void)
{
	plan(61);
	snprintf(group, sizeof group, "239.%d.%d.%d", getpid() >> 16 & 127, getpid() >> 8 & 255,
		 getpid() & 255);
	test_defaults();
	test_join_errors();
	test_join_leave();
	test_limit();
	test_limit_set();
	test_options();
	test_delivery();
	test_inet6();
	test_accept();
	test_fork();
	test_churn();
	return done();
}
