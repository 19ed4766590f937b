/*
 * IPv4 address text conversion for <arpa/inet.h>: dotted quads only, as
 * fdkernel speaks AF_INET on loopback and nothing else.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Parse "a.b.c.d" strictly (four decimal parts 0..255); 1 on success. */
static int parse_quad(const char *s, uint32_t *addr)
{
	uint32_t a = 0;

	for (int i = 0; i < 4; i++) {
		char *end;
		if (*s < '0' || *s > '9')
			return 0;
		unsigned long part = strtoul(s, &end, 10);
		if (part > 255 || end - s > 3 || *end != (i < 3 ? '.' : '\0'))
			return 0;
		a = a << 8 | part;
		s = end + 1;
	}
	*addr = htonl(a);
	return 1;
}

int inet_pton(int af, const char *src, void *dst)
{
	if (af != AF_INET) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	return parse_quad(src, &((struct in_addr *)dst)->s_addr);
}

const char *inet_ntop(int af, const void *src, char *dst, socklen_t size)
{
	uint32_t a;

	if (af != AF_INET) {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	a = ntohl(((const struct in_addr *)src)->s_addr);
	if ((socklen_t)snprintf(dst, size, "%u.%u.%u.%u", a >> 24, a >> 16 & 255, a >> 8 & 255,
				a & 255) >= size) {
		errno = ENOSPC;
		return NULL;
	}
	return dst;
}

in_addr_t inet_addr(const char *cp)
{
	uint32_t a;

	return parse_quad(cp, &a) ? a : INADDR_NONE;
}
