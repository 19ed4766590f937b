/*
 * The network interface table (netdev.h): lo, and the changes Linux's
 * SIOCSIFFLAGS, SIOCSIFMTU and SIOCSIFTXQLEN make to it.
 */
#include "net/netdev.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include <uapi/errno.h>

#define LO_MTU	     65536
#define TXQLEN	     1000 /* Linux's DEFAULT_TX_QUEUE_LEN, lo's too */
#define IPV6_MIN_MTU 1280
#define LO_TCP_HDRS  53 /* lo's MTU less its TCP MSS on Linux */

/* Serialises the setters (a read-modify-write of flags). */
static struct spinlock netdev_lock = SPINLOCK_INIT("netdev");

struct net_device netdevs[] = {
    {.name = "lo",
     .index = LOOPBACK_DEV,
     .type = ARPHRD_LOOPBACK,
     .addr4 = LO_ADDR4,
     .mask4 = ~0U << (32 - LO_PREFIX4),
     .flags = IFF_UP | IFF_LOOPBACK,
     .mtu = LO_MTU,
     .txqlen = TXQLEN},
};
const size_t nnetdevs = sizeof(netdevs) / sizeof(netdevs[0]);

struct net_device *netdev_by_name(const char *name)
{
	for (size_t i = 0; i < nnetdevs; i++)
		if (!strcmp(netdevs[i].name, name))
			return &netdevs[i];
	return NULL;
}

struct net_device *netdev_by_index(int index)
{
	for (size_t i = 0; i < nnetdevs; i++)
		if (netdevs[i].index == index)
			return &netdevs[i];
	return NULL;
}

/* Linux's dev_get_flags: an interface that is up is running (lo has no
 * carrier to lose). */
unsigned int netdev_flags(const struct net_device *d)
{
	unsigned int f = __atomic_load_n(&d->flags, __ATOMIC_RELAXED);

	return f & IFF_UP ? f | IFF_RUNNING : f;
}

/* The flags a user changes (Linux's __dev_change_flags; PROMISC and
 * ALLMULTI as its gflags, which SIOCGIFFLAGS reports); the others are
 * the device's.  lo cannot go down here (EOPNOTSUPP): the stack has no
 * state for a loopback network without its interface, and Linux's
 * ENETUNREACH for 127.0.0.1 meanwhile is not modelled. */
#define IFF_USER_SET                                                                               \
	(IFF_DEBUG | IFF_NOTRAILERS | IFF_NOARP | IFF_DYNAMIC | IFF_MULTICAST | IFF_PORTSEL |      \
	 IFF_AUTOMEDIA | IFF_PROMISC | IFF_ALLMULTI)

int netdev_change_flags(struct net_device *d, unsigned int flags)
{
	if (!(flags & IFF_UP))
		return -EOPNOTSUPP;
	spin_lock(&netdev_lock);
	__atomic_store_n(&d->flags, (d->flags & ~IFF_USER_SET) | (flags & IFF_USER_SET),
			 __ATOMIC_RELAXED);
	spin_unlock(&netdev_lock);
	return 0;
}

/* Linux takes any MTU lo is given (EINVAL below 0) but then drops lo's
 * IPv6 address below 1280 and its IPv4 one below 68; the stack here has
 * no loopback without them, so below 1280 is EINVAL. */
int netdev_set_mtu(struct net_device *d, int mtu)
{
	if (mtu < IPV6_MIN_MTU)
		return -EINVAL;
	__atomic_store_n(&d->mtu, mtu, __ATOMIC_RELAXED);
	return 0;
}

int netdev_set_txqlen(struct net_device *d, int len)
{
	if (len < 0)
		return -EINVAL;
	__atomic_store_n(&d->txqlen, len, __ATOMIC_RELAXED);
	return 0;
}

/* IPv4 packets are at most 64 KiB whatever the MTU. */
size_t netdev_lo_segment(void)
{
	int mtu = __atomic_load_n(&netdev_by_index(LOOPBACK_DEV)->mtu, __ATOMIC_RELAXED);

	return (size_t)(mtu < LO_MTU ? mtu : LO_MTU) - LO_TCP_HDRS;
}
