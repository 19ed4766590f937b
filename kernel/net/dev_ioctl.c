/*
 * The interface requests of ioctl on a socket of any family, on the
 * interface table (netdev.h), as Linux's dev_ioctl and dev_ifconf; the
 * IPv4 address requests only on a socket whose family answers them
 * (AF_INET: Linux's inet_ioctl → devinet_ioctl), ENOTTY on the others.
 */
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "net/netdev.h"
#include "net/socket.h"
#include "proc/cred.h"
#include <uapi/errno.h>
#include <uapi/sockios.h>

/* Linux's struct ifmap. */
struct ifmap_k {
	uint64_t mem_start, mem_end;
	uint16_t base_addr;
	uint8_t irq, dma, port;
};

/* Linux's struct ifreq: a name, then one of these (40 bytes). */
struct ifreq_k {
	char name[IFNAMSIZ];
	union {
		struct sockaddr addr; /* address requests; SIOCGIFHWADDR */
		struct sockaddr_in sin;
		short flags;
		int ivalue; /* ifindex, mtu, metric, qlen */
		struct ifmap_k map;
		char pad[24];
	};
};

/* Linux's struct ifconf. */
struct ifconf_k {
	int len;
	uint64_t buf; /* a user pointer: struct ifreq[] */
};

/* SIOCGIFCONF: an ifreq for each interface's IPv4 address (its name, an
 * AF_INET address), as many as len bytes hold (len negative: none); with
 * buf NULL, the length all of them need.  No EINVAL for any len. */
long dev_ifconf(void *uarg)
{
	struct ifconf_k c;
	struct ifreq_k r;
	int total = 0;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	for (size_t i = 0; i < nnetdevs; i++) {
		if (c.buf && c.len - total < (int)sizeof(r))
			break;
		if (c.buf) {
			memset(&r, 0, sizeof(r));
			strlcpy(r.name, netdevs[i].name, IFNAMSIZ);
			r.sin.sin_family = AF_INET;
			r.sin.sin_addr.s_addr = __builtin_bswap32(netdevs[i].addr4);
			if (copy_to_user((char *)c.buf + total, &r, sizeof(r)))
				return -EFAULT;
		}
		total += (int)sizeof(r);
	}
	return copy_to_user(&((struct ifconf_k *)uarg)->len, &total, sizeof(total)) ? -EFAULT : 0;
}

/* The getters anyone may call, on d (dev_ifsioc_locked, dev_get_mac_address). */
static long dev_get(const struct net_device *d, unsigned int cmd, struct ifreq_k *r)
{
	switch (cmd) {
	case SIOCGIFFLAGS:
		r->flags = (short)netdev_flags(d);
		break;
	case SIOCGIFMETRIC: /* unused by Linux: always 0 */
		r->ivalue = 0;
		break;
	case SIOCGIFMTU:
		r->ivalue = __atomic_load_n(&d->mtu, __ATOMIC_RELAXED);
		break;
	case SIOCGIFTXQLEN:
		r->ivalue = __atomic_load_n(&d->txqlen, __ATOMIC_RELAXED);
		break;
	case SIOCGIFINDEX:
		r->ivalue = d->index;
		break;
	case SIOCGIFMAP: /* no memory, port, irq or dma: a virtual device */
		r->map = (struct ifmap_k){0};
		break;
	case SIOCGIFHWADDR:
		r->addr.sa_family = d->type;
		memcpy(r->addr.sa_data, d->hwaddr, sizeof(d->hwaddr));
		break;
	case SIOCGIFSLAVE: /* no bonding */
		return -EINVAL;
	}
	return 0;
}

/* The setters, CAP_NET_ADMIN's (checked before the name, as Linux). */
static long dev_set(struct net_device *d, unsigned int cmd, const struct ifreq_k *r)
{
	switch (cmd) {
	case SIOCSIFFLAGS:
		return netdev_change_flags(d, (unsigned short)r->flags);
	case SIOCSIFMTU:
		return netdev_set_mtu(d, r->ivalue);
	case SIOCSIFTXQLEN:
		return netdev_set_txqlen(d, r->ivalue);
	}
	return -EOPNOTSUPP; /* SIOCSIFMETRIC: Linux's answer for any device */
}

/* The interface r names, an alias's ":n" ignored (*alias: it had one). */
static struct net_device *ifreq_dev(struct ifreq_k *r, bool *alias)
{
	char *colon = strchr(r->name, ':');
	struct net_device *d;

	if (colon)
		*colon = 0;
	d = netdev_by_name(r->name);
	if (colon)
		*colon = ':';
	*alias = colon;
	return d;
}

/* A setter's check, before the name is looked at: nothing is copied back. */
static bool may_set(bool *out)
{
	*out = false;
	return capable(CAP_NET_ADMIN);
}

/* Linux's dev_ioctl on r, a copy of the user's: SIOCGIFNAME by index;
 * the others by name.  *out: copy r back. */
static long dev_ifreq(unsigned int cmd, struct ifreq_k *r, bool *out)
{
	struct net_device *d;
	bool alias;

	if (cmd == SIOCGIFNAME) {
		if (!(d = netdev_by_index(r->ivalue)))
			return -ENODEV;
		strlcpy(r->name, d->name, IFNAMSIZ);
		return 0;
	}
	switch (cmd) {
	case SIOCGIFFLAGS:
	case SIOCGIFMETRIC:
	case SIOCGIFMTU:
	case SIOCGIFSLAVE:
	case SIOCGIFMAP:
	case SIOCGIFINDEX:
	case SIOCGIFTXQLEN:
	case SIOCGIFHWADDR:
		break;
	case SIOCSIFFLAGS:
	case SIOCSIFMETRIC:
	case SIOCSIFMTU:
	case SIOCSIFTXQLEN:
		if (!may_set(out))
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}
	if (!(d = ifreq_dev(r, &alias)))
		return -ENODEV;
	return *out ? dev_get(d, cmd, r) : dev_set(d, cmd, r);
}

/* Linux's devinet_ioctl: the one IPv4 address an interface has is
 * labelled with its name, so an alias ("lo:1") names none
 * (EADDRNOTAVAIL); SIOCSIFFLAGS of the interface itself sets its flags. */
static long devinet_ifreq(unsigned int cmd, struct ifreq_k *r, bool *out)
{
	struct net_device *d;
	bool alias;
	uint32_t a;

	if (cmd == SIOCSIFFLAGS && !may_set(out))
		return -EPERM;
	if (cmd == SIOCGIFPFLAGS)
		return -EINVAL;
	if (!(d = ifreq_dev(r, &alias)))
		return -ENODEV;
	if (alias)
		return -EADDRNOTAVAIL;
	switch (cmd) {
	case SIOCSIFFLAGS:
		return netdev_change_flags(d, (unsigned short)r->flags);
	case SIOCGIFADDR:
	case SIOCGIFDSTADDR: /* no peer: the address itself */
		a = d->addr4;
		break;
	case SIOCGIFNETMASK:
		a = d->mask4;
		break;
	default: /* SIOCGIFBRDADDR */
		a = d->brd4;
	}
	memset(&r->sin, 0, sizeof(r->sin));
	r->sin.sin_family = AF_INET;
	r->sin.sin_addr.s_addr = __builtin_bswap32(a);
	return 0;
}

static bool is_devinet_cmd(unsigned int cmd)
{
	switch (cmd) {
	case SIOCGIFADDR:
	case SIOCGIFBRDADDR:
	case SIOCGIFNETMASK:
	case SIOCGIFDSTADDR:
	case SIOCGIFPFLAGS:
	case SIOCSIFFLAGS:
		return true;
	}
	return false;
}

/* A request of type SOCK_IOC_TYPE that the socket itself did not take:
 * the ifreq is read first (EFAULT, whatever the request), as Linux's
 * sock_do_ioctl, and written back only by a getter that succeeded. */
long dev_ioctl(const struct socket *sk, unsigned int cmd, void *uarg)
{
	struct ifreq_k r;
	bool out = true;
	long err;

	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	r.name[IFNAMSIZ - 1] = 0;
	if (sk->fam->ifreq_v4 && is_devinet_cmd(cmd))
		err = devinet_ifreq(cmd, &r, &out);
	else
		err = dev_ifreq(cmd, &r, &out);
	if (err || !out)
		return err;
	return copy_to_user(uarg, &r, sizeof(r)) ? -EFAULT : 0;
}
