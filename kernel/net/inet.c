/*
 * AF_INET on the loopback network only: 127.0.0.0/8 and INADDR_ANY (which
 * means loopback here).  Names are (address, port) pairs in one table per
 * system; ports 32768-60999 are handed out on demand, as Linux does.
 */
#include "lib/string.h"
#include "net/socket.h"
#include <uapi/errno.h>

#define EPHEMERAL_FIRST 32768
#define EPHEMERAL_LAST	60999
#define UDP_MAX		65507 /* largest UDP payload over IPv4 */

/*
 * Protects inet_bound, next_ephemeral and, for each bound socket,
 * bind_link.  Taken before a socket lock.
 */
static struct spinlock inet_lock = SPINLOCK_INIT("inet_bound");
static struct list_head inet_bound = LIST_HEAD_INIT(inet_bound);
static unsigned int next_ephemeral = EPHEMERAL_FIRST;

static uint32_t addr_of(const struct sock_addr *a)
{
	return __builtin_bswap32(((const struct sockaddr_in *)&a->sa)->sin_addr.s_addr);
}

static unsigned int port_of(const struct sock_addr *a)
{
	return __builtin_bswap16(((const struct sockaddr_in *)&a->sa)->sin_port);
}

static bool is_loopback(uint32_t ip)
{
	return (ip >> 24) == 127;
}

/* Sets *a to ip:port. */
static void make_name(struct sock_addr *a, uint32_t ip, unsigned int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&a->sa;

	memset(a, 0, sizeof(*a));
	a->len = sizeof(*in);
	in->sin_family = AF_INET;
	in->sin_port = __builtin_bswap16(port);
	in->sin_addr.s_addr = __builtin_bswap32(ip);
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

/* Under inet_lock: may sk take ip:port next to s?  (SO_REUSEADDR on both
 * shares a port, except with a listening stream socket.) */
static bool inet_clash(struct socket *sk, struct socket *s, uint32_t ip, unsigned int port)
{
	uint32_t sip = addr_of(&s->local);
	bool listening;

	if (s->type != sk->type || port_of(&s->local) != port)
		return false;
	if (sip != ip && sip != INADDR_ANY && ip != INADDR_ANY)
		return false;
	spin_lock(&s->lock);
	listening = s->state == SS_LISTENING;
	spin_unlock(&s->lock);
	return !(sk->reuseaddr && s->reuseaddr && !listening);
}

static bool inet_port_taken(struct socket *sk, uint32_t ip, unsigned int port)
{
	struct socket *s;

	list_for_each_entry(s, &inet_bound, bind_link) if (inet_clash(sk, s, ip, port)) return true;
	return false;
}

/* Under inet_lock: a free ephemeral port for sk, or 0. */
static unsigned int inet_ephemeral(struct socket *sk, uint32_t ip)
{
	unsigned int span = EPHEMERAL_LAST - EPHEMERAL_FIRST + 1;

	for (unsigned int i = 0; i < span; i++) {
		unsigned int port = next_ephemeral;
		next_ephemeral = port == EPHEMERAL_LAST ? EPHEMERAL_FIRST : port + 1;
		if (!inet_port_taken(sk, ip, port))
			return port;
	}
	return 0;
}

/* Binds sk to ip:port (port 0: an ephemeral one). */
static int inet_bind_to(struct socket *sk, uint32_t ip, unsigned int port)
{
	int err = 0;

	spin_lock(&inet_lock);
	if (sk->bound)
		err = -EINVAL;
	else if (port == 0 && !(port = inet_ephemeral(sk, ip)))
		err = -EADDRINUSE;
	else if (inet_port_taken(sk, ip, port))
		err = -EADDRINUSE;
	if (!err) {
		list_add_tail(&sk->bind_link, &inet_bound);
		spin_lock(&sk->lock);
		make_name(&sk->local, ip, port);
		sk->bound = true;
		spin_unlock(&sk->lock);
	}
	spin_unlock(&inet_lock);
	return err;
}

static int inet_bind(struct socket *sk, const struct sock_addr *a)
{
	int err = inet_check_form(a);

	if (err)
		return err;
	if (addr_of(a) != INADDR_ANY && !is_loopback(addr_of(a)))
		return -EADDRNOTAVAIL;
	return inet_bind_to(sk, addr_of(a), port_of(a));
}

static int inet_autobind(struct socket *sk)
{
	int err;

	if (sk->bound)
		return 0;
	err = inet_bind_to(sk, INADDR_LOOPBACK, 0); /* the source address a peer sees */
	return err == -EINVAL ? 0 : err == -EADDRINUSE ? -EADDRNOTAVAIL : err;
}

/* Under inet_lock: may s receive what is sent to ip:port by a socket of type? */
static bool inet_match(struct socket *s, int type, uint32_t ip, unsigned int port)
{
	uint32_t sip = addr_of(&s->local);
	bool ok;

	if (s->type != type || port_of(&s->local) != port || (sip != INADDR_ANY && sip != ip))
		return false;
	if (type != SOCK_STREAM)
		return true;
	spin_lock(&s->lock);
	ok = s->state == SS_LISTENING;
	spin_unlock(&s->lock);
	return ok;
}

/* The listener (stream) or receiver (datagram: NULL drops the message). */
static int inet_lookup(struct socket *sk, const struct sock_addr *a, struct socket **out)
{
	uint32_t ip = addr_of(a) == INADDR_ANY ? INADDR_LOOPBACK : addr_of(a);
	struct socket *s;

	*out = NULL;
	spin_lock(&inet_lock);
	list_for_each_entry(s, &inet_bound, bind_link)
	{
		if (inet_match(s, sk->type, ip, port_of(a))) {
			sock_get(*out = s);
			break;
		}
	}
	spin_unlock(&inet_lock);
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

static void inet_unbind(struct socket *sk)
{
	spin_lock(&inet_lock);
	list_del(&sk->bind_link);
	spin_unlock(&inet_lock);
}

const struct sock_family inet_family = {
    .family = AF_INET,
    .unnamed_len = sizeof(struct sockaddr_in),
    .passes_fds = false,
    .connect_inprogress = true,
    .accept_name_is_dest = true,
    .stream_unconnected_err = -EPIPE,
    .dgram_noaddr_err = -EDESTADDRREQ,
    .dgram_dead_err = 0,
    .dgram_foreign_err = 0,
    .dgram_max = UDP_MAX,
    .dgram_connect_holds_peer = false,
    .check_addr = inet_check_addr,
    .bind = inet_bind,
    .autobind = inet_autobind,
    .lookup = inet_lookup,
    .wire_name = inet_wire_name,
    .same_addr = inet_same_addr,
    .unbind = inet_unbind,
    .pair = NULL,
};
