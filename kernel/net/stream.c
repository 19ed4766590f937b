/*
 * SOCK_STREAM for every family: connection set-up through a listener's
 * accept queue, byte streams through the receiver's sbuf (flow control by
 * its size), shutdown and close propagated to the peer.  Loopback only, so
 * a connection is made at once when the listener has backlog room.
 */
#include "fs/event/poll.h"
#include "net/netdev.h"
#include "net/scm.h"
#include "net/socket.h"
#include <uapi/errno.h>

/* Conditions a sleeper re-checks; read without the lock, re-checked under it. */
static bool can_accept(struct socket *l)
{
	return !list_empty(&l->accq) || l->state != SS_LISTENING;
}

static bool has_backlog_room(struct socket *l)
{
	return l->nacc <= l->backlog || l->state != SS_LISTENING;
}

static bool can_read(struct socket *sk)
{
	return !sk->rx_busy && (sbuf_ready(&sk->rx) || (sk->shut & SHUT_RX) || sk->error);
}

static bool can_write(struct socket *p, const struct scm_cred *cred)
{
	return !p->rx.writing && (sbuf_room(&p->rx, cred) || p->dead || (p->shut & SHUT_RX));
}

/* ---- connection set-up ---- */

/*
 * Puts ns, connected to sk, on listener l's accept queue, waiting for
 * backlog room unless nonblock.  The queue takes over ns's reference.
 */
static int stream_enqueue(struct socket *l, struct socket *ns, bool nonblock, uint64_t deadline)
{
	int err;

	for (;;) {
		spin_lock(&l->lock);
		if (l->state != SS_LISTENING) {
			spin_unlock(&l->lock);
			return -ECONNREFUSED;
		}
		if (l->nacc <= l->backlog)
			break;
		spin_unlock(&l->lock);
		if (nonblock)
			return -EAGAIN;
		err = sock_wait_event(&l->wq, has_backlog_room(l), deadline);
		if (err)
			return err;
	}
	list_add_tail(&ns->acc_link, &l->accq);
	l->nacc++;
	spin_unlock(&l->lock);
	sock_wake(l);
	sock_async(l, POLL_IN);
	return 0;
}

/* The server end of a connection from sk to listener l, or NULL; *lcred
 * gets what the client's SO_PEERCRED will say (the listener's, if it has). */
static struct socket *stream_server_end(struct socket *sk, struct socket *l,
					const struct sock_addr *dest, struct sock_cred *lcred,
					bool *lhas)
{
	struct socket *ns = sock_alloc(l->fam, SOCK_STREAM); /* AF_INET6 for IPv4 on :: */

	if (!ns)
		return NULL;
	spin_lock(&l->lock);
	sk->fam->accepted_name(l, dest, &ns->local);
	ns->protocol = l->protocol;
	ns->rcvbuf = ns->rx.cap = l->rcvbuf;
	ns->sndbuf = l->sndbuf;
	ns->rcvtimeo = l->rcvtimeo;
	ns->sndtimeo = l->sndtimeo;
	ns->oobinline = l->oobinline;
	ns->nodelay = l->nodelay;
	/* The multicast settings, not the groups: ns->mc_list stays empty,
	 * or closing both would leave them twice (Linux's CVE-2017-8890). */
	ns->mc_loop = l->mc_loop;
	ns->mc_all = l->mc_all;
	ns->mc_ttl = l->mc_ttl;
	ns->mc_addr = l->mc_addr;
	*lhas = l->has_peercred;
	*lcred = l->peercred;
	spin_unlock(&l->lock);
	ns->has_peercred = sk->fam->peercred;
	ns->peercred = sock_cred_current(); /* the connecting process, as Linux */
	ns->bound = true;
	ns->state = SS_CONNECTED;
	sock_get(sk);
	ns->peer = sk;
	return ns;
}

/* Drops a server end that never reached a queue. */
static void stream_discard(struct socket *ns)
{
	sock_put(ns->peer);
	sock_put(ns);
}

/* Connects sk to the listener at addr; the state is SS_CONNECTING meanwhile. */
static int stream_link(struct socket *sk, const struct sock_addr *addr, bool nonblock)
{
	struct socket *l, *ns;
	struct sock_cred lcred;
	bool lhas;
	int err = sk->fam->autobind(sk, addr);

	if (err == -EADDRINUSE)
		err = -EADDRNOTAVAIL; /* no local port left, as Linux's TCP connect */
	if (!err)
		err = sk->fam->lookup(sk, addr, &l);
	if (err)
		return err;
	/* sk's reference to ns is taken before ns is queued: once there,
	 * it can be accepted and closed, or the listener closed, before
	 * sk->peer is set below, either dropping the queue's reference
	 * (taken after, it was one on a freed socket, which sk then locked
	 * and put as its peer: the fuzzer's heap corruption).  As Linux's
	 * unix_stream_connect, which holds newsk before it is queued. */
	ns = stream_server_end(sk, l, addr, &lcred, &lhas);
	if (ns)
		sock_get(ns);
	err = ns ? stream_enqueue(l, ns, nonblock, sock_deadline(sk->sndtimeo)) : -ENOMEM;
	if (err && ns) {
		sock_put(ns);
		stream_discard(ns);
	}
	sock_put(l);
	if (err)
		return err;
	spin_lock(&sk->lock);
	sk->peer = ns; /* referenced above; closed meanwhile, sk heard its hangup */
	sk->state = SS_CONNECTED;
	sk->has_peercred = lhas;
	sk->peercred = lcred;
	spin_unlock(&sk->lock);
	return 0;
}

static int stream_connect(struct socket *sk, const struct sock_addr *addr, bool nonblock)
{
	int err = sk->fam->check_addr(sk, addr);

	if (err)
		return err;
	spin_lock(&sk->lock);
	err = sk->state == SS_LISTENING	   ? -EINVAL
	      : sk->state == SS_CONNECTED  ? -EISCONN
	      : sk->state == SS_CONNECTING ? -EALREADY
					   : 0;
	if (!err)
		sk->state = SS_CONNECTING;
	spin_unlock(&sk->lock);
	if (err)
		return err;
	err = stream_link(sk, addr, nonblock);
	spin_lock(&sk->lock);
	if (err)
		sk->state = SS_UNCONNECTED;
	err = sk->fam->connect_result(sk, err, nonblock);
	spin_unlock(&sk->lock);
	sock_wake(sk);
	return err;
}

static int stream_listen(struct socket *sk, int backlog)
{
	int err = sk->bound ? 0 : sk->fam->autobind(sk, NULL);

	if (err)
		return err;
	spin_lock(&sk->lock);
	if (sk->state == SS_CONNECTED || sk->state == SS_CONNECTING || !sk->bound) {
		err = -EINVAL;
	} else {
		sk->state = SS_LISTENING;
		sk->backlog = backlog;
		/* What clients' SO_PEERCRED will say (unix_listen's init_peercred). */
		sk->has_peercred = sk->fam->peercred;
		sk->peercred = sock_cred_current();
	}
	spin_unlock(&sk->lock);
	sock_wake(sk);
	return err;
}

static int stream_accept(struct socket *sk, bool nonblock, struct socket **out)
{
	uint64_t deadline = sock_deadline(sk->rcvtimeo);
	int err;

	for (;;) {
		spin_lock(&sk->lock);
		if (sk->state != SS_LISTENING) {
			spin_unlock(&sk->lock);
			return -EINVAL;
		}
		if (!list_empty(&sk->accq))
			break;
		spin_unlock(&sk->lock);
		if (nonblock)
			return -EAGAIN;
		err = sock_wait_event(&sk->wq, can_accept(sk), deadline);
		if (err)
			return err;
	}
	*out = list_first_entry(&sk->accq, struct socket, acc_link);
	list_del(&(*out)->acc_link);
	sk->nacc--;
	spin_unlock(&sk->lock);
	sock_wake(sk); /* backlog room for a waiting connect */
	return 0;
}

/* ---- data ---- */

/* Under p's lock: readers see what was held back, once the sender stops
 * holding it or a full segment (or a full ring) waits, as TCP sends.
 * Only TCP holds: the segment is loopback TCP's (lo's MTU, netdev.h). */
static void stream_push(struct socket *p, bool hold)
{
	if (!hold || sbuf_held(&p->rx) >= netdev_lo_segment() || !sbuf_space(&p->rx))
		sbuf_push(&p->rx);
}

/* One chunk into p's ring (held back from its readers if hold): bytes
 * queued, 0 to wait, or -errno. */
static long stream_put_chunk(struct socket *p, struct kmsg *m, bool hold)
{
	long n;
	uint64_t pos;
	int err;

	spin_lock(&p->lock);
	n = p->dead || (p->shut & SHUT_RX) ? -EPIPE : sbuf_reserve(&p->rx, m->it.left, &m->cred);
	pos = p->rx.tail;
	spin_unlock(&p->lock);
	if (n <= 0)
		return n;
	err = sbuf_copy_in(&p->rx, pos, &m->it, n);
	spin_lock(&p->lock);
	if (!err && p->dead)
		err = -EPIPE;
	if (!err)
		err = sbuf_commit(&p->rx, n, m->fds, &m->cred);
	else
		sbuf_commit(&p->rx, 0, NULL, &m->cred);
	if (!err)
		m->fds = NULL; /* queued with the first byte */
	stream_push(p, hold);
	spin_unlock(&p->lock);
	sock_wake(p);
	if (!err)
		sock_async(p, POLL_IN);
	return err ? err : n;
}

/*
 * The peer a send goes to, or the error of sending on sk now; *hold: the
 * data is held back from the peer's readers (MSG_MORE or TCP_CORK on a
 * family that honours them).
 */
static long stream_send_target(struct socket *sk, int flags, struct socket **p, bool *hold)
{
	long err = 0;

	spin_lock(&sk->lock);
	if (sk->state != SS_CONNECTED)
		err = sk->fam->stream_unconnected_err;
	else if (sk->shut & SHUT_TX)
		err = -EPIPE;
	*p = sk->peer;
	*hold = sk->fam->holds_more && ((flags & MSG_MORE) || sk->cork);
	spin_unlock(&sk->lock);
	return err == -EPIPE ? sock_epipe(flags) : err;
}

static long stream_sendmsg(struct socket *sk, struct kmsg *m)
{
	uint64_t deadline = sock_deadline(sk->sndtimeo);
	struct socket *p;
	bool hold;
	long sent = 0, n = stream_send_target(sk, m->flags, &p, &hold);

	if (n)
		return n;
	m->cred = sock_msg_cred(sk, p, m);
	while (m->it.left) {
		n = stream_put_chunk(p, m, hold);
		if (n == 0) /* its reader will tell us of room (POLL_OUT) */
			__atomic_store_n(&p->async_nospace, true, __ATOMIC_RELAXED);
		if (n == 0 && m->nonblock)
			n = -EAGAIN;
		else if (n == 0)
			n = sock_wait_event(&p->wq, can_write(p, &m->cred), deadline);
		if (n < 0)
			break;
		sent += n;
	}
	if (sent)
		return sent;
	return n == -EPIPE ? sock_epipe(m->flags) : n;
}

/*
 * Reads once from the ring (called and returning under sk's lock): bytes
 * read, 0 if nothing can be read now, -errno.  fds attached to the first
 * byte come with this read (*fds_seen) and end it; a read that already has
 * data stops before them (-EAGAIN: return what was read).  A reader with
 * SO_PASSCRED gets the first byte's credentials and stops where they
 * change (Linux never joins two writers' data there).
 */
static long stream_get_chunk(struct socket *sk, struct kmsg *m, size_t copied,
			     struct list_head *dead, bool *fds_seen)
{
	bool creds = sock_wants_cred(sk);
	struct scm_fds *fds;
	struct scm_cred cred;
	size_t n = sbuf_readable(&sk->rx, &fds, &cred, creds);
	uint64_t pos = sk->rx.head;
	long err;

	if (sk->rx_busy || n == 0)
		return 0;
	if (copied && (fds || (creds && !scm_cred_eq(&cred, &m->cred))))
		return -EAGAIN;
	if (n > m->it.left)
		n = m->it.left;
	sk->rx_busy = true;
	spin_unlock(&sk->lock);
	err = sbuf_copy_out(&sk->rx, pos, &m->it, n);
	if (!err && creds && !copied) {
		m->cred = cred;
		err = sock_deliver_cred(m, &cred);
	}
	if (!err && fds)
		err = sock_deliver_fds(m, fds);
	spin_lock(&sk->lock);
	sk->rx_busy = false;
	if (!err && !(m->flags & MSG_PEEK))
		sbuf_consume(&sk->rx, n, dead);
	/* Room for the writer, the ring for other readers (tasks: woken
	 * whatever the key); to pollers only POLLOUT can be news. */
	wake_up_poll(&sk->wq, POLLOUT | POLLWRNORM);
	*fds_seen = fds != NULL;
	return err ? err : (long)n;
}

/* Nothing to read now (under sk's lock): 0 to try again, 1 at EOF, or -errno. */
static long stream_recv_wait(struct socket *sk, bool nonblock, uint64_t deadline)
{
	long err;

	if (!sk->rx_busy && sk->error) {
		err = -sk->error;
		sk->error = 0;
		return err;
	}
	if (!sk->rx_busy && (sk->shut & SHUT_RX))
		return 1;
	if (nonblock)
		return -EAGAIN;
	spin_unlock(&sk->lock);
	err = sock_wait_event(&sk->wq, can_read(sk), deadline);
	spin_lock(&sk->lock);
	return err;
}

/*
 * Under sk's lock: why sk cannot be read now, or 0.  A listener's errno is
 * the family's; no urgent data is ever pending (MSG_OOB sends go in line),
 * so MSG_OOB is EINVAL, as Linux says when there is none.
 */
static long stream_recv_check(struct socket *sk, int flags)
{
	if (sk->state == SS_LISTENING)
		return sk->fam->stream_listener_recv_err;
	if (flags & MSG_OOB)
		return -EINVAL;
	return sk->state != SS_CONNECTED ? sk->fam->stream_unconnected_recv_err : 0;
}

static long stream_recvmsg(struct socket *sk, struct kmsg *m)
{
	bool peek = m->flags & MSG_PEEK, fds_seen = false;
	size_t want = (m->flags & MSG_WAITALL) && !peek ? m->it.left : 1, copied = 0;
	struct list_head dead = LIST_HEAD_INIT(dead);
	uint64_t deadline = sock_deadline(sk->rcvtimeo);
	long n;

	spin_lock(&sk->lock);
	n = stream_recv_check(sk, m->flags);
	while (!n && m->it.left) {
		n = stream_get_chunk(sk, m, copied, &dead, &fds_seen);
		if (n > 0) {
			copied += n;
			n = copied >= want || fds_seen || peek;
		} else if (n == 0) {
			n = stream_recv_wait(sk, m->nonblock, deadline);
		}
	}
	/* What stream_poll's POLLIN, POLLERR and POLLHUP test. */
	m->drained = copied && !peek && !sbuf_ready(&sk->rx) && !sk->error &&
		     sk->state == SS_CONNECTED && !(sk->shut & SHUT_RX);
	m->inq = sbuf_ready(&sk->rx) != 0;
	spin_unlock(&sk->lock);
	sbuf_free_dead(&dead);
	/* Room for a sender that found none; sk's open file keeps its peer. */
	if (copied && !peek && __atomic_exchange_n(&sk->async_nospace, false, __ATOMIC_RELAXED) &&
	    sk->peer)
		sock_async(sk->peer, POLL_OUT);
	return copied ? (long)copied : n > 0 ? 0 : n;
}

/* ---- shutdown, close, poll ---- */

/* Shutdown bits seen from the other end: its receiving stops when we stop sending. */
static unsigned int shut_mirror(unsigned int bits)
{
	return (bits & SHUT_RX ? SHUT_TX : 0) | (bits & SHUT_TX ? SHUT_RX : 0);
}

/* Adds bits to p's shutdown state (and error, if any) and wakes it.  What
 * was held back goes out first: the sender's FIN follows its data. */
/*
 * What p's O_ASYNC owners hear when its receiving ends (bits has SHUT_RX;
 * was: p's own shutdown state before): AF_UNIX says POLL_HUP when both
 * directions end at once (a close, SHUT_RDWR) and POLL_IN for the peer's
 * SHUT_WR (Linux's unix_shutdown, unix_release_sock); TCP says POLL_ERR for
 * a reset, else POLL_HUP only once p had stopped sending too (tcp_fin).
 */
static int hangup_reason(const struct socket *p, unsigned int was, unsigned int bits, int error)
{
	unsigned int both = SHUT_RX | SHUT_TX;

	if (p->fam->family == AF_UNIX)
		return bits == both ? POLL_HUP : POLL_IN;
	if (error)
		return POLL_ERR;
	return (was | SHUT_RX) == both ? POLL_HUP : POLL_IN;
}

static void stream_hangup(struct socket *p, unsigned int bits, int error)
{
	unsigned int was;

	spin_lock(&p->lock);
	sbuf_push(&p->rx);
	was = p->shut;
	p->shut |= bits;
	if (error && !p->error)
		p->error = error;
	spin_unlock(&p->lock);
	sock_wake(p);
	if (bits & SHUT_RX)
		sock_async(p, hangup_reason(p, was, bits, error));
}

static void stream_close(struct socket *sk, bool reset);

/* Under l's lock: l stops listening (blocked and later accepts get
 * EINVAL); the connections on its queue move to q, for stream_drop_queue. */
static void stream_unlisten(struct socket *l, struct list_head *q)
{
	struct socket *ns, *next;

	list_for_each_entry_safe(ns, next, &l->accq, acc_link)
	{
		list_del(&ns->acc_link);
		list_add_tail(&ns->acc_link, q);
	}
	l->nacc = 0;
	l->state = SS_UNCONNECTED;
}

/* Closes the connections taken off a queue: never accepted, their clients
 * hear a reset, as Linux's. */
static void stream_drop_queue(struct list_head *q)
{
	struct socket *ns, *next;

	list_for_each_entry_safe(ns, next, q, acc_link)
	{
		list_del(&ns->acc_link);
		stream_close(ns, true);
		sock_put(ns);
	}
}

/* A listener has nothing to send: SHUT_WR changes nothing, and SHUT_RD
 * stops it listening, as Linux. */
static int stream_shutdown(struct socket *sk, int how)
{
	unsigned int bits = how == SHUT_RD ? SHUT_RX : how == SHUT_WR ? SHUT_TX : SHUT_RX | SHUT_TX;
	struct list_head accq = LIST_HEAD_INIT(accq);
	struct socket *p = NULL;
	int err = 0;

	spin_lock(&sk->lock);
	if (sk->state == SS_CONNECTED) {
		sk->shut |= bits;
		p = sk->peer;
	} else if (sk->state == SS_LISTENING) {
		if (bits & SHUT_RX)
			stream_unlisten(sk, &accq);
	} else {
		err = -ENOTCONN;
	}
	spin_unlock(&sk->lock);
	if (err)
		return err;
	if (p)
		stream_hangup(p, shut_mirror(bits), 0);
	sock_wake(sk); /* accepts and connects waiting on a listener give up */
	stream_drop_queue(&accq);
	return 0;
}

/*
 * Disconnects sk for good: drops its data and its accept queue, and tells
 * the peer, which hears a reset (ECONNRESET) if reset is set or data is
 * lost unread here, as Linux says.
 */
static void stream_close(struct socket *sk, bool reset)
{
	struct list_head dead = LIST_HEAD_INIT(dead), accq = LIST_HEAD_INIT(accq);
	struct socket *p;
	bool unread;

	spin_lock(&sk->lock);
	sk->dead = true;
	sk->shut = SHUT_RX | SHUT_TX;
	stream_unlisten(sk, &accq);
	p = sk->peer;
	sk->peer = NULL;
	unread = sbuf_used(&sk->rx) != 0;
	sbuf_purge(&sk->rx, &dead);
	spin_unlock(&sk->lock);
	sock_wake(sk); /* connects waiting for backlog room give up */
	if (p) {
		stream_hangup(p, SHUT_RX | SHUT_TX, reset || unread ? ECONNRESET : 0);
		sock_put(p);
	}
	stream_drop_queue(&accq);
	sbuf_free_dead(&dead);
}

static void stream_release(struct socket *sk)
{
	stream_close(sk, false);
}

/* TCP_CORK cleared or TCP_NODELAY set: what the peer was not shown yet
 * goes out now.  The file's reference keeps sk, and sk its peer. */
static void stream_uncork(struct socket *sk)
{
	struct socket *p;

	spin_lock(&sk->lock);
	p = sk->state == SS_CONNECTED ? sk->peer : NULL;
	spin_unlock(&sk->lock);
	if (!p)
		return;
	spin_lock(&p->lock);
	sbuf_push(&p->rx);
	spin_unlock(&p->lock);
	sock_wake(p);
}

static unsigned int stream_poll(struct socket *sk, struct file *f, struct poll_table *pt)
{
	unsigned int mask = 0;
	struct socket *p;

	poll_wait(f, &sk->wq, pt);
	spin_lock(&sk->lock);
	if (sk->error)
		mask |= POLLERR;
	if (sk->state == SS_LISTENING && sk->nacc)
		mask |= POLLIN | POLLRDNORM;
	if (sbuf_ready(&sk->rx) || (sk->shut & SHUT_RX))
		mask |= POLLIN | POLLRDNORM;
	if (sk->shut & SHUT_RX)
		mask |= POLLRDHUP;
	if (sk->shut == (SHUT_RX | SHUT_TX) || sk->state == SS_UNCONNECTED)
		mask |= POLLHUP;
	if (sk->state == SS_UNCONNECTED || (sk->shut & SHUT_TX))
		mask |= POLLOUT | POLLWRNORM;
	p = sk->state == SS_CONNECTED && !(sk->shut & SHUT_TX) ? sk->peer : NULL;
	spin_unlock(&sk->lock);
	/* The peer's queue tells only of room to write (its reads). */
	if (!p || !poll_wants(pt, POLLOUT | POLLWRNORM))
		return mask;
	poll_wait(f, &p->wq, pt); /* sk holds p until its release, after f's */
	/*
	 * A closed peer's state is not ours to report: its close purged its
	 * queue and shut itself before hanging us up, and a poll on another
	 * CPU in between would see POLLOUT without POLLHUP.  The hang-up
	 * brings both (Linux sets the peer's shutdown before freeing the send
	 * room).
	 */
	spin_lock(&p->lock);
	if (!p->dead && (sbuf_space(&p->rx) || (p->shut & SHUT_RX)))
		mask |= POLLOUT | POLLWRNORM;
	spin_unlock(&p->lock);
	return mask;
}

/* A listener's unaccepted connections are read by nobody yet: their locks
 * nest inside the listener's (only here). */
static void stream_gc_fds(struct socket *sk, bool (*fn)(struct scm_fds *fds, void *arg), void *arg)
{
	struct socket *ns;

	spin_lock(&sk->lock);
	sbuf_gc_fds(&sk->rx, fn, arg);
	list_for_each_entry(ns, &sk->accq, acc_link)
	{
		spin_lock(&ns->lock);
		sbuf_gc_fds(&ns->rx, fn, arg);
		spin_unlock(&ns->lock);
	}
	spin_unlock(&sk->lock);
}

const struct sock_proto stream_proto = {
    .connect = stream_connect,
    .listen = stream_listen,
    .accept = stream_accept,
    .sendmsg = stream_sendmsg,
    .recvmsg = stream_recvmsg,
    .shutdown = stream_shutdown,
    .poll = stream_poll,
    .release = stream_release,
    .uncork = stream_uncork,
    .gc_fds = stream_gc_fds,
};
