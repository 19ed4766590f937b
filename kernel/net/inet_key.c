/*
 * An inet address to and from its one form (inet_key.h): what every
 * AF_INET and AF_INET6 name becomes as it comes in, and is written back
 * as in the family of the socket that sees it.
 */
#include "net/inet_key.h"

void inet_key_of(const struct sock_addr *a, struct inet_key *k, unsigned int *port)
{
	const struct sockaddr_in *in = (const void *)&a->sa;
	const struct sockaddr_in6 *in6 = (const void *)&a->sa;

	if (a->sa.ss_family == AF_INET) {
		key_v4(k, __builtin_bswap32(in->sin_addr.s_addr));
		*port = __builtin_bswap16(in->sin_port);
	} else {
		__builtin_memcpy(k->b, in6->sin6_addr.s6_addr, sizeof(k->b));
		*port = __builtin_bswap16(in6->sin6_port);
	}
}

void inet_make_name(struct sock_addr *a, int family, const struct inet_key *k, unsigned int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&a->sa;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->sa;

	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		a->len = sizeof(*in);
		in->sin_family = AF_INET;
		in->sin_port = __builtin_bswap16(port);
		in->sin_addr.s_addr = __builtin_bswap32(key_v4_addr(k));
	} else {
		a->len = sizeof(*in6);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = __builtin_bswap16(port);
		__builtin_memcpy(in6->sin6_addr.s6_addr, k->b, sizeof(k->b));
	}
}
