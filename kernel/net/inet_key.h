/*
 * Addresses of AF_INET and AF_INET6 in one form, IPv6's: an IPv4 address
 * a.b.c.d is the v4-mapped ::ffff:a.b.c.d, so a dual-stack AF_INET6
 * socket and an AF_INET one compare without a case per pair (inet.c, the
 * two families' one code, and inet_port.c, the port table both share).
 */
#ifndef NET_INET_KEY_H
#define NET_INET_KEY_H

#include "lib/string.h"
#include "net/netdev.h"
#include "net/socket.h"

/* An address of either family in IPv6 form (v4-mapped for IPv4).  The
 * tests below read it as two 64-bit words (w[1]: bytes 8-15, little
 * endian), so none of them is a byte loop (the kernel's memcmp is one). */
struct inet_key {
	union {
		uint8_t b[16];
		uint64_t w[2];
	};
};

/* w[1] of ::ffff:0.0.0.0: bytes 10 and 11 0xff, the IPv4 address 0. */
#define KEY_V4_PREFIX 0xffff0000UL

static inline void key_v4(struct inet_key *k, uint32_t ip) /* ip in host order */
{
	k->w[0] = 0;
	k->w[1] = KEY_V4_PREFIX | (uint64_t)__builtin_bswap32(ip) << 32;
}

static inline bool key_is_v4(const struct inet_key *k)
{
	return k->w[0] == 0 && (uint32_t)k->w[1] == KEY_V4_PREFIX;
}

static inline uint32_t key_v4_addr(const struct inet_key *k)
{
	return __builtin_bswap32((uint32_t)(k->w[1] >> 32));
}

static inline bool key_eq(const struct inet_key *a, const struct inet_key *b)
{
	return ((a->w[0] ^ b->w[0]) | (a->w[1] ^ b->w[1])) == 0;
}

/* IPv4 addresses in host order: lo's network, 127.0.0.0/8 (all of it
 * lo's, as Linux's local route), and the multicast groups 224.0.0.0/4. */
static inline bool ipv4_is_loopback(uint32_t ip)
{
	return ip >> (32 - LO_PREFIX4) == LO_ADDR4 >> (32 - LO_PREFIX4);
}

static inline bool ipv4_is_multicast(uint32_t ip)
{
	return ip >> 28 == 0xe;
}

/* An IPv4 multicast group (v4-mapped: AF_INET6 sockets send to them too). */
static inline bool key_is_group(const struct inet_key *k)
{
	return key_is_v4(k) && ipv4_is_multicast(key_v4_addr(k));
}

/* :: or 0.0.0.0 (::ffff:0.0.0.0). */
static inline bool key_is_any(const struct inet_key *k)
{
	return k->w[0] == 0 && (k->w[1] == 0 || k->w[1] == KEY_V4_PREFIX);
}

/* The key and port of an AF_INET or AF_INET6 address (its form checked). */
void inet_key_of(const struct sock_addr *a, struct inet_key *k, unsigned int *port);
/* Sets *a to k:port in family's form (AF_INET needs an IPv4 k). */
void inet_make_name(struct sock_addr *a, int family, const struct inet_key *k, unsigned int port);

#endif
