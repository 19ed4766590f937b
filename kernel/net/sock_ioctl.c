/*
 * ioctl on sockets, as Linux's sock_ioctl: the socket's own requests
 * (FIONREAD/SIOCINQ, SIOCOUTQ, SIOCATMARK, the owner for SIGIO), then
 * SIOCGIFCONF and the interface requests of any family (dev_ioctl.c);
 * other requests ENOTTY.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/fasync.h"
#include "fs/file.h"
#include "net/sbuf.h"
#include "net/socket.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/sockios.h>

/* Not the socket's own request: the interface requests may take it. */
#define NOT_SOCKS (-(1L << 40))

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

/* SIOCOUTQ: what sk sent that its receiver does not have yet: TCP's
 * bytes held back (MSG_MORE, TCP_CORK: what its peer's buffer took is
 * acknowledged at once on loopback), UDP's corked datagram; for AF_UNIX
 * also what the receiver has not read (outq_unread): a stream's bytes,
 * datagrams' truesize (Linux counts the truesize of both). */
static long sock_outq(struct socket *sk, int *out)
{
	bool unread = sk->fam->outq_unread, listening;
	struct socket *p;
	size_t n = 0;

	if (sk->type != SOCK_STREAM) {
		*out = (int)dgram_outq(sk);
		return 0;
	}
	spin_lock(&sk->lock);
	listening = sk->state == SS_LISTENING;
	p = sk->peer; /* a stream's: valid while the file is open */
	spin_unlock(&sk->lock);
	if (listening && !unread)
		return -EINVAL;
	if (p) {
		spin_lock(&p->lock);
		n = unread ? sbuf_used(&p->rx) : sbuf_held(&p->rx);
		spin_unlock(&p->lock);
	}
	*out = (int)n;
	return 0;
}

/* SIOCATMARK: is the next byte read urgent data's mark?  Never: urgent
 * data goes in line here (stream.c), so no mark is ever pending, as on
 * Linux for TCP and AF_UNIX streams without MSG_OOB.  A datagram socket
 * answers as its family says (dgram_recv_oob_err). */
static long sock_atmark(struct socket *sk, int *out)
{
	if (sk->type == SOCK_STREAM) {
		*out = 0;
		return 0;
	}
	return sk->fam->dgram_recv_oob_err ? sk->fam->dgram_recv_oob_err : NOT_SOCKS;
}

/* The socket's own requests, each an int read from or written to arg,
 * or NOT_SOCKS. */
static long sock_own_ioctl(struct file *f, struct socket *sk, unsigned long cmd, int *uarg)
{
	long err;
	int n = 0;

	switch (cmd) {
	case FIOSETOWN:
	case SIOCSPGRP: /* the owner F_SETOWN sets (a negative pid: a group) */
		if (copy_from_user(&n, uarg, sizeof(n)))
			return -EFAULT;
		return fasync_fcntl(f, F_SETOWN, (unsigned long)(long)n);
	case FIOGETOWN:
	case SIOCGPGRP:
		n = (int)fasync_fcntl(f, F_GETOWN, 0);
		err = 0;
		break;
	case FIONREAD:
		err = sock_inq(sk, &n);
		break;
	case SIOCOUTQ:
		err = sock_outq(sk, &n);
		break;
	case SIOCATMARK:
		err = sock_atmark(sk, &n);
		break;
	default:
		return NOT_SOCKS;
	}
	if (!err && copy_to_user(uarg, &n, sizeof(n)))
		err = -EFAULT;
	return err;
}

long sock_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct socket *sk = sock_of_file(f);
	long err;

	if (cmd == SIOCGIFCONF)
		return dev_ifconf((void *)arg);
	err = sock_own_ioctl(f, sk, cmd, (int *)arg);
	if (err != NOT_SOCKS)
		return err;
	if ((cmd >> 8 & 0xff) != SOCK_IOC_TYPE)
		return -ENOTTY;
	return dev_ioctl(sk, (unsigned int)cmd, (void *)arg);
}
