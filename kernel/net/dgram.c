/*
 * SOCK_DGRAM for every family: each send is one message, queued whole on
 * the receiving socket (bounded by its SO_RCVBUF: a full receiver blocks
 * the sender or gives EAGAIN) and read whole; a short read truncates it.
 */
#include "fs/poll.h"
#include "mm/heap.h"
#include "net/scm.h"
#include "net/socket.h"
#include <uapi/errno.h>

struct dgram {
	struct list_head link; /* in the receiver's dgq */
	size_t len;
	struct sock_addr from;
	struct scm_fds *fds;
	char data[];
};

static void dgram_free(struct dgram *d)
{
	scm_free(d->fds);
	kfree(d);
}

/* Conditions a sleeper re-checks; read without the lock, re-checked under it. */
static bool has_room(struct socket *t, size_t len)
{
	return list_empty(&t->dgq) || t->dgq_bytes + len <= t->rcvbuf || t->dead;
}

static bool has_dgram(struct socket *sk)
{
	return !sk->rx_busy && (!list_empty(&sk->dgq) || (sk->shut & SHUT_RX));
}

/* Names sk before it sends; no port left is EAGAIN, as Linux's inet_autobind says. */
static int dgram_autobind(struct socket *sk)
{
	int err = sk->fam->autobind(sk);

	return err == -EADDRINUSE ? -EAGAIN : err;
}

static int dgram_connect(struct socket *sk, const struct sock_addr *addr, bool nonblock)
{
	struct socket *t = NULL, *old;
	int err = 0;

	(void)nonblock;
	if (addr->len < sizeof(addr->sa.ss_family) || addr->sa.ss_family != AF_UNSPEC) {
		err = sk->fam->check_addr(addr);
		if (!err)
			err = dgram_autobind(sk);
		if (!err)
			err = sk->fam->dgram_peer(sk, addr, &t);
		if (err)
			return err;
	}
	spin_lock(&sk->lock);
	old = sk->peer;
	sk->peer = t;
	if (addr->sa.ss_family == AF_UNSPEC)
		sk->remote.len = 0;
	else
		sk->remote = t ? t->local : *addr;
	sk->fam->wire_name(&sk->remote);
	spin_unlock(&sk->lock);
	if (old)
		sock_put(old);
	sock_wake(sk);
	return 0;
}

static int dgram_listen(struct socket *sk, int backlog)
{
	(void)sk, (void)backlog;
	return -EOPNOTSUPP;
}

static int dgram_accept(struct socket *sk, bool nonblock, struct socket **out)
{
	(void)sk, (void)nonblock, (void)out;
	return -EOPNOTSUPP;
}

/* Where a send goes: a referenced socket, NULL to drop the message, or -errno. */
static int dgram_target(struct socket *sk, const struct sock_addr *name, struct socket **t)
{
	struct sock_addr remote;
	int err;

	*t = NULL;
	if (name->len) {
		err = sk->fam->check_addr(name);
		if (!err)
			err = dgram_autobind(sk);
		return err ? err : sk->fam->lookup(sk, name, t);
	}
	spin_lock(&sk->lock);
	if (sk->peer)
		sock_get(*t = sk->peer);
	remote = sk->remote;
	spin_unlock(&sk->lock);
	if (*t || remote.len)
		return *t ? 0 : sk->fam->lookup(sk, &remote, t);
	return sk->fam->dgram_noaddr_err;
}

/* False once sk is shut down for sending. */
static bool may_send(struct socket *sk)
{
	bool ok;

	spin_lock(&sk->lock);
	ok = !(sk->shut & SHUT_TX);
	spin_unlock(&sk->lock);
	return ok;
}

/* The message m carries, copied in, stamped with sk's name. */
static struct dgram *dgram_build(struct socket *sk, struct kmsg *m, long *err)
{
	size_t len = m->it.left;
	struct dgram *d = kmalloc(sizeof(*d) + len);

	*err = !d ? -ENOMEM : 0;
	if (d)
		*err = iov_copy_from_user(&m->it, d->data, len);
	if (*err) {
		kfree(d);
		return NULL;
	}
	d->len = len;
	d->fds = NULL;
	spin_lock(&sk->lock);
	d->from = sk->bound ? sk->local : (struct sock_addr){0}; /* unnamed: no name */
	spin_unlock(&sk->lock);
	sk->fam->wire_name(&d->from);
	return d;
}

enum { DG_QUEUE, DG_WAIT, DG_DROP };

/* Under t's lock: what becomes of d now (DG_*), or -errno. */
static long dgram_verdict(struct socket *t, const struct dgram *d)
{
	int err;

	if (t->dead || (t->remote.len && !t->fam->same_addr(&t->remote, &d->from)))
		err = t->fam->dgram_refused(t);
	else
		return has_room(t, d->len) ? DG_QUEUE : DG_WAIT;
	return err ? err : DG_DROP; /* the family drops such messages silently */
}

/* Queues d on t, waiting for room unless nonblock: 0 when t took d, else
 * DG_DROP or -errno (d stays the caller's). */
static long dgram_enqueue(struct socket *t, struct dgram *d, bool nonblock)
{
	long v;

	for (;;) {
		spin_lock(&t->lock);
		v = dgram_verdict(t, d);
		if (v == DG_WAIT && nonblock)
			v = -EAGAIN;
		if (v != DG_WAIT)
			break;
		spin_unlock(&t->lock);
		v = wait_event_interruptible(&t->wq, has_room(t, d->len));
		if (v)
			return v;
	}
	if (v == DG_QUEUE) {
		list_add_tail(&d->link, &t->dgq);
		t->dgq_bytes += d->len;
	}
	spin_unlock(&t->lock);
	sock_wake(t);
	return v;
}

static long dgram_sendmsg(struct socket *sk, struct kmsg *m)
{
	size_t len = m->it.left;
	struct socket *t;
	struct dgram *d;
	long err;

	if (len > sk->fam->dgram_max || len > sk->sndbuf)
		return -EMSGSIZE;
	err = dgram_target(sk, &m->name, &t);
	if (!err && !may_send(sk))
		err = -EPIPE; /* shutdown(SHUT_WR): no SIGPIPE for datagrams, as Linux */
	if (err || !t) {
		if (t)
			sock_put(t);
		return err ? err : (long)len;
	}
	d = dgram_build(sk, m, &err);
	if (d) {
		d->fds = m->fds;
		m->fds = NULL;
		err = dgram_enqueue(t, d, m->nonblock);
		if (err) {
			m->fds = d->fds; /* the caller drops them */
			d->fds = NULL;
			dgram_free(d);
		}
	}
	sock_put(t);
	return err < 0 ? err : (long)len;
}

/* Copies the oldest message out (under sk's lock on entry and exit, which
 * it drops meanwhile); consumes it unless MSG_PEEK.  Its length, or -errno. */
static long dgram_take(struct socket *sk, struct kmsg *m)
{
	struct dgram *d = list_first_entry(&sk->dgq, struct dgram, link);
	size_t n = d->len < m->it.left ? d->len : m->it.left;
	long err;

	sk->rx_busy = true;
	spin_unlock(&sk->lock);
	err = iov_copy_to_user(&m->it, d->data, n);
	if (!err && d->fds)
		err = sock_deliver_fds(m, d->fds);
	m->name = d->from;
	if (n < d->len)
		m->out_flags |= MSG_TRUNC;
	spin_lock(&sk->lock);
	sk->rx_busy = false;
	if (err || (m->flags & MSG_PEEK))
		return err ? err : (long)d->len;
	list_del(&d->link);
	sk->dgq_bytes -= d->len;
	n = d->len;
	spin_unlock(&sk->lock);
	dgram_free(d); /* may put files: never under a socket lock */
	spin_lock(&sk->lock);
	return n;
}

static long dgram_recvmsg(struct socket *sk, struct kmsg *m)
{
	long n = 0;
	size_t want = m->it.left;

	spin_lock(&sk->lock);
	while (!n) {
		if (!sk->rx_busy && !list_empty(&sk->dgq)) {
			n = dgram_take(sk, m);
			break;
		}
		if (!sk->rx_busy && (sk->shut & SHUT_RX))
			break;
		if (m->nonblock) {
			n = -EAGAIN;
			break;
		}
		spin_unlock(&sk->lock);
		n = wait_event_interruptible(&sk->wq, has_dgram(sk));
		spin_lock(&sk->lock);
	}
	spin_unlock(&sk->lock);
	sock_wake(sk); /* room for senders, the queue for other readers */
	if (n > 0 && !(m->flags & MSG_TRUNC) && (size_t)n > want)
		n = want; /* the real length only with MSG_TRUNC, as Linux */
	return n;
}

static int dgram_shutdown(struct socket *sk, int how)
{
	unsigned int bits = how == SHUT_RD ? SHUT_RX : how == SHUT_WR ? SHUT_TX : SHUT_RX | SHUT_TX;

	spin_lock(&sk->lock);
	sk->shut |= bits;
	spin_unlock(&sk->lock);
	sock_wake(sk);
	return 0;
}

static void dgram_release(struct socket *sk)
{
	struct dgram *d, *next;
	struct list_head q = LIST_HEAD_INIT(q);
	struct socket *p;

	spin_lock(&sk->lock);
	sk->dead = true;
	sk->shut = SHUT_RX | SHUT_TX;
	p = sk->peer;
	sk->peer = NULL;
	list_for_each_entry_safe(d, next, &sk->dgq, link)
	{
		list_del(&d->link);
		list_add_tail(&d->link, &q);
	}
	sk->dgq_bytes = 0;
	spin_unlock(&sk->lock);
	sock_wake(sk); /* senders waiting for room give up */
	list_for_each_entry_safe(d, next, &q, link) dgram_free(d);
	if (p)
		sock_put(p);
}

static unsigned int dgram_poll(struct socket *sk, struct file *f, struct poll_table *pt)
{
	unsigned int mask = 0;
	struct socket *p;

	poll_wait(f, &sk->wq, pt);
	spin_lock(&sk->lock);
	if (sk->error)
		mask |= POLLERR;
	if (!list_empty(&sk->dgq) || (sk->shut & SHUT_RX))
		mask |= POLLIN | POLLRDNORM;
	if (sk->shut == (SHUT_RX | SHUT_TX))
		mask |= POLLHUP;
	p = sk->peer;
	spin_unlock(&sk->lock);
	if (p) {
		poll_wait(f, &p->wq, pt);
		spin_lock(&p->lock);
		if (p->dead || has_room(p, 1))
			mask |= POLLOUT | POLLWRNORM;
		spin_unlock(&p->lock);
	} else {
		mask |= POLLOUT | POLLWRNORM;
	}
	return mask;
}

const struct sock_proto dgram_proto = {
    .connect = dgram_connect,
    .listen = dgram_listen,
    .accept = dgram_accept,
    .sendmsg = dgram_sendmsg,
    .recvmsg = dgram_recvmsg,
    .shutdown = dgram_shutdown,
    .poll = dgram_poll,
    .release = dgram_release,
};
