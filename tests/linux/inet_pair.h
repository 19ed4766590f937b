/* A connected TCP pair over loopback, for the socket tests of tests/linux. */
#ifndef LINUX_INET_PAIR_H
#define LINUX_INET_PAIR_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"

/* *c the client, *a the end the listener accepted (the listener is closed). */
static inline void tcp_pair(int *c, int *a)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sin;
	int l = socket(AF_INET, SOCK_STREAM, 0);

	require(l >= 0 && bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 1) == 0 &&
		    getsockname(l, (struct sockaddr *)&sin, &len) == 0,
		"listener");
	*c = socket(AF_INET, SOCK_STREAM, 0);
	require(connect(*c, (struct sockaddr *)&sin, sizeof sin) == 0, "connect");
	*a = accept(l, NULL, NULL);
	require(*a >= 0, "accept");
	close(l);
}

#endif
