/*
 * The network interfaces: one table that the stack (inet.c's and
 * inet_mcast.c's addresses and interface indexes, stream.c's segment
 * size) and the interface ioctls (dev_ioctl.c) share.  fdkernel has one
 * interface, the loopback lo, as Linux's: index 1, 127.0.0.1/8 (and ::1,
 * inet.c), type ARPHRD_LOOPBACK with an all-zero hardware address, MTU
 * 65536, queue length 1000.  Name, index and addresses are constant; the
 * flags, MTU and queue length change under netdev.c's lock.
 */
#ifndef NET_NETDEV_H
#define NET_NETDEV_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/socket.h>

#define IFNAMSIZ 16

/* IFF_* (Linux's include/uapi/linux/if.h). */
#define IFF_UP		0x1
#define IFF_BROADCAST	0x2
#define IFF_DEBUG	0x4
#define IFF_LOOPBACK	0x8
#define IFF_NOTRAILERS	0x20
#define IFF_RUNNING	0x40
#define IFF_NOARP	0x80
#define IFF_PROMISC	0x100
#define IFF_ALLMULTI	0x200
#define IFF_MULTICAST	0x1000
#define IFF_PORTSEL	0x2000
#define IFF_AUTOMEDIA	0x4000
#define IFF_DYNAMIC	0x8000
#define ARPHRD_LOOPBACK 772

#define LOOPBACK_DEV 1		     /* lo's index */
#define LO_ADDR4     INADDR_LOOPBACK /* lo's IPv4 address (host order) ... */
#define LO_PREFIX4   8		     /* ... and prefix: all of 127.0.0.0/8 is lo's */

struct net_device {
	const char *name;
	int index;
	unsigned short type;	 /* ARPHRD_* */
	uint32_t addr4;		 /* its IPv4 address, host order */
	uint32_t mask4;		 /* and netmask */
	uint32_t brd4;		 /* and broadcast address (lo's has none: 0) */
	unsigned char hwaddr[6]; /* lo's is all zero, as Linux's */
	/* Each loaded and stored atomically; flags change under netdev_lock. */
	unsigned int flags; /* IFF_* as set (IFF_RUNNING is netdev_flags's) */
	int mtu;
	int txqlen;
};

/* The interfaces, by index order (what SIOCGIFCONF lists). */
extern struct net_device netdevs[];
extern const size_t nnetdevs;

/* NULL when there is none: the callers' ENODEV. */
struct net_device *netdev_by_name(const char *name);
struct net_device *netdev_by_index(int index);

/* The flags SIOCGIFFLAGS reports. */
unsigned int netdev_flags(const struct net_device *d);
/* The setters, as Linux's dev_change_flags, dev_set_mtu and
 * dev_change_tx_queue_len: 0 or -errno. */
int netdev_change_flags(struct net_device *d, unsigned int flags);
int netdev_set_mtu(struct net_device *d, int mtu);
int netdev_set_txqlen(struct net_device *d, int len);

/* Loopback TCP's segment size: lo's MTU less what Linux's MSS on lo
 * leaves out (65536 → 65483). */
size_t netdev_lo_segment(void);

#endif
