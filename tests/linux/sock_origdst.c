/* IP_RECVORIGDSTADDR and IPV6_RECVORIGDSTADDR, as Linux: the options (a
 * byte or an int at IPPROTO_IP, an int at IPPROTO_IPV6), and a received
 * UDP datagram's IP_ORIGDSTADDR (a sockaddr_in) or IPV6_ORIGDSTADDR (a
 * sockaddr_in6) control message: the address and port it was sent to,
 * a wildcard-bound receiver's too; none without the option, MSG_CTRUNC
 * without room; an IPv4 datagram on an IPv6 socket answers the IPv4
 * option.  liburing's recv-multishot sets the option with a bool. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "testutil.h"

#ifndef IP_RECVORIGDSTADDR
#define IP_RECVORIGDSTADDR 20
#endif
#ifndef IPV6_RECVORIGDSTADDR
#define IPV6_RECVORIGDSTADDR 74
#endif

/* A UDP socket of family fam bound to addr (len alen), its port into *a. */
static int bound_udp(int fam, struct sockaddr *a, socklen_t alen)
{
	int fd = socket(fam, SOCK_DGRAM, 0);

	require(fd >= 0 && !bind(fd, a, alen) && !getsockname(fd, a, &alen), "a bound UDP socket");
	return fd;
}

static char ctl[256];
static struct msghdr got;

/* Receives one datagram on fd with room bytes of control buffer: the
 * first control message (NULL if none). */
static struct cmsghdr *recv_ctl(int fd, size_t room)
{
	static char buf[16];
	static struct iovec v = {buf, sizeof(buf)};

	memset(ctl, 0, sizeof(ctl));
	got = (struct msghdr){
	    .msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = room};
	if (recvmsg(fd, &got, 0) < 0)
		return NULL;
	return CMSG_FIRSTHDR(&got);
}

static void check_options(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), v = -1, t = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t len = sizeof(v);
	bool on = true;
	unsigned char c = 9;

	require(fd >= 0 && t >= 0, "sockets");
	ok(!getsockopt(fd, IPPROTO_IP, IP_RECVORIGDSTADDR, &v, &len) && v == 0 && len == 4,
	   "IP_RECVORIGDSTADDR: off at first");
	is_int(setsockopt(fd, IPPROTO_IP, IP_RECVORIGDSTADDR, &on, sizeof(on)), 0,
	       "set with a bool");
	len = sizeof(v);
	v = getsockopt(fd, IPPROTO_IP, IP_RECVORIGDSTADDR, &v, &len) ? -1 : v;
	ok(v == 1 && len == 4, "then on (%d)", v);
	len = 1;
	ok(!getsockopt(fd, IPPROTO_IP, IP_RECVORIGDSTADDR, &c, &len) && c == 1 && len == 1,
	   "read into a byte: one byte");
	is_int(setsockopt(fd, IPPROTO_IP, IP_RECVORIGDSTADDR, &v, 0), 0, "no bytes: off");
	len = sizeof(v);
	ok(!getsockopt(fd, IPPROTO_IP, IP_RECVORIGDSTADDR, &v, &len) && v == 0, "off");
	is_int(setsockopt(t, IPPROTO_IP, IP_RECVORIGDSTADDR, &on, sizeof(on)), 0,
	       "a TCP socket takes it too");
	close(fd);
	close(t);
}

static void check_v4(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in any = {.sin_family = AF_INET}, to;
	int one = 1, r = bound_udp(AF_INET, (struct sockaddr *)&a, sizeof(a));
	int w = bound_udp(AF_INET, (struct sockaddr *)&any, sizeof(any));
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct cmsghdr *h;

	require(s >= 0, "a sender");
	sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	ok(recv_ctl(r, sizeof(ctl)) == NULL, "without the option: no control message");
	require(!setsockopt(r, IPPROTO_IP, IP_RECVORIGDSTADDR, &one, sizeof(one)), "set");
	sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	h = recv_ctl(r, sizeof(ctl));
	ok(h && h->cmsg_level == IPPROTO_IP && h->cmsg_type == IP_RECVORIGDSTADDR &&
	       h->cmsg_len == CMSG_LEN(sizeof(struct sockaddr_in)),
	   "with it: IP_ORIGDSTADDR, a sockaddr_in");
	if (h)
		memcpy(&to, CMSG_DATA(h), sizeof(to));
	ok(h && to.sin_family == AF_INET && to.sin_port == a.sin_port &&
	       to.sin_addr.s_addr == htonl(INADDR_LOOPBACK),
	   "127.0.0.1 and the receiver's port");
	ok(h && got.msg_controllen == CMSG_SPACE(sizeof(struct sockaddr_in)), "and nothing more");

	struct sockaddr_in at = {
	    .sin_family = AF_INET, .sin_port = any.sin_port, .sin_addr.s_addr = htonl(0x7f000005)};
	require(!setsockopt(w, IPPROTO_IP, IP_RECVORIGDSTADDR, &one, sizeof(one)), "set");
	sendto(s, "x", 1, 0, (struct sockaddr *)&at, sizeof(at));
	h = recv_ctl(w, sizeof(ctl));
	if (h)
		memcpy(&to, CMSG_DATA(h), sizeof(to));
	ok(h && to.sin_addr.s_addr == htonl(0x7f000005) && to.sin_port == any.sin_port,
	   "a wildcard-bound receiver: the address it was sent to, 127.0.0.5");

	require(!connect(s, (struct sockaddr *)&a, sizeof(a)), "the sender connected");
	send(s, "x", 1, 0);
	h = recv_ctl(r, sizeof(ctl));
	ok(h && h->cmsg_type == IP_RECVORIGDSTADDR, "a connected sender's datagram has it too");
	send(s, "x", 1, 0);
	h = recv_ctl(r, CMSG_LEN(4));
	ok(got.msg_flags & MSG_CTRUNC, "no room for all of it: MSG_CTRUNC");
	close(r);
	close(w);
	close(s);
}

static void check_v6(void)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT}, to;
	struct sockaddr_in6 any = {.sin6_family = AF_INET6};
	struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)},
			   to4;
	int one = 1, r = socket(AF_INET6, SOCK_DGRAM, 0), s6 = socket(AF_INET6, SOCK_DGRAM, 0);
	int s4 = socket(AF_INET, SOCK_DGRAM, 0), w;
	struct cmsghdr *h;

	if (r < 0 || bind(r, (struct sockaddr *)&a, sizeof(a))) {
		skip("no IPv6 loopback", "IPv6");
		skip("no IPv6 loopback", "IPv6");
		skip("no IPv6 loopback", "IPv6");
		skip("no IPv6 loopback", "IPv6");
		return;
	}
	close(r);
	r = bound_udp(AF_INET6, (struct sockaddr *)&a, sizeof(a));
	ok(setsockopt(r, IPPROTO_IPV6, IPV6_RECVORIGDSTADDR, &one, 1) < 0 && errno == EINVAL,
	   "IPV6_RECVORIGDSTADDR with a byte: EINVAL");
	require(!setsockopt(r, IPPROTO_IPV6, IPV6_RECVORIGDSTADDR, &one, sizeof(one)), "set");
	sendto(s6, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	h = recv_ctl(r, sizeof(ctl));
	if (h)
		memcpy(&to, CMSG_DATA(h), sizeof(to));
	ok(h && h->cmsg_level == IPPROTO_IPV6 && h->cmsg_type == IPV6_RECVORIGDSTADDR &&
	       h->cmsg_len == CMSG_LEN(sizeof(to)) && to.sin6_family == AF_INET6 &&
	       to.sin6_port == a.sin6_port && IN6_IS_ADDR_LOOPBACK(&to.sin6_addr),
	   "IPV6_ORIGDSTADDR: ::1 and the port, a sockaddr_in6");

	w = bound_udp(AF_INET6, (struct sockaddr *)&any, sizeof(any));
	v4.sin_port = any.sin6_port;
	require(!setsockopt(w, IPPROTO_IPV6, IPV6_RECVORIGDSTADDR, &one, sizeof(one)), "set");
	sendto(s4, "x", 1, 0, (struct sockaddr *)&v4, sizeof(v4));
	ok(recv_ctl(w, sizeof(ctl)) == NULL, "an IPv4 datagram on it: not the IPv6 option's");
	require(!setsockopt(w, IPPROTO_IP, IP_RECVORIGDSTADDR, &one, sizeof(one)), "set");
	sendto(s4, "x", 1, 0, (struct sockaddr *)&v4, sizeof(v4));
	h = recv_ctl(w, sizeof(ctl));
	if (h)
		memcpy(&to4, CMSG_DATA(h), sizeof(to4));
	ok(h && h->cmsg_level == IPPROTO_IP && to4.sin_family == AF_INET &&
	       to4.sin_addr.s_addr == htonl(INADDR_LOOPBACK) && to4.sin_port == v4.sin_port,
	   "with the IPv4 option: IP_ORIGDSTADDR, a sockaddr_in");
	close(r);
	close(w);
	close(s6);
	close(s4);
}

int main(void)
{
	plan(7 + 7 + 4);
	check_options();
	check_v4();
	check_v6();
	return done();
}
