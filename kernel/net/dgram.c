/*
 * SOCK_DGRAM for every family: each send is one message, queued whole on
 * the receiving socket and read whole; a short read truncates it.  A
 * queue holds messages up to its SO_RCVBUF, each counted at what it
 * costs the kernel, not only its bytes (a full receiver blocks the
 * sender or gives EAGAIN): empty messages, which may carry 253 fds, fill
 * it too.
 */
#include "fs/poll.h"
#include "mm/heap.h"
#include "net/scm.h"
#include "net/socket.h"
#include <uapi/errno.h>

struct dgram {
	struct list_head link; /* in the receiver's dgq */
	size_t len;
	size_t truesize; /* charged to the receiver while queued (dgram_truesize) */
	struct sock_addr from;
	struct scm_fds *fds;
	char data[];
};

/* The cheapest message: an empty one without fds. */
#define DGRAM_MIN_TRUESIZE sizeof(struct dgram)

/* What d costs the queue it waits in: its bytes and the memory carrying
 * them (Linux's skb truesize). */
static size_t dgram_truesize(const struct dgram *d)
{
	return sizeof(*d) + d->len + scm_size(d->fds);
}

static void dgram_free(struct dgram *d)
{
	scm_free(d->fds);
	kfree(d);
}

/* Conditions a sleeper re-checks; read without the lock, re-checked under it. */
static bool has_room(struct socket *t, size_t truesize)
{
	return list_empty(&t->dgq) || t->dgq_size + truesize <= t->rcvbuf || t->dead;
}

static bool has_dgram(struct socket *sk)
{
	return !sk->rx_busy && (!list_empty(&sk->dgq) || (sk->shut & SHUT_RX));
}

/* Wakes sk's readers and pollers, and senders waiting for room in it. */
static void dgram_wake(struct socket *sk)
{
	sock_wake(sk);
	wake_up(&sk->room_wq);
}

/* sk's peer has room or died: the relay unqueues itself and wakes sk's
 * pollers (under the peer's room_wq lock; sk lives, see dgram_unpeer). */
static void dgram_peer_woken(struct wait_entry *we)
{
	struct socket *sk = container_of(we, struct socket, peer_wake);

	list_del(&we->link);
	sock_wake(sk);
}

/*
 * Under sk's lock: clears sk->peer and returns it (the reference is the
 * caller's).  Takes the relay off the peer's queue first: it is queued
 * only there, so after this nothing can call it, and sk may be freed.
 */
static struct socket *dgram_unpeer(struct socket *sk)
{
	struct socket *p = sk->peer;

	if (p)
		wait_remove(&p->room_wq, &sk->peer_wake);
	sk->peer = NULL;
	return p;
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
	old = dgram_unpeer(sk);
	sk->peer = t;
	if (addr->sa.ss_family == AF_UNSPEC)
		sk->remote.len = 0;
	else
		sk->remote = t ? t->local : *addr;
	sk->fam->wire_name(&sk->remote);
	spin_unlock(&sk->lock);
	if (old)
		sock_put(old);
	dgram_wake(sk); /* its senders may now be refused */
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
static struct dgram *dgram_build(struct socket *sk, struct kmsg *m, int *err)
{
	size_t len = m->it.left;
	struct dgram *d = kmalloc(sizeof(*d) + len);

	*err = !d ? -ENOMEM : 0;
	if (d)
		*err = copy_from_iter_full(d->data, len, &m->it);
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

/* What becomes of a message at its target. */
enum dg_verdict {
	DG_QUEUE, /* there is room: queue it */
	DG_WAIT,  /* the queue is full: wait for room (or EAGAIN) */
	DG_DROP,  /* the family drops such messages silently: the send succeeds */
	DG_FAIL,  /* refused, with an errno */
};

/* Under t's lock: what becomes of d now; DG_FAIL's -errno in *err. */
static enum dg_verdict dgram_verdict(struct socket *t, const struct dgram *d, int *err)
{
	if (t->dead || (t->remote.len && !t->fam->same_addr(&t->remote, &d->from)))
		*err = t->fam->dgram_refused(t);
	else
		return has_room(t, d->truesize) ? DG_QUEUE : DG_WAIT;
	return *err ? DG_FAIL : DG_DROP; /* a family error of 0 means a silent drop */
}

/* Queues d on t, waiting for room unless nonblock: true if t took d.  Else
 * d stays the caller's and *err says why (0: dropped silently). */
static bool dgram_enqueue(struct socket *t, struct dgram *d, bool nonblock, int *err)
{
	enum dg_verdict v;

	*err = 0;
	for (;;) {
		spin_lock(&t->lock);
		v = dgram_verdict(t, d, err);
		if (v != DG_WAIT)
			break;
		spin_unlock(&t->lock);
		*err = nonblock ? -EAGAIN
				: wait_event_interruptible(&t->room_wq, has_room(t, d->truesize));
		if (*err)
			return false;
	}
	if (v == DG_QUEUE) {
		list_add_tail(&d->link, &t->dgq);
		t->dgq_size += d->truesize;
	}
	spin_unlock(&t->lock);
	sock_wake(t);
	return v == DG_QUEUE;
}

static long dgram_sendmsg(struct socket *sk, struct kmsg *m)
{
	size_t len = m->it.left;
	struct socket *t;
	struct dgram *d;
	int err;

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
		d->truesize = dgram_truesize(d);
		if (!dgram_enqueue(t, d, m->nonblock, &err)) {
			m->fds = d->fds; /* the caller drops them */
			d->fds = NULL;
			dgram_free(d);
		}
	}
	sock_put(t);
	return err ? err : (long)len;
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
	err = copy_to_iter_full(d->data, n, &m->it);
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
	sk->dgq_size -= d->truesize;
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
	dgram_wake(sk); /* room for senders, the queue for other readers */
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
	p = dgram_unpeer(sk);
	list_for_each_entry_safe(d, next, &sk->dgq, link)
	{
		list_del(&d->link);
		list_add_tail(&d->link, &q);
	}
	sk->dgq_size = 0;
	spin_unlock(&sk->lock);
	dgram_wake(sk); /* senders waiting for room give up */
	list_for_each_entry_safe(d, next, &q, link) dgram_free(d);
	if (p)
		sock_put(p);
}

static bool peer_has_room(struct socket *p)
{
	bool room;

	spin_lock(&p->lock);
	room = has_room(p, DGRAM_MIN_TRUESIZE); /* dead: sends fail at once */
	spin_unlock(&p->lock);
	return room;
}

/*
 * Whether a send to p, sk's peer, would find room; if not, queues sk's
 * relay on p so that sk's pollers hear when it does.  The check after
 * queuing catches room made in between.
 */
static bool dgram_peer_writable(struct socket *sk, struct socket *p)
{
	if (peer_has_room(p))
		return true;
	spin_lock(&sk->lock);
	if (sk->peer == p) {
		sk->peer_wake.func = dgram_peer_woken;
		wait_add(&p->room_wq, &sk->peer_wake);
	}
	spin_unlock(&sk->lock);
	return peer_has_room(p);
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
	if (sk->shut & SHUT_RX)
		mask |= POLLRDHUP;
	if (sk->shut == (SHUT_RX | SHUT_TX))
		mask |= POLLHUP;
	p = sk->peer;
	if (p)
		sock_get(p);
	spin_unlock(&sk->lock);
	if (!p || dgram_peer_writable(sk, p))
		mask |= POLLOUT | POLLWRNORM;
	if (p)
		sock_put(p);
	return mask;
}

static void dgram_gc_fds(struct socket *sk, bool (*fn)(struct scm_fds *fds, void *arg), void *arg)
{
	struct dgram *d;

	spin_lock(&sk->lock);
	list_for_each_entry(d, &sk->dgq, link)
	{
		if (d->fds && fn(d->fds, arg))
			d->fds = NULL; /* its truesize stays charged until it is read */
	}
	spin_unlock(&sk->lock);
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
    .gc_fds = dgram_gc_fds,
};
