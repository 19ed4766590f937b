/*
 * Sockets: Linux x86_64 values and layouts for the loopback socket layer
 * (AF_UNIX, AF_INET on 127.0.0.0/8, AF_INET6 on ::1), shared by the
 * kernel and libc/.
 * Socket type flags (SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_CLOFORK): fcntl.h.
 */
#ifndef UAPI_SOCKET_H
#define UAPI_SOCKET_H

#include <stdint.h>
#include "uio.h"

#define AF_UNSPEC 0
#define AF_UNIX	  1
#define AF_LOCAL  AF_UNIX
#define AF_INET	  2
#define AF_INET6  10
#define PF_UNSPEC AF_UNSPEC
#define PF_UNIX	  AF_UNIX
#define PF_LOCAL  AF_LOCAL
#define PF_INET	  AF_INET
#define PF_INET6  AF_INET6

#define SOCK_STREAM    1
#define SOCK_DGRAM     2
#define SOCK_RAW       3
#define SOCK_SEQPACKET 5
#define SOCK_TYPE_MASK 0xf /* type bits; the rest of `type` are SOCK_* flags */

#define SOL_SOCKET     1
#define SO_REUSEADDR   2
#define SO_TYPE	       3
#define SO_ERROR       4
#define SO_SNDBUF      7
#define SO_RCVBUF      8
#define SO_OOBINLINE   10
#define SO_REUSEPORT   15
#define SO_PASSCRED    16
#define SO_PEERCRED    17
#define SO_RCVTIMEO    20 /* struct timeval (the _OLD form, 64-bit) */
#define SO_SNDTIMEO    21
#define SO_ACCEPTCONN  30
#define SO_SNDBUFFORCE 32
#define SO_RCVBUFFORCE 33
#define SO_PROTOCOL    38
#define SO_DOMAIN      39

#define IPPROTO_IP   0
#define IPPROTO_TCP  6
#define IPPROTO_UDP  17
#define IPPROTO_IPV6 41
#define IPPROTO_MAX  256 /* inet protocols are 0..255: others EINVAL */

#define TCP_NODELAY 1 /* level IPPROTO_TCP */
#define TCP_CORK    3
#define UDP_CORK    1  /* level IPPROTO_UDP */
#define IPV6_V6ONLY 26 /* level IPPROTO_IPV6 */
/* A datagram's destination address as a control message (inet.c). */
#define IP_RECVORIGDSTADDR   20 /* level IPPROTO_IP; the cmsg's type too */
#define IP_ORIGDSTADDR	     IP_RECVORIGDSTADDR
#define IPV6_RECVORIGDSTADDR 74 /* level IPPROTO_IPV6; the cmsg's type too */
#define IPV6_ORIGDSTADDR     IPV6_RECVORIGDSTADDR

/* Level IPPROTO_IP: multicast (net/inet_mcast.c). */
#define IP_MULTICAST_IF	   32 /* struct in_addr, ip_mreq or ip_mreqn */
#define IP_MULTICAST_TTL   33
#define IP_MULTICAST_LOOP  34
#define IP_ADD_MEMBERSHIP  35 /* struct ip_mreq or ip_mreqn */
#define IP_DROP_MEMBERSHIP 36
#define MCAST_JOIN_GROUP   42 /* struct group_req */
#define MCAST_LEAVE_GROUP  45
#define IP_MULTICAST_ALL   49

#define MSG_OOB		 0x1
#define MSG_PEEK	 0x2
#define MSG_TRUNC	 0x20
#define MSG_DONTWAIT	 0x40
#define MSG_EOR		 0x80
#define MSG_WAITALL	 0x100
#define MSG_ERRQUEUE	 0x2000
#define MSG_NOSIGNAL	 0x4000
#define MSG_MORE	 0x8000
#define MSG_WAITFORONE	 0x10000 /* recvmmsg: MSG_DONTWAIT after the first message */
#define MSG_CMSG_CLOEXEC 0x40000000
#define MSG_CMSG_CLOFORK 0x20000000 /* fdkernel: received fds get FD_CLOFORK */
#define MSG_CTRUNC	 0x8
#define MSG_CMSG_COMPAT	 0x80000000u /* 32-bit control messages: no 64-bit call takes it (EINVAL)  \
				      */

#define SHUT_RD	  0
#define SHUT_WR	  1
#define SHUT_RDWR 2

#define SCM_RIGHTS	1
#define SCM_CREDENTIALS 2 /* struct ucred */
#define SOMAXCONN	4096

#define INADDR_ANY	 0x00000000U /* host byte order */
#define INADDR_LOOPBACK	 0x7f000001U /* 127.0.0.1, host byte order */
#define INADDR_BROADCAST 0xffffffffU /* host byte order */

struct sockaddr {
	uint16_t sa_family;
	char sa_data[14];
};

struct in_addr {
	uint32_t s_addr; /* network byte order */
};

struct sockaddr_in {
	uint16_t sin_family; /* AF_INET */
	uint16_t sin_port;   /* network byte order */
	struct in_addr sin_addr;
	uint8_t sin_zero[8];
};

struct in6_addr {
	uint8_t s6_addr[16];
};

struct sockaddr_in6 {
	uint16_t sin6_family; /* AF_INET6 */
	uint16_t sin6_port;   /* network byte order */
	uint32_t sin6_flowinfo;
	struct in6_addr sin6_addr;
	uint32_t sin6_scope_id; /* the interface of a link-local address */
};
#define SIN6_LEN_RFC2133 24 /* the form before sin6_scope_id: shorter is EINVAL */

#define UNIX_PATH_MAX 108
struct sockaddr_un {
	uint16_t sun_family; /* AF_UNIX */
	char sun_path[UNIX_PATH_MAX];
};

/* Big enough and aligned for any address this kernel handles. */
struct sockaddr_storage {
	uint16_t ss_family;
	char ss_pad[118];
	uint64_t ss_align;
};

/* IP_ADD_MEMBERSHIP's older form: a group and an interface's address. */
struct ip_mreq {
	struct in_addr imr_multiaddr;
	struct in_addr imr_interface;
};

/* The newer: the interface by address or index (0: by the address). */
struct ip_mreqn {
	struct in_addr imr_multiaddr;
	struct in_addr imr_address;
	int32_t imr_ifindex;
};

/* MCAST_JOIN_GROUP / MCAST_LEAVE_GROUP: the interface by index. */
struct group_req {
	uint32_t gr_interface;
	struct sockaddr_storage gr_group;
};

/* SO_PEERCRED: the peer's process and user when the connection was made. */
struct ucred {
	int32_t pid;
	uint32_t uid;
	uint32_t gid;
};

struct msghdr {
	void *msg_name;
	uint32_t msg_namelen;
	struct iovec *msg_iov;
	__SIZE_TYPE__ msg_iovlen;
	void *msg_control;
	__SIZE_TYPE__ msg_controllen;
	int msg_flags;
};

/* sendmmsg / recvmmsg: one message and the bytes it moved. */
struct mmsghdr {
	struct msghdr msg_hdr;
	uint32_t msg_len;
};

struct cmsghdr {
	__SIZE_TYPE__ cmsg_len; /* header plus data, unpadded */
	int cmsg_level;
	int cmsg_type;
};

#endif
