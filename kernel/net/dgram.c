/*
 * SOCK_DGRAM for every family: each send is one message, queued whole on
 * the receiving socket and read whole; a short read truncates it.  A
 * queue holds messages up to its SO_RCVBUF, each counted at what it
 * costs the kernel, not only its bytes (a full receiver blocks the
 * sender or gives EAGAIN): empty messages, which may carry 253 fds, fill
 * it too.
 */
#include "fs/event/poll.h"
#include "lib/string.h"
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
	struct scm_cred cred; /* its sender (pid 0: none attached) */
	/* Where it was sent, kmalloc'd, for a receiver that asked when it was
	 * queued (IP_RECVORIGDSTADDR: family dgram_ctl); else NULL. */
	struct sock_addr *to;
	/* The socket charged for it while it exists (socket.wmem), holding
	 * a reference; NULL where the family charges no sender. */
	struct socket *sender;
	char data[];
};

/*
 * A datagram being gathered by sends with MSG_MORE or under UDP_CORK
 * (socket.pending): sent whole by the first send without them, or when
 * the cork comes off.  Its destination is the first send's, as Linux.
 */
struct dgram_cork {
	struct sock_addr to; /* len 0: the connected peer */
	size_t len;
	char data[];
};

/* The cheapest message: an empty one without fds. */
#define DGRAM_MIN_TRUESIZE sizeof(struct dgram)

/* What d costs the queue it waits in: its bytes and the memory carrying
 * them (Linux's skb truesize). */
static size_t dgram_truesize(const struct dgram *d)
{
	return sizeof(*d) + d->len + scm_size(d->fds) + (d->to ? sizeof(*d->to) : 0);
}

/* Never under a socket lock: it may put files and its sender. */
static void dgram_free(struct dgram *d)
{
	scm_free(d->fds);
	kfree(d->to);
	if (d->sender) {
		__atomic_sub_fetch(&d->sender->wmem, d->truesize, __ATOMIC_RELAXED);
		sock_put(d->sender);
	}
	kfree(d);
}

/* d, its truesize known, is about to be queued: sk pays for it until it
 * is freed, if its family charges senders (SIOCOUTQ). */
static void dgram_charge(struct socket *sk, struct dgram *d)
{
	if (!sk->fam->outq_unread)
		return;
	sock_get(sk);
	d->sender = sk;
	__atomic_add_fetch(&sk->wmem, d->truesize, __ATOMIC_RELAXED);
}

/* Conditions a sleeper re-checks; read without the lock, re-checked under it. */
static bool has_room(struct socket *t, size_t truesize)
{
	return list_empty(&t->dgq) || t->dgq_size + truesize <= t->rcvbuf || t->dead;
}

static bool has_dgram(struct socket *sk)
{
	return sk->error || (!sk->rx_busy && (!list_empty(&sk->dgq) || (sk->shut & SHUT_RX)));
}

/* Wakes sk's readers and pollers, and senders waiting for room in it. */
static void dgram_wake(struct socket *sk)
{
	sock_wake(sk);
	wake_up(&sk->room_wq);
}

/* sk's peer has room or died: the relay unqueues itself and wakes sk's
 * pollers (under the peer's room_wq lock; sk lives, see dgram_unpeer). */
static bool dgram_peer_woken(struct wait_entry *we, unsigned int key)
{
	struct socket *sk = container_of(we, struct socket, peer_wake);

	(void)key;
	list_del(&we->link);
	sock_wake(sk);
	return true; /* not exclusive: the answer is not used */
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

/* Names sk before it sends to dest; no port left is EAGAIN, as Linux's
 * inet_autobind says. */
static int dgram_autobind(struct socket *sk, const struct sock_addr *dest)
{
	int err = sk->fam->autobind(sk, dest);

	return err == -EADDRINUSE ? -EAGAIN : err;
}

static int dgram_connect(struct socket *sk, const struct sock_addr *addr, bool nonblock)
{
	struct socket *t = NULL, *old;
	int err = 0;

	(void)nonblock;
	if (addr->len < sizeof(addr->sa.ss_family) || addr->sa.ss_family != AF_UNSPEC) {
		err = sk->fam->check_addr(sk, addr);
		if (!err)
			err = dgram_autobind(sk, addr);
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
	sk->fam->wire_name(sk, &sk->remote);
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

/* Where a send goes, referenced: one socket, or a group's members (a
 * new array); neither drops the message. */
struct dgram_dest {
	struct socket *one;
	struct socket **group;
	size_t n; /* in group */
};

static void dgram_dest_put(struct dgram_dest *dst)
{
	if (dst->one)
		sock_put(dst->one);
	if (!dst->group) /* the common case: no group */
		return;
	for (size_t i = 0; i < dst->n; i++)
		sock_put(dst->group[i]);
	kfree(dst->group);
}

/* The receivers of address a: a group's members, else its one socket. */
static int dgram_resolve(struct socket *sk, const struct sock_addr *a, struct dgram_dest *dst)
{
	int err = sk->fam->lookup(sk, a, &dst->one);

	return err == 1 ? sk->fam->group_lookup(sk, a, &dst->group, &dst->n) : err;
}

/* Where a send goes (in *dst, which the caller puts), or -errno. */
static int dgram_target(struct socket *sk, const struct sock_addr *name, struct dgram_dest *dst)
{
	struct sock_addr remote;
	int err;

	*dst = (struct dgram_dest){0};
	if (name->len) {
		err = sk->fam->check_addr(sk, name);
		if (!err)
			err = dgram_autobind(sk, name);
		return err ? err : dgram_resolve(sk, name, dst);
	}
	spin_lock(&sk->lock);
	if (sk->peer)
		sock_get(dst->one = sk->peer);
	remote = sk->remote;
	spin_unlock(&sk->lock);
	if (dst->one || remote.len)
		return dst->one ? 0 : dgram_resolve(sk, &remote, dst);
	return sk->fam->dgram_noaddr_err;
}

/* For a receiver t that wants it (IP_RECVORIGDSTADDR), records in d where
 * sk sent it: name, or (len 0) its connected address.  Without memory
 * for it, d goes without, as a datagram without the option. */
static void dgram_record_to(struct socket *sk, struct socket *t, const struct sock_addr *name,
			    struct dgram *d)
{
	if (!__atomic_load_n(&t->ip_origdst, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&t->ip6_origdst, __ATOMIC_RELAXED))
		return;
	if (!(d->to = kmalloc(sizeof(*d->to))))
		return;
	spin_lock(&sk->lock);
	*d->to = name->len ? *name : sk->remote;
	spin_unlock(&sk->lock);
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

/* A message of len bytes, data not filled in, or NULL. */
static struct dgram *dgram_alloc(size_t len)
{
	struct dgram *d = kmalloc(sizeof(*d) + len);

	if (d) {
		d->len = len;
		d->fds = NULL;
		d->cred = (struct scm_cred){0};
		d->to = NULL;
		d->sender = NULL;
	}
	return d;
}

/* Stamps d with sk's name (the receiver sees it through its wire_name). */
static void dgram_stamp(struct socket *sk, struct dgram *d)
{
	spin_lock(&sk->lock);
	d->from = sk->bound ? sk->local : (struct sock_addr){0}; /* unnamed: no name */
	spin_unlock(&sk->lock);
}

/* The message the kmsg src carries, copied in, stamped with sk's name. */
static struct dgram *dgram_build(struct socket *sk, void *src, int *err)
{
	struct kmsg *m = src;
	struct dgram *d = dgram_alloc(m->it.left);

	*err = !d ? -ENOMEM : copy_from_iter_full(d->data, d->len, &m->it);
	if (*err) {
		kfree(d);
		return NULL;
	}
	dgram_stamp(sk, d);
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

/* Queues d on t, waiting for room unless nonblock (until deadline, if
 * any): true if t took d.  Else d stays the caller's and *err says why (0:
 * dropped silently). */
static bool dgram_enqueue(struct socket *t, struct dgram *d, bool nonblock, uint64_t deadline,
			  int *err)
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
				: sock_wait_event(&t->room_wq, has_room(t, d->truesize), deadline);
		if (*err)
			return false;
	}
	if (v == DG_QUEUE) {
		list_add_tail(&d->link, &t->dgq);
		t->dgq_size += d->truesize;
	}
	spin_unlock(&t->lock);
	sock_wake(t);
	if (v == DG_QUEUE)
		sock_async(t, POLL_IN);
	return v == DG_QUEUE;
}

/*
 * A copy of d for each member of a group (no fds travel to groups: the
 * families with groups pass none).  A group send never waits: a member
 * whose queue is full misses its copy, as UDP drops what finds no room.
 */
static void dgram_to_group(struct socket *sk, const struct dgram_dest *dst, const struct dgram *d,
			   const struct kmsg *m)
{
	for (size_t i = 0; i < dst->n; i++) {
		struct dgram *c = dgram_alloc(d->len);
		int err;

		if (!c)
			return;
		memcpy(c->data, d->data, d->len);
		c->from = d->from;
		c->cred = sock_msg_cred(sk, dst->group[i], m);
		c->truesize = dgram_truesize(c);
		dgram_charge(sk, c);
		if (!dgram_enqueue(dst->group[i], c, true, 0, &err))
			dgram_free(c);
	}
}

/*
 * Sends the message build makes from src (m, or a cork) to name
 * (len 0: the connected peer): 0 or -errno.  The message is built after the
 * target is known, so address errors come first, but always, so a bad
 * buffer is EFAULT even when nobody receives it (as Linux copies first).
 * m's fds go with it; those no queue took stay in m for the caller.
 */
static int dgram_post(struct socket *sk, const struct sock_addr *name, struct kmsg *m,
		      struct dgram *(*build)(struct socket *sk, void *src, int *err), void *src)
{
	struct dgram_dest dst;
	struct socket *t;
	struct dgram *d;
	int err = dgram_target(sk, name, &dst);

	if (!err && !may_send(sk))
		err = -EPIPE; /* shutdown(SHUT_WR): no SIGPIPE for datagrams, as Linux */
	d = err ? NULL : build(sk, src, &err);
	t = dst.one;
	if (d && dst.n)
		dgram_to_group(sk, &dst, d, m);
	if (d && t) {
		d->fds = m->fds;
		m->fds = NULL;
		d->cred = sock_msg_cred(sk, t, m);
		dgram_record_to(sk, t, name, d);
		d->truesize = dgram_truesize(d);
		dgram_charge(sk, d);
		if (dgram_enqueue(t, d, m->nonblock, sock_deadline(sk->sndtimeo), &err))
			d = NULL;
		else
			m->fds = d->fds; /* the caller drops them */
	}
	if (d) {
		d->fds = NULL;
		dgram_free(d);
	}
	dgram_dest_put(&dst);
	return err;
}

/* Under sk's lock: does this send join a cork (MSG_MORE, UDP_CORK, or
 * one already gathering)? */
static bool dgram_corks(struct socket *sk, int flags)
{
	return sk->fam->holds_more && (sk->pending || (flags & MSG_MORE) || sk->cork);
}

/* dgram_post's build for a cork src (taken off its socket). */
static struct dgram *dgram_from_cork(struct socket *sk, void *src, int *err)
{
	const struct dgram_cork *c = src;
	struct dgram *d = dgram_alloc(c->len);

	*err = d ? 0 : -ENOMEM;
	if (d) {
		memcpy(d->data, c->data, c->len);
		dgram_stamp(sk, d);
	}
	return d;
}

/* Sends the cork c (taken off its socket): 0 or -errno. */
static int dgram_send_cork(struct socket *sk, struct dgram_cork *c, bool nonblock)
{
	struct kmsg cm = {.nonblock = nonblock}; /* no fds travel with a cork */
	int err = dgram_post(sk, &c->to, &cm, dgram_from_cork, c);

	kfree(c);
	return err;
}

/*
 * Adds m's data to sk's cork (a new one goes to m's address): the cork, if
 * this send ends it (taken off sk, for dgram_send_cork), else NULL, with
 * *err set if the data could not be added (the cork is dropped, as Linux
 * flushes a cork whose append failed).
 */
static struct dgram_cork *dgram_cork_add(struct socket *sk, struct kmsg *m, int *err)
{
	size_t len = m->it.left, old;
	char *chunk = kmalloc(len ? len : 1);
	struct dgram_cork *c, *done = NULL;

	*err = chunk ? copy_from_iter_full(chunk, len, &m->it) : -ENOMEM;
	spin_lock(&sk->lock);
	c = sk->pending;
	old = c ? c->len : 0;
	sk->pending = NULL;
	if (!*err && old + len > sk->fam->dgram_max)
		*err = -EMSGSIZE;
	if (!*err) {
		sk->pending = kmalloc(sizeof(*c) + old + len);
		*err = sk->pending ? 0 : -ENOMEM;
	}
	if (!*err) {
		sk->pending->to = c ? c->to : m->name;
		sk->pending->len = old + len;
		memcpy(sk->pending->data, c ? c->data : chunk, old);
		memcpy(sk->pending->data + old, chunk, len);
		if (!(m->flags & MSG_MORE) && !sk->cork) {
			done = sk->pending;
			sk->pending = NULL;
		}
	}
	spin_unlock(&sk->lock);
	kfree(c);
	kfree(chunk);
	return done;
}

static long dgram_sendmsg(struct socket *sk, struct kmsg *m)
{
	size_t len = m->it.left;
	struct dgram_cork *c;
	bool corks;
	int err;

	if (m->flags & MSG_OOB)
		return -EOPNOTSUPP; /* no urgent data in datagrams */
	if (len > sk->fam->dgram_max || len > sk->sndbuf)
		return -EMSGSIZE;
	spin_lock(&sk->lock);
	corks = dgram_corks(sk, m->flags);
	spin_unlock(&sk->lock);
	if (!corks)
		err = dgram_post(sk, &m->name, m, dgram_build, m);
	else if ((c = dgram_cork_add(sk, m, &err)))
		err = dgram_send_cork(sk, c, m->nonblock);
	return err ? err : (long)len;
}

/* UDP_CORK cleared: the gathered datagram goes out; as Linux, what
 * becomes of it is not the setsockopt's concern (it never blocks). */
static void dgram_uncork(struct socket *sk)
{
	struct dgram_cork *c;

	spin_lock(&sk->lock);
	c = sk->pending;
	sk->pending = NULL;
	spin_unlock(&sk->lock);
	if (c)
		dgram_send_cork(sk, c, true);
}

/* Copies the oldest message out (under sk's lock on entry and exit, which
 * it drops meanwhile); consumes it unless MSG_PEEK.  Its length, or -errno. */
size_t dgram_outq(struct socket *sk)
{
	size_t n;

	spin_lock(&sk->lock);
	n = sk->pending ? sk->pending->len : 0;
	spin_unlock(&sk->lock);
	return n + __atomic_load_n(&sk->wmem, __ATOMIC_RELAXED);
}

size_t dgram_first_len(struct socket *sk)
{
	size_t len = 0;

	spin_lock(&sk->lock);
	if (!list_empty(&sk->dgq))
		len = list_first_entry(&sk->dgq, struct dgram, link)->len;
	spin_unlock(&sk->lock);
	return len;
}

static long dgram_take(struct socket *sk, struct kmsg *m)
{
	struct dgram *d = list_first_entry(&sk->dgq, struct dgram, link);
	size_t n = d->len < m->it.left ? d->len : m->it.left;
	long err;

	sk->rx_busy = true;
	spin_unlock(&sk->lock);
	err = copy_to_iter_full(d->data, n, &m->it);
	if (!err && sock_wants_cred(sk))
		err = sock_deliver_cred(m, &d->cred);
	if (!err && d->fds)
		err = sock_deliver_fds(m, d->fds);
	if (!err && d->to && sk->fam->dgram_ctl)
		err = sk->fam->dgram_ctl(sk, m, d->to);
	m->name = d->from;
	if (m->name.len)
		sk->fam->wire_name(sk, &m->name);
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
	uint64_t deadline = sock_deadline(sk->rcvtimeo);

	if ((m->flags & MSG_OOB) && sk->fam->dgram_recv_oob_err)
		return sk->fam->dgram_recv_oob_err;
	spin_lock(&sk->lock);
	while (!n) {
		if (sk->error) { /* left by recvmmsg: reported first, as Linux */
			n = -sk->error;
			sk->error = 0;
			break;
		}
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
		n = sock_wait_event(&sk->wq, has_dgram(sk), deadline);
		spin_lock(&sk->lock);
	}
	spin_unlock(&sk->lock);
	/* Room for senders, the queue for other readers; none if nothing
	 * changed (EAGAIN: a waiter on sk, such as io_uring's multishot
	 * RECV armed on it, would only be woken to find nothing again). */
	if (n != -EAGAIN)
		dgram_wake(sk);
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
	struct dgram_cork *c;

	spin_lock(&sk->lock);
	c = sk->pending; /* a cork never sent is dropped, as Linux */
	sk->pending = NULL;
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
	kfree(c);
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
    .uncork = dgram_uncork,
    .gc_fds = dgram_gc_fds,
};
