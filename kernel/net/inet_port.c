/*
 * The inet port table, one for AF_INET and AF_INET6 as on Linux: the
 * sockets bound to each (type, port), found by hash, and per type a bitmap
 * of the ports in use for the ephemeral search.
 * A bind, a lookup or a search for a free port costs the sockets sharing
 * one port and a walk of a 28,232-bit bitmap, never a walk of every bound
 * socket: no call's time grows with what others have bound.
 */
#include "mm/heap.h"
#include "net/inet_mcast.h"
#include "net/inet_port.h"
#include <uapi/errno.h>

#define NPORTS	  65536
#define PORT_HASH 1024 /* chains: at most 2 types * NPORTS / PORT_HASH ports */
#define WORD_BITS 64

/* Ports handed out on demand (Linux's default ip_local_port_range). */
#define EPHEMERAL_FIRST 32768
#define EPHEMERAL_LAST	60999

/* What a bound socket's wildcard address covers (inet_covers). */
#define COVERS_V4 1
#define COVERS_V6 2

/* COVERS_V4 for an IPv4 address, COVERS_V6 for an IPv6 one. */
static unsigned int key_class(const struct inet_key *k)
{
	return key_is_v4(k) ? COVERS_V4 : COVERS_V6;
}

/* One (type, port) sockets are bound to; freed with its last owner. */
struct inet_port {
	struct inet_port *next; /* in its port_hash chain */
	int type;
	unsigned int port;
	struct list_head owners; /* the bound sockets, by bind_link */
};

/*
 * port_lock protects port_hash, port_used, next_ephemeral, every inet_port
 * and, for each bound inet socket, bind_link and bind_priv (its
 * inet_port).  Taken before a socket lock; kmalloc and kfree nest inside.
 */
static struct spinlock port_lock = SPINLOCK_INIT("inet_ports");
static struct inet_port *port_hash[PORT_HASH];
static uint64_t port_used[2][NPORTS / WORD_BITS];     /* bit set: an inet_port exists */
static unsigned int next_ephemeral = EPHEMERAL_FIRST; /* where the next search starts */

static uint64_t *used_map(int type)
{
	return port_used[type == SOCK_STREAM ? 0 : 1];
}

static struct inet_port **chain_of(int type, unsigned int port)
{
	return &port_hash[(port * 2 + (type == SOCK_STREAM)) % PORT_HASH];
}

/* Under port_lock: the entry of (type, port), or NULL. */
static struct inet_port *port_lookup(int type, unsigned int port)
{
	struct inet_port *pp = *chain_of(type, port);

	while (pp && (pp->type != type || pp->port != port))
		pp = pp->next;
	return pp;
}

/* Under port_lock: a new, empty entry for (type, port), or NULL. */
static struct inet_port *port_new(int type, unsigned int port)
{
	struct inet_port *pp = kmalloc(sizeof(*pp)), **chain = chain_of(type, port);

	if (!pp)
		return NULL;
	pp->type = type;
	pp->port = port;
	list_init(&pp->owners);
	pp->next = *chain;
	*chain = pp;
	used_map(type)[port / WORD_BITS] |= 1ull << (port % WORD_BITS);
	return pp;
}

/* Under port_lock: removes an entry without owners and frees it. */
static void port_free(struct inet_port *pp)
{
	struct inet_port **link = chain_of(pp->type, pp->port);

	while (*link != pp)
		link = &(*link)->next;
	*link = pp->next;
	used_map(pp->type)[pp->port / WORD_BITS] &= ~(1ull << (pp->port % WORD_BITS));
	kfree(pp);
}

/* The first clear bit of map in [from, to], or 0 if none. */
static unsigned int first_clear(const uint64_t *map, unsigned int from, unsigned int to)
{
	for (unsigned int w = from / WORD_BITS; w <= to / WORD_BITS; w++) {
		uint64_t free = ~map[w];
		if (w == from / WORD_BITS)
			free &= ~0ull << (from % WORD_BITS);
		if (free) {
			unsigned int bit = w * WORD_BITS + __builtin_ctzll(free);
			return bit <= to ? bit : 0;
		}
	}
	return 0;
}

/*
 * Under port_lock: an ephemeral port nothing of type is bound to, or 0.
 * The search starts after the last one handed out, so ports cycle through
 * the range; it reads at most the range's bitmap words.
 */
static unsigned int port_ephemeral(int type)
{
	const uint64_t *map = used_map(type);
	unsigned int port = first_clear(map, next_ephemeral, EPHEMERAL_LAST);

	if (!port)
		port = first_clear(map, EPHEMERAL_FIRST, EPHEMERAL_LAST);
	if (port)
		next_ephemeral = port == EPHEMERAL_LAST ? EPHEMERAL_FIRST : port + 1;
	return port;
}

static bool is_listening(struct socket *s)
{
	bool listening;

	spin_lock(&s->lock);
	listening = s->state == SS_LISTENING;
	spin_unlock(&s->lock);
	return listening;
}

/* What sk would cover bound to ip (inet_covers before it is bound). */
static unsigned int covers_of(const struct socket *sk, const struct inet_key *ip)
{
	if (!key_is_any(ip))
		return 0;
	if (key_is_v4(ip))
		return COVERS_V4;
	return COVERS_V6 | (sk->v6only ? 0 : COVERS_V4);
}

/* Under port_lock or with the socket bound for good: what bound socket s
 * receives besides its own address (COVERS_*: a wildcard), with its key. */
static unsigned int inet_covers(const struct socket *s, struct inet_key *k)
{
	unsigned int port;

	inet_key_of(&s->local, k, &port);
	return covers_of(s, k);
}

/*
 * Do two bound sockets receive some address in common?  Equal addresses
 * do; a wildcard covers its class (0.0.0.0 IPv4, :: of a V6ONLY socket
 * IPv6, :: of a dual-stack one both), so an AF_INET socket on 127.0.0.1
 * and a dual-stack AF_INET6 one on :: overlap, as on Linux.
 */
static bool addrs_overlap(unsigned int ca, const struct inet_key *a, unsigned int cb,
			  const struct inet_key *b)
{
	return key_eq(a, b) || (ca & cb) || (ca & key_class(b)) || (cb & key_class(a));
}

/* Under port_lock: may sk take ip (covering covers) on port pp, next to
 * its owners?  They clash when their addresses overlap, unless
 * SO_REUSEADDR is on both and neither listens, or SO_REUSEPORT is on both
 * and one user made them (any state; Linux's rule, so that another user
 * cannot steal a share of a port's traffic). */
static bool port_clash(struct socket *sk, struct inet_port *pp, const struct inet_key *ip,
		       unsigned int covers)
{
	struct inet_key sip;
	struct socket *s;

	list_for_each_entry(s, &pp->owners, bind_link)
	{
		if (!addrs_overlap(covers, ip, inet_covers(s, &sip), &sip))
			continue;
		if (sk->reuseport && s->reuseport && sk->owner_uid == s->owner_uid)
			continue;
		if (!(sk->reuseaddr && s->reuseaddr && !is_listening(s)))
			return true;
	}
	return false;
}

int inet_port_bind(struct socket *sk, const struct inet_key *ip, unsigned int port)
{
	struct inet_port *pp = NULL;
	unsigned int covers = covers_of(sk, ip);
	int err = 0;

	spin_lock(&port_lock);
	if (sk->bound)
		err = -EINVAL;
	else if (port == 0 && !(port = port_ephemeral(sk->type)))
		err = -EADDRINUSE;
	else if ((pp = port_lookup(sk->type, port)) && port_clash(sk, pp, ip, covers))
		err = -EADDRINUSE;
	else if (!pp && !(pp = port_new(sk->type, port)))
		err = -ENOMEM;
	if (!err) {
		list_add_tail(&sk->bind_link, &pp->owners);
		sk->bind_priv = pp;
		spin_lock(&sk->lock);
		inet_make_name(&sk->local, sk->fam->family, ip, port);
		sk->bound = true;
		spin_unlock(&sk->lock);
	}
	spin_unlock(&port_lock);
	return err;
}

/* Under port_lock: does bound socket s receive what is sent to ip? */
static bool receives(const struct socket *s, const struct inet_key *ip)
{
	struct inet_key sip;
	unsigned int covers = inet_covers(s, &sip);

	return key_eq(&sip, ip) || (covers & key_class(ip));
}

struct socket *inet_port_find(int type, const struct inet_key *ip, unsigned int port)
{
	struct socket *s, *found = NULL;
	struct inet_port *pp;

	spin_lock(&port_lock);
	pp = port_lookup(type, port);
	if (pp) {
		list_for_each_entry(s, &pp->owners, bind_link)
		{
			if (receives(s, ip) && (type != SOCK_STREAM || is_listening(s))) {
				sock_get(found = s);
				break;
			}
		}
	}
	spin_unlock(&port_lock);
	return found;
}

/* Under port_lock: the group's receivers on (type, port), at most max of
 * them into out (referenced; out NULL: only counted): how many there are. */
static size_t group_members(int type, const struct inet_key *ip, unsigned int port,
			    struct socket **out, size_t max)
{
	struct inet_port *pp = port_lookup(type, port);
	uint32_t group = key_v4_addr(ip);
	struct socket *s;
	size_t n = 0;

	if (!pp)
		return 0;
	list_for_each_entry(s, &pp->owners, bind_link)
	{
		if (!receives(s, ip) || !inet_mc_accepts(s, group))
			continue;
		if (out && n < max)
			sock_get(out[n] = s);
		n++;
	}
	return n;
}

/* Counted, then taken in an array sized by that count: a socket bound
 * in between may miss this datagram, as if it came first. */
int inet_port_group(int type, const struct inet_key *ip, unsigned int port, struct socket ***out,
		    size_t *n)
{
	size_t max, got;

	spin_lock(&port_lock);
	max = group_members(type, ip, port, NULL, 0);
	spin_unlock(&port_lock);
	*out = NULL;
	*n = 0;
	if (!max)
		return 0;
	*out = kmalloc(max * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	spin_lock(&port_lock);
	got = group_members(type, ip, port, *out, max);
	spin_unlock(&port_lock);
	*n = got < max ? got : max;
	return 0;
}

void inet_port_unbind(struct socket *sk)
{
	struct inet_port *pp;

	spin_lock(&port_lock);
	pp = sk->bind_priv;
	sk->bind_priv = NULL;
	list_del(&sk->bind_link);
	if (pp && list_empty(&pp->owners))
		port_free(pp);
	spin_unlock(&port_lock);
}
