/*
 * ioctl on sockets: FIONREAD (SIOCINQ), the bytes a read would take, and
 * the network interface requests of Linux's dev_ioctl for the one
 * interface fdkernel has, the loopback "lo" (index 1, always up, MTU
 * 65536): SIOCGIFFLAGS, SIOCSIFFLAGS (CAP_NET_ADMIN; it cannot go down:
 * EOPNOTSUPP), SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFMTU.  Another name or
 * index is ENODEV, as on Linux; other requests ENOTTY.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "lib/string.h"
#include "net/socket.h"
#include "proc/cred.h"
#include <uapi/errno.h>
#include <uapi/ioctl.h>

#define SIOCGIFNAME  0x8910
#define SIOCGIFFLAGS 0x8913
#define SIOCSIFFLAGS 0x8914
#define SIOCGIFMTU   0x8921
#define SIOCGIFINDEX 0x8933

#define IFNAMSIZ     16
#define IFF_UP	     0x1
#define IFF_LOOPBACK 0x8
#define IFF_RUNNING  0x40
#define LO_FLAGS     (IFF_UP | IFF_LOOPBACK | IFF_RUNNING)
#define LO_INDEX     1
#define LO_MTU	     65536

/* Linux's struct ifreq: a name, then one of these (40 bytes). */
struct ifreq_k {
	char name[IFNAMSIZ];
	union {
		short flags;
		int ivalue; /* ifindex, mtu */
		char pad[24];
	};
};

/* FIONREAD: a stream's bytes ready (EINVAL while listening, as Linux's
 * TCP and AF_UNIX), a datagram socket's next message's length. */
static long sock_inq(struct socket *sk, int *out)
{
	long err = 0;

	if (sk->type != SOCK_STREAM) {
		*out = (int)dgram_first_len(sk);
		return 0;
	}
	spin_lock(&sk->lock);
	if (sk->state == SS_LISTENING)
		err = -EINVAL;
	else
		*out = (int)sbuf_ready(&sk->rx);
	spin_unlock(&sk->lock);
	return err;
}

/* The interface a request names: 0 for lo, -ENODEV for any other. */
static int ifreq_lookup(unsigned int cmd, struct ifreq_k *r)
{
	if (cmd == SIOCGIFNAME)
		return r->ivalue == LO_INDEX ? 0 : -ENODEV;
	r->name[IFNAMSIZ - 1] = 0;
	return strcmp(r->name, "lo") ? -ENODEV : 0;
}

/* Linux's order: the request (EFAULT), SIOCSIFFLAGS's CAP_NET_ADMIN
 * (EPERM), the interface (ENODEV).  lo stays up: EOPNOTSUPP to take it
 * down (nothing here could go without it); the flags it has are kept. */
static long sock_ifreq(unsigned int cmd, void *uarg)
{
	struct ifreq_k r;
	long err;

	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	if (cmd == SIOCSIFFLAGS && !capable(CAP_NET_ADMIN))
		return -EPERM;
	if ((err = ifreq_lookup(cmd, &r)))
		return err;
	switch (cmd) {
	case SIOCSIFFLAGS:
		return r.flags & IFF_UP ? 0 : -EOPNOTSUPP;
	case SIOCGIFFLAGS:
		r.flags = LO_FLAGS;
		break;
	case SIOCGIFINDEX:
		r.ivalue = LO_INDEX;
		break;
	case SIOCGIFMTU:
		r.ivalue = LO_MTU;
		break;
	case SIOCGIFNAME:
		memcpy(r.name, "lo", 3);
		break;
	}
	return copy_to_user(uarg, &r, sizeof(r)) ? -EFAULT : 0;
}

long sock_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct socket *sk = sock_of_file(f);
	int n = 0;
	long err;

	switch (cmd) {
	case FIONREAD:
		if (!(err = sock_inq(sk, &n)) && copy_to_user((void *)arg, &n, sizeof(n)))
			err = -EFAULT;
		return err;
	case SIOCGIFFLAGS:
	case SIOCSIFFLAGS:
	case SIOCGIFINDEX:
	case SIOCGIFNAME:
	case SIOCGIFMTU:
		return sock_ifreq((unsigned int)cmd, (void *)arg);
	}
	return -ENOTTY;
}
