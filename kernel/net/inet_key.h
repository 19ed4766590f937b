/*
 * Addresses of AF_INET and AF_INET6 in one form, IPv6's: an IPv4 address
 * a.b.c.d is the v4-mapped ::ffff:a.b.c.d, so a dual-stack AF_INET6
 * socket and an AF_INET one compare without a case per pair (inet.c, the
 * two families' one code, and inet_port.c, the port table both share).
 */
#ifndef NET_INET_KEY_H
#define NET_INET_KEY_H

#include "lib/string.h"
#include "net/socket.h"

/* An address of either family in IPv6 form (v4-mapped for IPv4). */
struct inet_key {
	uint8_t b[16];
};

static inline void key_v4(struct inet_key *k, uint32_t ip) /* ip in host order */
{
	memset(k, 0, sizeof(*k));
	k->b[10] = k->b[11] = 0xff;
	k->b[12] = ip >> 24;
	k->b[13] = ip >> 16;
	k->b[14] = ip >> 8;
	k->b[15] = ip;
}

static inline bool key_is_v4(const struct inet_key *k)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(k->b, prefix, sizeof(prefix)) == 0;
}

static inline uint32_t key_v4_addr(const struct inet_key *k)
{
	return (uint32_t)k->b[12] << 24 | k->b[13] << 16 | k->b[14] << 8 | k->b[15];
}

static inline bool key_eq(const struct inet_key *a, const struct inet_key *b)
{
	return memcmp(a->b, b->b, sizeof(a->b)) == 0;
}

/* :: or 0.0.0.0 (::ffff:0.0.0.0). */
static inline bool key_is_any(const struct inet_key *k)
{
	static const struct inet_key any6;

	return key_eq(k, &any6) || (key_is_v4(k) && key_v4_addr(k) == 0);
}

/* The key and port of an AF_INET or AF_INET6 address (its form checked). */
void inet_key_of(const struct sock_addr *a, struct inet_key *k, unsigned int *port);
/* Sets *a to k:port in family's form (AF_INET needs an IPv4 k). */
void inet_make_name(struct sock_addr *a, int family, const struct inet_key *k, unsigned int port);

#endif
