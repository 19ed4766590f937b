/*
 * What AF_INET and AF_INET6 sockets take from socket() and from their own
 * option levels (inet_opt.c), for the two families' code (inet.c).
 */
#ifndef NET_INET_OPT_H
#define NET_INET_OPT_H

#include "net/socket.h"

/* socket()'s checks: type, with its protocol in *proto, or -errno. */
int inet_socket_type(int type, int protocol, int *proto);
/* The option levels IPPROTO_IP, IPPROTO_TCP, IPPROTO_UDP and IPPROTO_IPV6. */
int inet_setsockopt(struct socket *sk, int level, int name, const struct sockopt *o);
int inet_getsockopt(struct socket *sk, int level, int name, struct sockopt *o);

#endif
