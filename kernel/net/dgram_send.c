/*
 * SOCK_DGRAM's sends (dgram_int.h): a send's target (its connected peer,
 * an address, or a group's members), the message built and charged,
 * queued whole on each receiver or waited for room in it; and the
 * datagram gathered by MSG_MORE or UDP_CORK.  docs/sockets.md.
 */
#include "lib/string.h"
#include "mm/heap.h"
#include "net/dgram_int.h"
#include "net/scm.h"
#include "net/socket.h"
#include <uapi/errno.h>

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

/* What d costs the queue it waits in: its bytes and the memory carrying
 * them (Linux's skb truesize). */
static size_t dgram_truesize(const struct dgram *d)
{
	return sizeof(*d) + d->len + scm_size(d->fds) + (d->to ? sizeof(*d->to) : 0);
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

long dgram_sendmsg(struct socket *sk, struct kmsg *m)
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
void dgram_uncork(struct socket *sk)
{
	struct dgram_cork *c;

	spin_lock(&sk->lock);
	c = sk->pending;
	sk->pending = NULL;
	spin_unlock(&sk->lock);
	if (c)
		dgram_send_cork(sk, c, true);
}

size_t dgram_outq(struct socket *sk)
{
	size_t n;

	spin_lock(&sk->lock);
	n = sk->pending ? sk->pending->len : 0;
	spin_unlock(&sk->lock);
	return n + __atomic_load_n(&sk->wmem, __ATOMIC_RELAXED);
}
