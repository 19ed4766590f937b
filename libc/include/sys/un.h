/*
 * AF_UNIX addresses (newlib has no <sys/un.h>): struct sockaddr_un is
 * Linux's, from kernel/uapi.
 */
#ifndef _SYS_UN_H
#define _SYS_UN_H

#include <sys/socket.h>

#endif
