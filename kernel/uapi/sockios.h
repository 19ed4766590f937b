/* ioctl requests on sockets: Linux x86_64 values (linux/sockios.h). */
#ifndef UAPI_SOCKIOS_H
#define UAPI_SOCKIOS_H

#define FIOSETOWN  0x8901 /* the socket's owner for SIGIO, as F_SETOWN */
#define SIOCSPGRP  0x8902
#define FIOGETOWN  0x8903
#define SIOCGPGRP  0x8904
#define SIOCATMARK 0x8905
#define SIOCOUTQ   0x5411 /* TIOCOUTQ */

/* The interface requests: SOCK_IOC_TYPE in the request's type byte
 * (Linux's is_socket_ioctl_cmd). */
#define SOCK_IOC_TYPE  0x89
#define SIOCGIFNAME    0x8910
#define SIOCGIFCONF    0x8912
#define SIOCGIFFLAGS   0x8913
#define SIOCSIFFLAGS   0x8914
#define SIOCGIFADDR    0x8915
#define SIOCGIFDSTADDR 0x8917
#define SIOCGIFBRDADDR 0x8919
#define SIOCGIFNETMASK 0x891b
#define SIOCGIFMETRIC  0x891d
#define SIOCSIFMETRIC  0x891e
#define SIOCGIFMTU     0x8921
#define SIOCSIFMTU     0x8922
#define SIOCGIFHWADDR  0x8927
#define SIOCGIFSLAVE   0x8929
#define SIOCGIFINDEX   0x8933
#define SIOCGIFPFLAGS  0x8935
#define SIOCGIFTXQLEN  0x8942
#define SIOCSIFTXQLEN  0x8943
#define SIOCGIFMAP     0x8970

#endif
