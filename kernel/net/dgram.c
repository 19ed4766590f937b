/*
 * SOCK_DGRAM for every family: each send is one message, queued whole on
 * the receiving socket and read whole; a short read truncates it.  A
 * queue holds messages up to its SO_RCVBUF, each counted at what it
 * costs the kernel, not only its bytes (a full receiver blocks the
 * sender or gives EAGAIN): empty messages, which may carry 253 fds, fill
 * it too.  Sends are dgram_send.c's.
 */
#include "fs/event/poll.h"
#include "mm/heap.h"
#include "net/dgram_int.h"
#include "net/scm.h"
#include "net/socket.h"
#include <uapi/errno.h>

/* The cheapest message: an empty one without fds. */
#define DGRAM_MIN_TRUESIZE sizeof(struct dgram)

/* Never under a socket lock: it may put files and its sender. */
void dgram_free(struct dgram *d)
{
	scm_free(d->fds);
	kfree(d->to);
	if (d->sender) {
		__atomic_sub_fetch(&d->sender->wmem, d->truesize, __ATOMIC_RELAXED);
		sock_put(d->sender);
	}
	kfree(d);
}

/* A reader's condition (has_room's kind): read without the lock,
 * re-checked under it. */
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
int dgram_autobind(struct socket *sk, const struct sock_addr *dest)
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

size_t dgram_first_len(struct socket *sk)
{
	size_t len = 0;

	spin_lock(&sk->lock);
	if (!list_empty(&sk->dgq))
		len = list_first_entry(&sk->dgq, struct dgram, link)->len;
	spin_unlock(&sk->lock);
	return len;
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
