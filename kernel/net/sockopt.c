/*
 * Socket options at level SOL_SOCKET, which every family shares; the
 * family's own levels (IPPROTO_IP, IPPROTO_TCP, ...) are its setsockopt /
 * getsockopt.  Values and errnos are Linux's (net/core/sock.c): an int
 * option needs at least 4 bytes (EINVAL), a name nobody knows is
 * ENOPROTOOPT.
 */
#include "net/socket.h"
#include "proc/pid_ns.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>

#define USEC_PER_SEC 1000000L

int sockopt_int(const struct sockopt *o, int *val)
{
	if (o->len < sizeof(int))
		return -EINVAL;
	if (o->fault)
		return -EFAULT;
	*val = o->u.i;
	return 0;
}

void sockopt_put_int(struct sockopt *o, int v)
{
	o->len = sizeof(int);
	o->u.i = v;
}

/* SO_RCVBUF / SO_SNDBUF: doubled for bookkeeping and clamped, as Linux.
 * The FORCE forms (root's, which everyone is here) take the same ceiling:
 * it is what bounds the kernel memory one socket can pin. */
static unsigned int sock_bufsize(int val)
{
	unsigned long v = val < 0 ? 0 : (unsigned long)val * 2;

	return v < SOCK_BUF_MIN ? SOCK_BUF_MIN : v > SOCK_BUF_MAX ? SOCK_BUF_MAX : v;
}

/*
 * SO_RCVTIMEO / SO_SNDTIMEO from a struct timeval: in ns, rounded up to
 * the clock tick as Linux rounds to jiffies; 0 (or a negative time, as
 * Linux) waits forever; tv_usec outside [0, 1e6) is EDOM.
 */
static int sock_timeo(const struct sockopt *o, uint64_t *timeo)
{
	const uint64_t tick = NSEC_PER_SEC / TIMER_HZ;
	int64_t sec = o->u.tv.sec, usec = o->u.tv.usec;

	if (o->len < sizeof(o->u.tv))
		return -EINVAL;
	if (usec < 0 || usec >= USEC_PER_SEC)
		return -EDOM;
	if (sec < 0 || (sec == 0 && usec == 0)) {
		*timeo = 0;
		return 0;
	}
	if ((uint64_t)sec >= KTIME_MAX / NSEC_PER_SEC - 1)
		*timeo = 0; /* beyond any deadline: forever, as Linux's MAX_SCHEDULE_TIMEOUT */
	else
		*timeo = ((sec * NSEC_PER_SEC + usec * NSEC_PER_USEC + tick - 1) / tick) * tick;
	return 0;
}

static void sock_put_timeo(struct sockopt *o, uint64_t timeo)
{
	o->len = sizeof(o->u.tv);
	o->u.tv.sec = timeo / NSEC_PER_SEC;
	o->u.tv.usec = timeo % NSEC_PER_SEC / NSEC_PER_USEC;
}

/* Under sk's lock: an int option; -ENOPROTOOPT if name is not one. */
static int sock_set_int(struct socket *sk, int name, int val)
{
	switch (name) {
	case SO_REUSEADDR:
		sk->reuseaddr = val != 0;
		break;
	case SO_REUSEPORT:
		sk->reuseport = val != 0;
		break;
	case SO_OOBINLINE:
		sk->oobinline = val != 0;
		break;
	case SO_PASSCRED: /* AF_UNIX only (Linux 6.16's sk_may_scm_recv) */
		if (!sk->fam->passes_fds)
			return -EOPNOTSUPP;
		__atomic_store_n(&sk->passcred, val != 0, __ATOMIC_RELAXED);
		break;
	case SO_SNDBUF:
	case SO_SNDBUFFORCE:
		sk->sndbuf = sock_bufsize(val);
		break;
	case SO_RCVBUF:
	case SO_RCVBUFFORCE:
		sk->rcvbuf = sock_bufsize(val);
		if (!sk->rx.data)
			sk->rx.cap = sk->rcvbuf; /* the ring is sized at its first use */
		break;
	default:
		return -ENOPROTOOPT;
	}
	return 0;
}

int sock_set_sol(struct socket *sk, int name, const struct sockopt *o)
{
	uint64_t timeo = 0;
	int val, err = sockopt_int(o, &val); /* every option reads an int first, as Linux */

	if (err)
		return err;
	if (name == SO_RCVTIMEO || name == SO_SNDTIMEO) {
		err = sock_timeo(o, &timeo);
		if (err)
			return err;
	}
	spin_lock(&sk->lock);
	if (name == SO_RCVTIMEO)
		sk->rcvtimeo = timeo;
	else if (name == SO_SNDTIMEO)
		sk->sndtimeo = timeo;
	else
		err = sock_set_int(sk, name, val);
	spin_unlock(&sk->lock);
	return err;
}

/* Under sk's lock: SO_PEERCRED, as the caller's pid and user namespaces
 * name them; pid 0 and ids -1 without a peer, as Linux. */
static void sock_put_cred(const struct socket *sk, struct sockopt *o)
{
	struct user_namespace *ns = current_user_ns();

	o->len = sizeof(o->u.cred);
	o->u.cred.pid = sk->has_peercred ? pid_vnr(sk->peercred.pid) : 0; /* the caller's number */
	o->u.cred.uid =
	    sk->has_peercred ? from_kuid_munged(ns, (uint32_t)sk->peercred.uid) : (uint32_t)-1;
	o->u.cred.gid =
	    sk->has_peercred ? from_kgid_munged(ns, (uint32_t)sk->peercred.gid) : (uint32_t)-1;
}

/* Under sk's lock: the value of name, or -ENOPROTOOPT. */
static int sock_get_locked(struct socket *sk, int name, struct sockopt *o)
{
	int v;

	switch (name) {
	case SO_PEERCRED:
		sock_put_cred(sk, o);
		return 0;
	case SO_RCVTIMEO:
	case SO_SNDTIMEO:
		sock_put_timeo(o, name == SO_RCVTIMEO ? sk->rcvtimeo : sk->sndtimeo);
		return 0;
	case SO_TYPE:
		v = sk->type;
		break;
	case SO_PROTOCOL:
		v = sk->protocol;
		break;
	case SO_DOMAIN:
		v = sk->fam->family;
		break;
	case SO_ERROR:
		v = sk->error;
		sk->error = 0;
		break;
	case SO_REUSEADDR:
		v = sk->reuseaddr;
		break;
	case SO_REUSEPORT:
		v = sk->reuseport;
		break;
	case SO_OOBINLINE:
		v = sk->oobinline;
		break;
	case SO_PASSCRED:
		if (!sk->fam->passes_fds)
			return -EOPNOTSUPP;
		v = sk->passcred;
		break;
	case SO_RCVBUF:
		v = sk->rcvbuf;
		break;
	case SO_SNDBUF:
		v = sk->sndbuf;
		break;
	case SO_ACCEPTCONN:
		v = sk->state == SS_LISTENING;
		break;
	default:
		return -ENOPROTOOPT;
	}
	sockopt_put_int(o, v);
	return 0;
}

int sock_get_sol(struct socket *sk, int name, struct sockopt *o)
{
	int err;

	spin_lock(&sk->lock);
	err = sock_get_locked(sk, name, o);
	spin_unlock(&sk->lock);
	return err;
}
