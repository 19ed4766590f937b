/*
 * AF_INET and AF_INET6 on the loopback network only: 127.0.0.0/8, ::1 and
 * the wildcards (0.0.0.0, ::), which mean loopback here.  One code for
 * both families: an address becomes an inet_key (IPv6 form, IPv4
 * v4-mapped) as it comes in, and a name is written in the family of the
 * socket that sees it.  Names are (address, port) pairs in one table for
 * both families (inet_port.c); ports 32768-60999 are handed out on demand,
 * as Linux does.
 */
#include "net/inet_key.h"
#include "proc/cred.h"
#include "net/inet_mcast.h"
#include "net/inet_opt.h"
#include "net/inet_port.h"
#include <uapi/errno.h>

#define UDP_MAX	 65507 /* largest UDP payload over IPv4 */
#define UDP6_MAX 65527 /* over IPv6 (no jumbograms) */

static const struct inet_key loopback6 = {.b[15] = 1};

/* A wildcard is the loopback address of its class. */
static void key_wire(struct inet_key *k)
{
	if (!key_is_any(k))
		return;
	if (key_is_v4(k))
		key_v4(k, INADDR_LOOPBACK);
	else
		*k = loopback6;
}

static bool key_is_loopback(const struct inet_key *k)
{
	return key_is_v4(k) ? ipv4_is_loopback(key_v4_addr(k)) : key_eq(k, &loopback6);
}

static bool key_is_linklocal(const struct inet_key *k)
{
	return k->b[0] == 0xfe && (k->b[1] & 0xc0) == 0x80;
}

/* sin6_scope_id, 0 when the address is too short to have it. */
static uint32_t scope_of(const struct sock_addr *a)
{
	if (a->sa.ss_family != AF_INET6 || a->len < sizeof(struct sockaddr_in6))
		return 0;
	return ((const struct sockaddr_in6 *)&a->sa)->sin6_scope_id;
}

/*
 * The key and port of an address given to sk.  An AF_INET socket takes a
 * sockaddr_in (shorter: EINVAL, another family: EAFNOSUPPORT), an AF_INET6
 * one a sockaddr_in6 (shorter than 24 bytes: EINVAL, as Linux), and, where
 * v4_ok (a datagram connect or send, as Linux's UDPv6), a sockaddr_in
 * unless it is V6ONLY.
 */
static int inet_parse(const struct socket *sk, const struct sock_addr *a, bool v4_ok,
		      struct inet_key *k, unsigned int *port)
{
	int family = a->len >= sizeof(a->sa.ss_family) ? a->sa.ss_family : AF_UNSPEC;

	if (sk->fam->family == AF_INET6 && !(v4_ok && family == AF_INET)) {
		if (a->len < SIN6_LEN_RFC2133)
			return -EINVAL;
		if (family != AF_INET6)
			return -EAFNOSUPPORT;
	} else {
		if (a->len < sizeof(struct sockaddr_in))
			return -EINVAL;
		if (family != AF_INET || sk->v6only)
			return -EAFNOSUPPORT;
	}
	inet_key_of(a, k, port);
	return 0;
}

/* Where connect and sendto may go: loopback and the wildcards (which mean
 * it), and for UDP the IPv4 multicast groups (TCP's connect to one is
 * ENETUNREACH, as Linux); a link-local address needs a scope (EINVAL)
 * and is on no interface; an IPv4 one is out of a V6ONLY socket's reach. */
static int inet_check_addr(const struct socket *sk, const struct sock_addr *a)
{
	struct inet_key k;
	unsigned int port;
	int err = inet_parse(sk, a, sk->type == SOCK_DGRAM, &k, &port);

	if (err)
		return err;
	if (key_is_linklocal(&k))
		return scope_of(a) ? -ENETUNREACH : -EINVAL;
	if (key_is_v4(&k) && sk->v6only)
		return -ENETUNREACH;
	if (key_is_group(&k))
		return sk->type == SOCK_DGRAM ? 0 : -ENETUNREACH;
	return key_is_any(&k) || key_is_loopback(&k) ? 0 : -ENETUNREACH;
}

/* Ports below this need CAP_NET_BIND_SERVICE (EACCES): Linux's default
 * net.ipv4.ip_unprivileged_port_start. */
#define PORT_UNPRIVILEGED_START 1024

/* What bind takes: loopback, a wildcard or an IPv4 multicast group (a
 * socket bound to one hears only it; else EADDRNOTAVAIL); an IPv4
 * address on a V6ONLY socket EINVAL; a link-local one needs a scope
 * (EINVAL), an interface (ENODEV) and an address lo does not have; a
 * privileged port its capability. */
static int inet_bind(struct socket *sk, const struct sock_addr *a)
{
	struct inet_key k;
	unsigned int port;
	int err = inet_parse(sk, a, false, &k, &port);

	if (err)
		return err;
	if (key_is_v4(&k) && sk->v6only)
		return -EINVAL;
	if (key_is_linklocal(&k))
		return !scope_of(a)		     ? -EINVAL
		       : scope_of(a) != LOOPBACK_DEV ? -ENODEV
						     : -EADDRNOTAVAIL;
	if (!key_is_any(&k) && !key_is_loopback(&k) && !key_is_group(&k))
		return -EADDRNOTAVAIL;
	if (port && port < PORT_UNPRIVILEGED_START && !capable(CAP_NET_BIND_SERVICE))
		return -EACCES;
	return inet_port_bind(sk, &k, port);
}

/*
 * Binds sk to an ephemeral port: on the loopback address of dest's class,
 * the source address its peer sees; for listen (no dest), 127.0.0.1 for
 * AF_INET and :: for AF_INET6, so that a dual-stack listener hears both.
 * No port left is -EADDRINUSE: each caller says what that means for it.
 */
static int inet_autobind(struct socket *sk, const struct sock_addr *dest)
{
	struct inet_key k = {.w = {0, 0}}; /* :: */
	unsigned int port;
	int err;

	if (sk->bound)
		return 0;
	if (dest)
		inet_key_of(dest, &k, &port);
	if (sk->fam->family == AF_INET || (dest && key_is_v4(&k)))
		key_v4(&k, INADDR_LOOPBACK);
	else if (dest)
		k = loopback6;
	err = inet_port_bind(sk, &k, 0);
	return err == -EINVAL ? 0 : err; /* bound meanwhile */
}

/* A datagram to a group the host is in goes to its members on its port
 * (inet_port_group); to another group, to nobody. */
static int inet_group_lookup(struct socket *sk, const struct sock_addr *a, struct socket ***out,
			     size_t *n)
{
	struct inet_key k;
	unsigned int port;

	inet_key_of(a, &k, &port);
	*out = NULL;
	*n = 0;
	if (!inet_mc_host_member(key_v4_addr(&k)))
		return 0;
	return inet_port_group(sk->type, &k, port, out, n);
}

/* The file is closing: its port and its groups go. */
static void inet_unbind(struct socket *sk)
{
	inet_port_unbind(sk);
	inet_mc_drop(sk);
}

/* The listener (stream) or receiver (datagram: NULL drops the message). */
static int inet_lookup(struct socket *sk, const struct sock_addr *a, struct socket **out)
{
	struct inet_key k;
	unsigned int port;

	inet_key_of(a, &k, &port);
	if (key_is_group(&k)) /* a datagram's: a stream's connect never gets here */
		return 1;
	key_wire(&k);
	*out = inet_port_find(sk->type, &k, port);
	return *out || sk->type != SOCK_STREAM ? 0 : -ECONNREFUSED;
}

/* In sk's family: an IPv4 name v4-mapped for AF_INET6; a wildcard is the
 * loopback address of its class (an AF_INET socket only ever talks IPv4). */
static void inet_wire_name(const struct socket *sk, struct sock_addr *a)
{
	struct inet_key k;
	unsigned int port;

	inet_key_of(a, &k, &port);
	if (sk->fam->family == AF_INET && !key_is_v4(&k))
		key_v4(&k, 0);
	key_wire(&k);
	inet_make_name(a, sk->fam->family, &k, port);
}

/*
 * A datagram's destination as its header had it (Linux's
 * ip_cmsg_recv_dstaddr and ip6_datagram_recv_specific_ctl): an IPv4 one
 * as IP_ORIGDSTADDR (a sockaddr_in) if sk asked at IPPROTO_IP, an IPv6
 * one as IPV6_ORIGDSTADDR (a sockaddr_in6) if at IPPROTO_IPV6; a
 * wildcard destination is the loopback address it reached.
 */
static long inet_dgram_ctl(const struct socket *sk, struct kmsg *m, const struct sock_addr *to)
{
	struct sock_addr a;
	struct inet_key k;
	unsigned int port;
	bool v4;

	inet_key_of(to, &k, &port);
	key_wire(&k);
	v4 = key_is_v4(&k);
	if (!__atomic_load_n(v4 ? &sk->ip_origdst : &sk->ip6_origdst, __ATOMIC_RELAXED))
		return 0;
	inet_make_name(&a, v4 ? AF_INET : AF_INET6, &k, port);
	if (v4)
		return sock_put_cmsg(m, IPPROTO_IP, IP_ORIGDSTADDR, &a.sa,
				     sizeof(struct sockaddr_in));
	return sock_put_cmsg(m, IPPROTO_IPV6, IPV6_ORIGDSTADDR, &a.sa, sizeof(struct sockaddr_in6));
}

static bool inet_same_addr(const struct sock_addr *remote, const struct sock_addr *addr)
{
	struct inet_key a, b;
	unsigned int pa, pb;

	inet_key_of(remote, &a, &pa);
	inet_key_of(addr, &b, &pb);
	key_wire(&a);
	key_wire(&b);
	return pa == pb && key_eq(&a, &b);
}

/* TCP's answers: a non-blocking connect says EINPROGRESS even when it
 * completed at once, and a refusal is then reported by SO_ERROR, as a reset. */
static int inet_connect_result(struct socket *sk, int err, bool nonblock)
{
	if (!nonblock || (err && err != -ECONNREFUSED))
		return err;
	if (err)
		sk->error = ECONNREFUSED;
	return -EINPROGRESS;
}

/* The server end is named as the address the client connected to, in
 * the listener's family. */
static void inet_accepted_name(const struct socket *l, const struct sock_addr *dest,
			       struct sock_addr *name)
{
	*name = *dest;
	inet_wire_name(l, name);
}

/* A connected UDP socket keeps only the address. */
static int inet_dgram_peer(struct socket *sk, const struct sock_addr *a, struct socket **peer)
{
	(void)sk, (void)a;
	*peer = NULL;
	return 0;
}

/* No ICMP here: a datagram nobody can take is dropped. */
static int inet_dgram_refused(const struct socket *t)
{
	(void)t;
	return 0;
}

/* What the two families share; they differ in data only. */
#define INET_FAMILY_OPS                                                                            \
	.passes_fds = false, .holds_more = true, .peercred = false, .errqueue = true,              \
	.stream_unconnected_err = -EPIPE, .stream_listener_recv_err = -ENOTCONN, /* as TCP */      \
	    .stream_unconnected_recv_err = -ENOTCONN,                                              \
	.dgram_recv_oob_err = 0, /* UDP ignores MSG_OOB on receive */                              \
	    .dgram_noaddr_err = -EDESTADDRREQ, .socket_type = inet_socket_type,                    \
	.setsockopt = inet_setsockopt, .getsockopt = inet_getsockopt,                              \
	.check_addr = inet_check_addr, .bind = inet_bind, .autobind = inet_autobind,               \
	.group_lookup = inet_group_lookup, .lookup = inet_lookup, .wire_name = inet_wire_name,     \
	.dgram_ctl = inet_dgram_ctl, .same_addr = inet_same_addr, .unbind = inet_unbind,           \
	.pair = NULL, .connect_result = inet_connect_result, .accepted_name = inet_accepted_name,  \
	.dgram_peer = inet_dgram_peer, .dgram_refused = inet_dgram_refused

const struct sock_family inet_family = {
    .family = AF_INET,
    .unnamed_len = sizeof(struct sockaddr_in),
    .dgram_max = UDP_MAX,
    .ifreq_v4 = true,
    INET_FAMILY_OPS,
};

const struct sock_family inet6_family = {
    .family = AF_INET6,
    .unnamed_len = sizeof(struct sockaddr_in6),
    .dgram_max = UDP6_MAX,
    INET_FAMILY_OPS,
};
