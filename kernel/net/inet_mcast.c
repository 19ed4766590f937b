/*
 * IPv4 multicast on the loopback network, answered as Linux's
 * net/ipv4/igmp.c and ip_sockglue.c answer on a host whose one interface
 * is lo with the route 224.0.0.0/4 through it.  A socket joins groups on
 * lo (IP_ADD_MEMBERSHIP, MCAST_JOIN_GROUP; at most igmp_max_memberships
 * of them, left on close); the host is in every group some socket joined,
 * and a UDP datagram sent to such a group reaches every socket bound to
 * its port that joined it or keeps IP_MULTICAST_ALL (inet.c's
 * group_lookup).  No IGMP report goes anywhere: there is no other host.
 *
 * IP_MULTICAST_LOOP and IP_MULTICAST_TTL are kept and read back but change
 * nothing here, as on Linux's lo: the device loops every datagram back
 * itself, so one copy arrives whatever they say (LOOP 0 or TTL 0 on lo
 * are still delivered: tests/linux/inet_mcast.c asserts it on Linux).
 * IP_MULTICAST_IF can only name lo.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/proc/proc_sys.h"
#include "mm/heap.h"
#include "net/inet_key.h"
#include "net/inet_mcast.h"
#include <uapi/errno.h>

#define IGMP_ALL_HOSTS 0xe0000001U /* 224.0.0.1, which every interface is in */
#define GROUP_HASH     64

/* A group a socket joined. */
struct inet_mc {
	struct inet_mc *next; /* in its socket's mc_list */
	uint32_t group;	      /* host order */
	uint32_t addr;	      /* the interface's address as the join gave it (network order) */
	int ifindex;	      /* the interface, resolved */
};

/* A group the host is in on lo, held by the memberships of its sockets. */
struct mc_group {
	struct mc_group *next; /* in its group_hash chain */
	uint32_t group;
	unsigned int users;
};

/*
 * mc_lock protects every socket's mc_list, group_hash and the two counts.
 * Taken after inet_port.c's port_lock (a datagram's delivery asks the
 * sockets of a port under it); kmalloc and kfree nest inside.
 */
static struct spinlock mc_lock = SPINLOCK_INIT("inet_mcast");
static struct mc_group *group_hash[GROUP_HASH];
static unsigned long nmembers, ngroups;

/* net.ipv4.igmp_max_memberships: how many groups one socket may join
 * (ENOBUFS past it), Linux's default; root may change it. */
static int igmp_max_memberships = 20;
PROC_SYS_ROW(igmp_max_memberships_row, .path = "net/ipv4/igmp_max_memberships", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &igmp_max_memberships,
	     .min = -2147483647L - 1, .max = 2147483647L);

static uint32_t ntohl(uint32_t v)
{
	return __builtin_bswap32(v);
}

static struct mc_group **group_chain(uint32_t group)
{
	return &group_hash[(group ^ group >> 8) % GROUP_HASH];
}

/* Under mc_lock: the host's entry for group, or NULL. */
static struct mc_group *group_find(uint32_t group)
{
	struct mc_group *g = *group_chain(group);

	while (g && g->group != group)
		g = g->next;
	return g;
}

/* Under mc_lock: one membership more of group; false if out of memory. */
static bool group_hold(uint32_t group)
{
	struct mc_group *g = group_find(group), **chain = group_chain(group);

	if (!g) {
		g = kmalloc(sizeof(*g));
		if (!g)
			return false;
		g->group = group;
		g->users = 0;
		g->next = *chain;
		*chain = g;
		ngroups++;
	}
	g->users++;
	return true;
}

/* Under mc_lock: one membership fewer of group (held); the last frees it. */
static void group_release(uint32_t group)
{
	struct mc_group **link = group_chain(group), *g;

	while ((*link)->group != group)
		link = &(*link)->next;
	g = *link;
	if (--g->users)
		return;
	*link = g->next;
	kfree(g);
	ngroups--;
}

/* Under mc_lock: takes mc off its socket's list (at *link) and frees it. */
static void mc_unlink(struct inet_mc **link)
{
	struct inet_mc *mc = *link;

	*link = mc->next;
	group_release(mc->group);
	kfree(mc);
	nmembers--;
}

bool inet_mc_host_member(uint32_t group)
{
	bool member;

	if (group == IGMP_ALL_HOSTS)
		return true;
	spin_lock(&mc_lock);
	member = group_find(group) != NULL;
	spin_unlock(&mc_lock);
	return member;
}

bool inet_mc_accepts(struct socket *s, uint32_t group)
{
	bool joined = false;

	spin_lock(&mc_lock);
	for (struct inet_mc *mc = s->mc_list; mc && !joined; mc = mc->next)
		joined = mc->group == group && mc->ifindex == LOOPBACK_DEV;
	spin_unlock(&mc_lock);
	return joined || __atomic_load_n(&s->mc_all, __ATOMIC_RELAXED);
}

unsigned long inet_mc_count(void)
{
	unsigned long n;

	spin_lock(&mc_lock);
	n = nmembers + ngroups;
	spin_unlock(&mc_lock);
	return n;
}

void inet_mc_drop(struct socket *sk)
{
	spin_lock(&mc_lock);
	while (sk->mc_list)
		mc_unlink(&sk->mc_list);
	spin_unlock(&mc_lock);
}

/*
 * The interface m names, also set in m->imr_ifindex, as Linux's
 * ip_mc_find_dev: by index (lo's is the only one), else by address (lo
 * has 127.0.0.0/8), else the route to the group (224.0.0.0/4 goes
 * through lo); 0 if there is none.
 */
static int mc_find_dev(struct ip_mreqn *m)
{
	uint32_t addr = ntohl(m->imr_address.s_addr);

	if (m->imr_ifindex)
		return m->imr_ifindex == LOOPBACK_DEV ? LOOPBACK_DEV : 0;
	if (addr && !ipv4_is_loopback(addr))
		return 0;
	return m->imr_ifindex = LOOPBACK_DEV;
}

/* Under mc_lock: Linux's ip_mc_join_group; a failed allocation is
 * ENOBUFS, as Linux's sock_kmalloc's. */
static int mc_join(struct socket *sk, struct ip_mreqn *m)
{
	uint32_t group = ntohl(m->imr_multiaddr.s_addr);
	struct inet_mc *mc;
	int count = 0;

	if (!ipv4_is_multicast(group))
		return -EINVAL;
	if (!mc_find_dev(m))
		return -ENODEV;
	for (mc = sk->mc_list; mc; mc = mc->next, count++)
		if (mc->group == group && mc->ifindex == m->imr_ifindex)
			return -EADDRINUSE;
	if (count >= __atomic_load_n(&igmp_max_memberships, __ATOMIC_RELAXED))
		return -ENOBUFS;
	mc = kmalloc(sizeof(*mc));
	if (!mc || !group_hold(group)) {
		kfree(mc);
		return -ENOBUFS;
	}
	mc->group = group;
	mc->addr = m->imr_address.s_addr;
	mc->ifindex = m->imr_ifindex;
	mc->next = sk->mc_list;
	sk->mc_list = mc;
	nmembers++;
	return 0;
}

/*
 * Under mc_lock: Linux's ip_mc_leave_group.  The membership on the
 * interface m names, or, when it names none by index and its address
 * is on no interface, the one joined by that address; none is
 * EADDRNOTAVAIL, whatever the group (Linux checks no class here).
 * Linux's ENODEV, for a request naming nothing with no route to the
 * group, cannot happen: the route through lo is always there.
 */
static int mc_leave(struct socket *sk, struct ip_mreqn *m)
{
	uint32_t group = ntohl(m->imr_multiaddr.s_addr);
	struct inet_mc **link;

	mc_find_dev(m);
	for (link = &sk->mc_list; *link; link = &(*link)->next) {
		struct inet_mc *mc = *link;
		if (mc->group != group)
			continue;
		if (m->imr_ifindex ? mc->ifindex != m->imr_ifindex
				   : m->imr_address.s_addr && m->imr_address.s_addr != mc->addr)
			continue;
		mc_unlink(link);
		return 0;
	}
	return -EADDRNOTAVAIL;
}

/*
 * A join or leave request in Linux's one form, checked and read as
 * Linux does: MCAST_* take a whole group_req (shorter: EINVAL) naming an
 * AF_INET group (else EINVAL); IP_* an ip_mreq, or an ip_mreqn when the
 * caller gave that much.
 */
static int mc_request(int name, const struct sockopt *o, struct ip_mreqn *m)
{
	struct group_req g;

	*m = (struct ip_mreqn){0};
	if (name == MCAST_JOIN_GROUP || name == MCAST_LEAVE_GROUP) {
		if (o->len < sizeof(g))
			return -EINVAL;
		if (copy_from_user(&g, o->uval, sizeof(g)))
			return -EFAULT;
		if (g.gr_group.ss_family != AF_INET)
			return -EINVAL;
		m->imr_multiaddr = ((const struct sockaddr_in *)&g.gr_group)->sin_addr;
		m->imr_ifindex = (int32_t)g.gr_interface;
		return 0;
	}
	if (o->len < sizeof(struct ip_mreq))
		return -EINVAL;
	if (copy_from_user(m, o->uval, o->len >= sizeof(*m) ? sizeof(*m) : sizeof(struct ip_mreq)))
		return -EFAULT;
	return 0;
}

static int mc_membership(struct socket *sk, int name, const struct sockopt *o)
{
	struct ip_mreqn m;
	int err = mc_request(name, o, &m);

	if (err)
		return err;
	spin_lock(&mc_lock);
	if (name == IP_ADD_MEMBERSHIP || name == MCAST_JOIN_GROUP)
		err = mc_join(sk, &m);
	else
		err = mc_leave(sk, &m);
	spin_unlock(&mc_lock);
	return err;
}

/*
 * IP_MULTICAST_IF: an in_addr, an ip_mreq or an ip_mreqn, by the length
 * given; lo by index or by one of its addresses, or 0.0.0.0 for none (the
 * route's); another interface is EADDRNOTAVAIL.  Not on TCP (EINVAL).
 */
static int mc_set_if(struct socket *sk, const struct sockopt *o)
{
	struct ip_mreqn m = {0};
	size_t n = o->len >= sizeof(m)		      ? sizeof(m)
		   : o->len >= sizeof(struct ip_mreq) ? sizeof(struct ip_mreq)
						      : sizeof(struct in_addr);

	if (sk->type == SOCK_STREAM || o->len < sizeof(struct in_addr))
		return -EINVAL;
	if (copy_from_user(n == sizeof(struct in_addr) ? (void *)&m.imr_address : (void *)&m,
			   o->uval, n))
		return -EFAULT;
	if (m.imr_ifindex ? m.imr_ifindex != LOOPBACK_DEV
			  : m.imr_address.s_addr && !ipv4_is_loopback(ntohl(m.imr_address.s_addr)))
		return -EADDRNOTAVAIL;
	spin_lock(&sk->lock);
	sk->mc_addr = m.imr_address.s_addr;
	spin_unlock(&sk->lock);
	return 0;
}

int ip_opt_read_int(const struct sockopt *o, int *val)
{
	unsigned char c;

	*val = 0;
	if (o->len >= sizeof(int))
		return copy_from_user(val, o->uval, sizeof(int)) ? -EFAULT : 0;
	if (o->len && copy_from_user(&c, o->uval, 1))
		return -EFAULT;
	if (o->len)
		*val = c;
	return 0;
}

/* IP_MULTICAST_TTL (not on TCP; -1 is the default, 1), _LOOP, _ALL (0
 * or 1): each needs at least a byte (EINVAL). */
static int mc_set_int(struct socket *sk, int name, const struct sockopt *o)
{
	int val, err = ip_opt_read_int(o, &val);

	if (err)
		return err;
	if (name == IP_MULTICAST_TTL && sk->type == SOCK_STREAM)
		return -EINVAL;
	if (o->len < 1)
		return -EINVAL;
	if (name == IP_MULTICAST_TTL && val == -1)
		val = 1;
	if ((name == IP_MULTICAST_TTL && (val < 0 || val > 255)) ||
	    (name == IP_MULTICAST_ALL && val != 0 && val != 1))
		return -EINVAL;
	spin_lock(&sk->lock);
	if (name == IP_MULTICAST_TTL)
		sk->mc_ttl = val;
	else if (name == IP_MULTICAST_LOOP)
		sk->mc_loop = val != 0;
	else
		__atomic_store_n(&sk->mc_all, val != 0, __ATOMIC_RELAXED);
	spin_unlock(&sk->lock);
	return 0;
}

/* IP_ADD_MEMBERSHIP and IP_DROP_MEMBERSHIP are EPROTO on TCP, as Linux's
 * (its connection sockets refuse them); MCAST_* are taken there. */
int inet_mc_setsockopt(struct socket *sk, int name, const struct sockopt *o)
{
	switch (name) {
	case IP_ADD_MEMBERSHIP:
	case IP_DROP_MEMBERSHIP:
		if (sk->type == SOCK_STREAM)
			return -EPROTO;
		return mc_membership(sk, name, o);
	case MCAST_JOIN_GROUP:
	case MCAST_LEAVE_GROUP:
		return mc_membership(sk, name, o);
	case IP_MULTICAST_IF:
		return mc_set_if(sk, o);
	case IP_MULTICAST_TTL:
	case IP_MULTICAST_LOOP:
	case IP_MULTICAST_ALL:
		return mc_set_int(sk, name, o);
	}
	return -ENOPROTOOPT;
}

/* Under sk's lock: the value of option name in *v, or false if it is
 * not one of these. */
static bool mc_get_locked(const struct socket *sk, int name, int *v)
{
	switch (name) {
	case IP_MULTICAST_IF:
		*v = (int)sk->mc_addr; /* an in_addr, as int-sized */
		return true;
	case IP_MULTICAST_TTL:
		*v = sk->mc_ttl;
		return true;
	case IP_MULTICAST_LOOP:
		*v = sk->mc_loop;
		return true;
	case IP_MULTICAST_ALL:
		*v = sk->mc_all;
		return true;
	}
	return false;
}

/*
 * As Linux's ip_getsockopt: IP_MULTICAST_IF is the address it was given
 * (an in_addr); an int option is one byte when the caller asked for less
 * than an int and the value fits in one.
 */
int inet_mc_getsockopt(struct socket *sk, int name, struct sockopt *o)
{
	bool known;
	int v = 0;

	spin_lock(&sk->lock);
	known = mc_get_locked(sk, name, &v);
	spin_unlock(&sk->lock);
	if (!known)
		return -ENOPROTOOPT;
	if (name == IP_MULTICAST_IF)
		sockopt_put_int(o, v);
	else
		ip_opt_put_int(o, v);
	return 0;
}

void ip_opt_put_int(struct sockopt *o, int v)
{
	uint32_t asked = o->len;

	sockopt_put_int(o, v);
	if (asked > 0 && asked < sizeof(int) && v >= 0 && v <= 255) {
		o->len = 1;
		o->u.bytes[0] = (unsigned char)v;
	}
}
