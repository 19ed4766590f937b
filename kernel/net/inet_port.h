/*
 * The inet port table (inet_port.c): the sockets of both families bound
 * to each (type, port), as on Linux, and the search for a free ephemeral
 * port.
 */
#ifndef NET_INET_PORT_H
#define NET_INET_PORT_H

#include "net/inet_key.h"
#include "net/socket.h"

/*
 * Binds sk to ip:port, or to a free ephemeral port if port is 0.  Returns
 * 0, -EINVAL (already bound), -EADDRINUSE (taken, or no ephemeral port
 * left), -ENOMEM.
 */
int inet_port_bind(struct socket *sk, const struct inet_key *ip, unsigned int port);
/* The socket of type that receives what is sent to ip:port (for a stream:
 * a listener), referenced, or NULL. */
struct socket *inet_port_find(int type, const struct inet_key *ip, unsigned int port);
/* The sockets of type bound to port that receive what is sent to the
 * group ip and that inet_mc_accepts, referenced, in a new array of *n
 * (NULL if none): 0 or -ENOMEM. */
int inet_port_group(int type, const struct inet_key *ip, unsigned int port, struct socket ***out,
		    size_t *n);
/* Gives sk's port back (nothing if it was never bound). */
void inet_port_unbind(struct socket *sk);

#endif
