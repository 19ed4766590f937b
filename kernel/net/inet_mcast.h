/*
 * IPv4 multicast on the loopback network (inet_mcast.c): the IPPROTO_IP
 * options, each socket's groups, and the host's (what a datagram sent to
 * a group needs to be received at all).
 */
#ifndef NET_INET_MCAST_H
#define NET_INET_MCAST_H

#include "net/socket.h"

/* IPPROTO_IP options (inet_opt.c passes the level on): -ENOPROTOOPT for
 * a name that is not a multicast one. */
int inet_mc_setsockopt(struct socket *sk, int name, const struct sockopt *o);
int inet_mc_getsockopt(struct socket *sk, int name, struct sockopt *o);
/* An IPPROTO_IP int option's value as Linux's ip_setsockopt reads it: an
 * int if the caller gave one, else a byte if it gave that, else 0: 0 or
 * -EFAULT.  ip_opt_put_int: as ip_getsockopt answers, one byte when the
 * caller asked for less than an int and the value fits in one. */
int ip_opt_read_int(const struct sockopt *o, int *val);
void ip_opt_put_int(struct sockopt *o, int v);
/* The file of sk is closing: it leaves its groups. */
void inet_mc_drop(struct socket *sk);
/* Is the host a member of group (host order) on lo: some socket joined
 * it, or it is 224.0.0.1, which every interface is in?  Else a datagram
 * sent to it is received by nobody, as Linux's ip_check_mc_rcu. */
bool inet_mc_host_member(uint32_t group);
/* Does s, bound to the port a datagram to group came to, take it: it
 * joined group, or it has IP_MULTICAST_ALL (Linux's ip_mc_sf_allow). */
bool inet_mc_accepts(struct socket *s, uint32_t group);
/* Memberships and host groups allocated (leak accounting). */
unsigned long inet_mc_count(void);

#endif
