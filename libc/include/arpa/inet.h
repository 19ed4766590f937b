/*
 * IPv4 address text conversion (newlib has no <arpa/inet.h>); dotted quads
 * only.  Implemented in libc/sys/inet.c.
 */
#ifndef _ARPA_INET_H
#define _ARPA_INET_H

#include <netinet/in.h>

#define INET_ADDRSTRLEN 16

#ifdef __cplusplus
extern "C" {
#endif

int inet_pton(int af, const char *src, void *dst);
const char *inet_ntop(int af, const void *src, char *dst, socklen_t size);
in_addr_t inet_addr(const char *cp);

#ifdef __cplusplus
}
#endif
#endif
