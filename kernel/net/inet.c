/*
 * AF_INET on the loopback network only: 127.0.0.0/8 and INADDR_ANY (which
 * means loopback here).  Names are (address, port) pairs in one table per
 * system (inet_port.c); ports 32768-60999 are handed out on demand, as
 * Linux does.
 */
#include "net/inet.h"
#include <uapi/errno.h>

#define UDP_MAX 65507 /* largest UDP payload over IPv4 */

static bool is_loopback(uint32_t ip)
{
	return (ip >> 24) == 127;
}

/* Length and family checks of every address argument. */
static int inet_check_form(const struct sock_addr *a)
{
	if (a->len < sizeof(struct sockaddr_in))
		return -EINVAL;
	return a->sa.ss_family == AF_INET ? 0 : -EAFNOSUPPORT;
}

static int inet_check_addr(const struct sock_addr *a)
{
	int err = inet_check_form(a);

	if (!err && addr_of(a) != INADDR_ANY && !is_loopback(addr_of(a)))
		err = -ENETUNREACH;
	return err;
}

static int inet_bind(struct socket *sk, const struct sock_addr *a)
{
	int err = inet_check_form(a);

	if (err)
		return err;
	if (addr_of(a) != INADDR_ANY && !is_loopback(addr_of(a)))
		return -EADDRNOTAVAIL;
	return inet_port_bind(sk, addr_of(a), port_of(a));
}

/* No port left is -EADDRINUSE: each caller says what that means for it. */
static int inet_autobind(struct socket *sk)
{
	int err;

	if (sk->bound)
		return 0;
	err = inet_port_bind(sk, INADDR_LOOPBACK, 0); /* the source address a peer sees */
	return err == -EINVAL ? 0 : err;	      /* bound meanwhile */
}

/* The listener (stream) or receiver (datagram: NULL drops the message). */
static int inet_lookup(struct socket *sk, const struct sock_addr *a, struct socket **out)
{
	uint32_t ip = addr_of(a) == INADDR_ANY ? INADDR_LOOPBACK : addr_of(a);

	*out = inet_port_find(sk->type, ip, port_of(a));
	return *out || sk->type != SOCK_STREAM ? 0 : -ECONNREFUSED;
}

static void inet_wire_name(struct sock_addr *a)
{
	if (addr_of(a) == INADDR_ANY)
		make_name(a, INADDR_LOOPBACK, port_of(a));
}

static bool inet_same_addr(const struct sock_addr *remote, const struct sock_addr *addr)
{
	return addr_of(remote) == addr_of(addr) && port_of(remote) == port_of(addr);
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

/* The server end is named as the address the client connected to. */
static void inet_accepted_name(const struct socket *l, const struct sock_addr *dest,
			       struct sock_addr *name)
{
	(void)l;
	*name = *dest;
	inet_wire_name(name);
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

/*
 * Linux's inet_create: a protocol outside 0..255 is EINVAL; a type with
 * no protocol here (SOCK_SEQPACKET, ...) ESOCKTNOSUPPORT; a protocol the
 * type does not run EPROTONOSUPPORT.  Raw sockets are not here: with
 * protocol 0 EPROTONOSUPPORT, as Linux, else ESOCKTNOSUPPORT (Linux makes
 * one for root; docs/sockets.md).
 */
static int inet_socket_type(int type, int protocol, int *proto)
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

/* Under sk's lock: sets the int option name of sk's own protocol (level
 * IPPROTO_TCP for a stream, IPPROTO_UDP for a datagram socket); *uncork
 * when held data must go out now. */
static int inet_set_proto(struct socket *sk, int name, int val, bool *uncork)
{
	bool tcp = sk->type == SOCK_STREAM;

	if (tcp && name == TCP_NODELAY) {
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

/* Options of levels IPPROTO_IP (none kept here) and the socket's protocol.
 * Another level is ENOPROTOOPT, as Linux's ip_setsockopt. */
static int inet_setsockopt(struct socket *sk, int level, int name, const struct sockopt *o)
{
	bool uncork = false;
	int val, err;

	if (level != sk->protocol)
		return -ENOPROTOOPT;
	err = sockopt_int(o, &val);
	if (err)
		return err;
	spin_lock(&sk->lock);
	err = inet_set_proto(sk, name, val, &uncork);
	spin_unlock(&sk->lock);
	if (uncork)
		sk->proto->uncork(sk);
	return err;
}

/* As set; another level is EOPNOTSUPP, as Linux's ip_getsockopt. */
static int inet_getsockopt(struct socket *sk, int level, int name, struct sockopt *o)
{
	bool tcp = sk->type == SOCK_STREAM;
	int err = 0;

	if (level == IPPROTO_IP)
		return -ENOPROTOOPT;
	if (level != sk->protocol)
		return -EOPNOTSUPP;
	spin_lock(&sk->lock);
	if (tcp && name == TCP_NODELAY)
		sockopt_put_int(o, sk->nodelay);
	else if ((tcp && name == TCP_CORK) || (!tcp && name == UDP_CORK))
		sockopt_put_int(o, sk->cork);
	else
		err = -ENOPROTOOPT;
	spin_unlock(&sk->lock);
	return err;
}

const struct sock_family inet_family = {
    .family = AF_INET,
    .unnamed_len = sizeof(struct sockaddr_in),
    .passes_fds = false,
    .holds_more = true,
    .peercred = false,
    .errqueue = true,
    .stream_unconnected_err = -EPIPE,
    .stream_listener_recv_err = -ENOTCONN, /* as TCP */
    .stream_unconnected_recv_err = -ENOTCONN,
    .dgram_recv_oob_err = 0, /* UDP ignores MSG_OOB on receive */
    .dgram_noaddr_err = -EDESTADDRREQ,
    .dgram_max = UDP_MAX,
    .socket_type = inet_socket_type,
    .setsockopt = inet_setsockopt,
    .getsockopt = inet_getsockopt,
    .check_addr = inet_check_addr,
    .bind = inet_bind,
    .autobind = inet_autobind,
    .lookup = inet_lookup,
    .wire_name = inet_wire_name,
    .same_addr = inet_same_addr,
    .unbind = inet_port_unbind,
    .pair = NULL,
    .connect_result = inet_connect_result,
    .accepted_name = inet_accepted_name,
    .dgram_peer = inet_dgram_peer,
    .dgram_refused = inet_dgram_refused,
};
