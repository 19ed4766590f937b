/*
 * What AF_INET and AF_INET6 sockets take from socket() and from the option
 * levels of their own (SOL_SOCKET's are sockopt.c's): IPPROTO_TCP or
 * IPPROTO_UDP by the socket's protocol, IPPROTO_IPV6 for AF_INET6,
 * IPPROTO_IP (inet_mcast.c's multicast options) for both; and
 * IP_RECVORIGDSTADDR and IPV6_RECVORIGDSTADDR, which inet.c's
 * inet_dgram_ctl answers on receipt.
 */
#include "net/inet_opt.h"
#include "net/inet_mcast.h"
#include <uapi/errno.h>

/*
 * Linux's inet_create: a protocol outside 0..255 is EINVAL; a type with
 * no protocol here (SOCK_SEQPACKET, ...) ESOCKTNOSUPPORT; a protocol the
 * type does not run EPROTONOSUPPORT.  Raw sockets are not here: with
 * protocol 0 EPROTONOSUPPORT, as Linux, else ESOCKTNOSUPPORT (Linux makes
 * one for root; docs/sockets.md).
 */
int inet_socket_type(int type, int protocol, int *proto)
{
	int wanted = type == SOCK_STREAM ? IPPROTO_TCP : IPPROTO_UDP;

	if (protocol < 0 || protocol >= IPPROTO_MAX)
		return -EINVAL;
	if (type == SOCK_RAW)
		return protocol ? -ESOCKTNOSUPPORT : -EPROTONOSUPPORT;
	if (type != SOCK_STREAM && type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol && protocol != wanted)
		return -EPROTONOSUPPORT;
	*proto = wanted;
	return type;
}

/* The level is one sk has: its protocol's, or IPv6's for AF_INET6. */
static bool inet_has_level(const struct socket *sk, int level)
{
	return level == sk->protocol || (level == IPPROTO_IPV6 && sk->fam->family == AF_INET6);
}

/*
 * Under sk's lock: sets the int option name at level; *uncork when held
 * data must go out now.  IPV6_V6ONLY is fixed once the socket is bound
 * (EINVAL), as Linux.
 */
static int inet_set(struct socket *sk, int level, int name, int val, bool *uncork)
{
	bool tcp = sk->type == SOCK_STREAM;

	if (level == IPPROTO_IPV6 && name == IPV6_V6ONLY) {
		if (sk->bound)
			return -EINVAL;
		sk->v6only = val != 0;
	} else if (level == IPPROTO_IPV6 && name == IPV6_RECVORIGDSTADDR) {
		__atomic_store_n(&sk->ip6_origdst, val != 0, __ATOMIC_RELAXED);
	} else if (level == IPPROTO_IPV6) {
		return -ENOPROTOOPT;
	} else if (tcp && name == TCP_NODELAY) {
		sk->nodelay = val != 0;
		*uncork = sk->nodelay; /* Linux pushes what waits when it is set */
	} else if ((tcp && name == TCP_CORK) || (!tcp && name == UDP_CORK)) {
		sk->cork = val != 0;
		*uncork = !sk->cork;
	} else {
		return -ENOPROTOOPT;
	}
	return 0;
}

/* Options of IPPROTO_IP (multicast: inet_mcast.c; both families, as
 * Linux's IPv6 sockets pass the level to IPv4's) and of sk's own levels.
 * Another level is ENOPROTOOPT, as Linux's ip_setsockopt. */
int inet_setsockopt(struct socket *sk, int level, int name, const struct sockopt *o)
{
	bool uncork = false;
	int val, err;

	if (level == IPPROTO_IP && name == IP_RECVORIGDSTADDR) {
		/* Any length, any inet socket, as Linux (0 bytes: off) */
		if (!(err = ip_opt_read_int(o, &val)))
			__atomic_store_n(&sk->ip_origdst, val != 0, __ATOMIC_RELAXED);
		return err;
	}
	if (level == IPPROTO_IP)
		return inet_mc_setsockopt(sk, name, o);
	if (!inet_has_level(sk, level))
		return -ENOPROTOOPT;
	err = sockopt_int(o, &val);
	if (err)
		return err;
	spin_lock(&sk->lock);
	err = inet_set(sk, level, name, val, &uncork);
	spin_unlock(&sk->lock);
	if (uncork)
		sk->proto->uncork(sk);
	return err;
}

/* As set; another level is EOPNOTSUPP, as Linux's ip_getsockopt. */
int inet_getsockopt(struct socket *sk, int level, int name, struct sockopt *o)
{
	bool tcp = sk->type == SOCK_STREAM;
	int err = 0;

	if (level == IPPROTO_IP && name == IP_RECVORIGDSTADDR) {
		ip_opt_put_int(o, __atomic_load_n(&sk->ip_origdst, __ATOMIC_RELAXED));
		return 0;
	}
	if (level == IPPROTO_IP)
		return inet_mc_getsockopt(sk, name, o);
	if (!inet_has_level(sk, level))
		return -EOPNOTSUPP;
	spin_lock(&sk->lock);
	if (level == IPPROTO_IPV6 && name == IPV6_RECVORIGDSTADDR)
		sockopt_put_int(o, sk->ip6_origdst);
	else if (level == IPPROTO_IPV6)
		err = name == IPV6_V6ONLY ? (sockopt_put_int(o, sk->v6only), 0) : -ENOPROTOOPT;
	else if (tcp && name == TCP_NODELAY)
		sockopt_put_int(o, sk->nodelay);
	else if ((tcp && name == TCP_CORK) || (!tcp && name == UDP_CORK))
		sockopt_put_int(o, sk->cork);
	else
		err = -ENOPROTOOPT;
	spin_unlock(&sk->lock);
	return err;
}
