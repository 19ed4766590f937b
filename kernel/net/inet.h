/*
 * AF_INET internals shared by inet.c (the family) and inet_port.c (the
 * table of bound ports): address helpers and the port table's calls.
 */
#ifndef NET_INET_H
#define NET_INET_H

#include "lib/string.h"
#include "net/socket.h"

/* Ports handed out on demand (Linux's default ip_local_port_range). */
#define EPHEMERAL_FIRST 32768
#define EPHEMERAL_LAST	60999

static inline uint32_t addr_of(const struct sock_addr *a)
{
	return __builtin_bswap32(((const struct sockaddr_in *)&a->sa)->sin_addr.s_addr);
}

static inline unsigned int port_of(const struct sock_addr *a)
{
	return __builtin_bswap16(((const struct sockaddr_in *)&a->sa)->sin_port);
}

/* Sets *a to ip:port. */
static inline void make_name(struct sock_addr *a, uint32_t ip, unsigned int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)&a->sa;

	memset(a, 0, sizeof(*a));
	a->len = sizeof(*in);
	in->sin_family = AF_INET;
	in->sin_port = __builtin_bswap16(port);
	in->sin_addr.s_addr = __builtin_bswap32(ip);
}

/*
 * Binds sk to ip:port, or to a free ephemeral port if port is 0.  Returns
 * 0, -EINVAL (already bound), -EADDRINUSE (taken, or no ephemeral port
 * left), -ENOMEM.
 */
int inet_port_bind(struct socket *sk, uint32_t ip, unsigned int port);
/* The socket of type that receives what is sent to ip:port (for a stream:
 * a listener), referenced, or NULL. */
struct socket *inet_port_find(int type, uint32_t ip, unsigned int port);
/* Gives sk's port back (nothing if it was never bound). */
void inet_port_unbind(struct socket *sk);

#endif
