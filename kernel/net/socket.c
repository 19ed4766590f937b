/*
 * The generic socket layer: the socket object and its file, fds, and the
 * checks every family and type share before a call is dispatched to the
 * protocol (stream.c, dgram.c) and the family (unix.c, inet.c).
 */
#include "net/socket.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "net/scm.h"
#include "net/unix_gc.h"
#include "proc/cred.h"
#include "proc/group.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "proc/pid_ns.h"
#include "proc/user_namespace.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/stat.h>

#define SOCK_MAX_TYPE 10 /* SOCK_PACKET: higher types are EINVAL, as Linux */

static unsigned long live_sockets; /* atomic */

struct socket *sock_alloc(const struct sock_family *fam, int type)
{
	struct socket *sk = kzalloc(sizeof(*sk));

	if (!sk)
		return NULL;
	sk->refcount = 1;
	sk->type = type;
	sk->owner_uid = cred_current()->fsuid;
	sk->fam = fam;
	sk->proto = type == SOCK_STREAM ? &stream_proto : &dgram_proto;
	wait_queue_init(&sk->wq, "socket_wq");
	wait_queue_init(&sk->room_wq, "socket_room_wq");
	list_init(&sk->peer_wake.link);
	fasync_list_init(&sk->async, false);
	spin_init(&sk->lock, "socket");
	sk->rcvbuf = sk->sndbuf = SOCK_BUF_DEFAULT;
	sk->mc_loop = sk->mc_all = true; /* inet's defaults, as Linux's inet_create */
	sk->mc_ttl = 1;
	sk->local.len = fam->unnamed_len;
	sk->local.sa.ss_family = fam->family;
	list_init(&sk->accq);
	list_init(&sk->acc_link);
	list_init(&sk->dgq);
	list_init(&sk->bind_link);
	list_init(&sk->gc_link);
	sbuf_init(&sk->rx, SOCK_BUF_DEFAULT);
	__atomic_add_fetch(&live_sockets, 1, __ATOMIC_RELAXED);
	return sk;
}

void sock_get(struct socket *sk)
{
	__atomic_add_fetch(&sk->refcount, 1, __ATOMIC_RELAXED);
}

/* The last reference: queues were emptied by release; free the memory. */
void sock_put(struct socket *sk)
{
	if (__atomic_sub_fetch(&sk->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	sbuf_destroy(&sk->rx);
	kfree(sk);
	__atomic_sub_fetch(&live_sockets, 1, __ATOMIC_RELAXED);
}

unsigned long socket_count(void)
{
	return __atomic_load_n(&live_sockets, __ATOMIC_RELAXED);
}

void sock_wake(struct socket *sk)
{
	wake_up(&sk->wq);
}

void sock_async(struct socket *sk, int reason)
{
	fasync_notify(&sk->async, reason);
}

/* Linux's SO_PEERCRED: the process id and the effective uid and gid
 * (cred_to_ucred). */
struct sock_cred sock_cred_current(void)
{
	const struct cred *c = cred_current();

	return (struct sock_cred){
	    .pid = current()->group->tgid, .uid = (int)c->euid, .gid = (int)c->egid};
}

uint64_t sock_deadline(uint64_t timeo)
{
	return timeo ? clock_monotonic_ns() + timeo : 0;
}

long sock_epipe(int flags)
{
	if (!(flags & MSG_NOSIGNAL))
		signal_send(current(), SIGPIPE);
	return -EPIPE;
}

long sock_deliver_fds(struct kmsg *m, const struct scm_fds *fds)
{
	unsigned int oflags = (m->flags & MSG_CMSG_CLOEXEC ? O_CLOEXEC : 0) |
			      (m->flags & MSG_CMSG_CLOFORK ? O_CLOFORK : 0);
	long n;

	if (!m->uctl) {
		m->out_flags |= MSG_CTRUNC;
		return 0;
	}
	n = scm_deliver(fds, (char *)m->uctl + m->ctl_used, m->ctl_room - m->ctl_used, oflags,
			&m->out_flags);
	if (n < 0)
		return n;
	m->ctl_used += n;
	return 0;
}

struct scm_cred sock_msg_cred(const struct socket *sk, const struct socket *t, const struct kmsg *m)
{
	if (m->cred.pid)
		return m->cred;
	if (__atomic_load_n(&sk->passcred, __ATOMIC_RELAXED) ||
	    (t && __atomic_load_n(&t->passcred, __ATOMIC_RELAXED)))
		return scm_cred_current();
	return (struct scm_cred){0};
}

bool sock_wants_cred(const struct socket *sk)
{
	return sk->fam->passes_fds && __atomic_load_n(&sk->passcred, __ATOMIC_RELAXED);
}

long sock_deliver_cred(struct kmsg *m, const struct scm_cred *cred)
{
	/* The sender as the receiver (the caller) names it: pid 0 if its
	 * pid namespace cannot (Linux's pid_vnr), ids 65534 if its user
	 * namespace cannot. */
	struct user_namespace *ns = current_user_ns();
	struct ucred u = {pid_vnr(cred->pid),
			  cred->pid ? from_kuid_munged(ns, cred->uid) : OVERFLOW_ID,
			  cred->pid ? from_kgid_munged(ns, cred->gid) : OVERFLOW_ID};

	return sock_put_cmsg(m, SOL_SOCKET, SCM_CREDENTIALS, &u, sizeof(u));
}

long sock_put_cmsg(struct kmsg *m, int level, int type, const void *data, size_t len)
{
	long n;

	if (!m->uctl) {
		m->out_flags |= MSG_CTRUNC;
		return 0;
	}
	n = scm_put_cmsg((char *)m->uctl + m->ctl_used, m->ctl_room - m->ctl_used, level, type,
			 data, len, &m->out_flags);
	if (n < 0)
		return n;
	m->ctl_used += n;
	return 0;
}

/* ---- the file behind a socket fd ---- */

/*
 * read/write/readv/writev on a socket: one message over the whole vector.
 * The kmsg walks a copy of the iterator: the caller needs only the count.
 */
static long sock_file_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	struct socket *sk = f->priv;
	struct kmsg m = {.it = *to, .nonblock = file_nonblock(f)};

	(void)pos;
	return sk->proto->recvmsg(sk, &m);
}

static long sock_file_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	struct socket *sk = f->priv;
	struct kmsg m = {.it = *from, .nonblock = file_nonblock(f)};

	(void)pos;
	return sk->proto->sendmsg(sk, &m);
}

static unsigned int sock_file_poll(struct file *f, struct poll_table *pt)
{
	struct socket *sk = f->priv;

	return sk->proto->poll(sk, f, pt);
}

static int sock_file_stat(struct file *f, struct uapi_stat *st)
{
	(void)f;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFSOCK | 0777;
	st->st_nlink = 1;
	st->st_blksize = 4096;
	return 0;
}

static void sock_file_release(struct file *f)
{
	struct socket *sk = f->priv;
	bool is_unix = sk->fam == &unix_family;

	sk->fam->unbind(sk);
	sk->proto->release(sk);
	sock_put(sk);
	if (is_unix)
		unix_gc(); /* as Linux: cycles form as their fds close */
}

static struct fasync_list *sock_file_fasync(struct file *f)
{
	return &((struct socket *)f->priv)->async;
}

static const struct file_ops sock_file_ops = {
    .nowait = true,
    .read_iter = sock_file_read,
    .write_iter = sock_file_write,
    .poll = sock_file_poll,
    .stat = sock_file_stat,
    .ioctl = sock_ioctl,
    .release = sock_file_release,
    .fasync = sock_file_fasync,
};

struct socket *sock_of_file(struct file *f)
{
	return f->ops == &sock_file_ops ? f->priv : NULL;
}

/* A file for sk, taking over its reference: NULL (sk put) when memory runs out. */
static struct file *sock_file(struct socket *sk, unsigned int oflags)
{
	struct file *f = file_alloc(&sock_file_ops, O_RDWR | (oflags & O_NONBLOCK), sk);

	if (!f)
		sock_put(sk);
	else
		sk->file = f;
	return f;
}

struct socket *sock_lookup(int fd, struct file **fp, long *err)
{
	struct file *f = files_lookup(current()->files, fd);

	*err = !f ? -EBADF : f->ops != &sock_file_ops ? -ENOTSOCK : 0;
	if (*err) {
		if (f)
			file_put(f);
		return NULL;
	}
	*fp = f;
	return f->priv;
}

/* ---- creation ---- */

#define SOCK_TYPE_FLAGS (SOCK_NONBLOCK | SOCK_CLOEXEC | SOCK_CLOFORK)

/*
 * Family, type flags (added to *oflags) and type range checks, then the
 * family's type and protocol checks: the socket type to make (>= 0, its
 * SO_PROTOCOL in *proto) or -errno.
 */
static long sock_check(int family, int type, int protocol, const struct sock_family **fam,
		       unsigned int *oflags, int *proto)
{
	if (family == AF_UNIX)
		*fam = &unix_family;
	else if (family == AF_INET)
		*fam = &inet_family;
	else if (family == AF_INET6)
		*fam = &inet6_family;
	else
		return -EAFNOSUPPORT;
	if (type & ~(SOCK_TYPE_MASK | SOCK_TYPE_FLAGS))
		return -EINVAL;
	*oflags |= type & SOCK_TYPE_FLAGS;
	type &= SOCK_TYPE_MASK;
	if (type > SOCK_MAX_TYPE)
		return -EINVAL;
	return (*fam)->socket_type(type, protocol, proto);
}

long sock_create(int family, int type, int protocol, unsigned int oflags)
{
	const struct sock_family *fam;
	struct socket *sk;
	struct file *f;
	int proto;
	long fd = sock_check(family, type, protocol, &fam, &oflags, &proto);

	if (fd < 0)
		return fd;
	sk = sock_alloc(fam, fd);
	if (sk)
		sk->protocol = proto;
	f = sk ? sock_file(sk, oflags) : NULL;
	if (!f)
		return -ENOMEM;
	fd = fd_install_new(f, oflags);
	if (fd < 0)
		file_put(f);
	return fd;
}

/* Two files for a new connected pair, in f[0] and f[1]. */
static long sock_pair_files(const struct sock_family *fam, int type, unsigned int oflags,
			    struct file *f[2])
{
	struct socket *a = sock_alloc(fam, type), *b = sock_alloc(fam, type);

	/* A socket whose file could not be made was put by sock_file. */
	f[0] = a ? sock_file(a, oflags) : NULL;
	f[1] = b ? sock_file(b, oflags) : NULL;
	if (f[0] && f[1] && fam->pair(a, b) == 0)
		return 0;
	if (f[0])
		file_put(f[0]);
	if (f[1])
		file_put(f[1]);
	return -ENOMEM;
}

long sock_socketpair(int family, int type, int protocol, int kfds[2], struct file *f[2])
{
	const struct sock_family *fam;
	unsigned int oflags = 0;
	int proto;
	long err = sock_check(family, type, protocol, &fam, &oflags, &proto);

	if (err < 0)
		return err;
	if (!fam->pair)
		return -EOPNOTSUPP;
	err = sock_pair_files(fam, err, oflags, f);
	if (err)
		return err;
	kfds[0] = fd_reserve(oflags, 0);
	kfds[1] = kfds[0] < 0 ? -1 : fd_reserve(oflags, 0);
	if (kfds[1] < 0) {
		err = kfds[0] < 0 ? kfds[0] : kfds[1];
		if (kfds[0] >= 0)
			fd_unreserve(kfds[0]);
		file_put(f[0]);
		file_put(f[1]);
		return err;
	}
	return 0;
}

/* ---- the calls on a socket fd ---- */

long sock_bind(int fd, const struct sock_addr *a)
{
	struct file *f;
	long err;
	struct socket *sk = sock_lookup(fd, &f, &err);

	if (!sk)
		return err;
	err = sk->fam->bind(sk, a);
	file_put(f);
	return err;
}

long sock_listen(int fd, int backlog)
{
	struct file *f;
	long err;
	struct socket *sk = sock_lookup(fd, &f, &err);

	if (!sk)
		return err;
	if ((unsigned int)backlog > SOMAXCONN)
		backlog = SOMAXCONN;
	err = sk->proto->listen(sk, backlog);
	file_put(f);
	return err;
}

long sock_connect(int fd, const struct sock_addr *a)
{
	struct file *f;
	long err;
	struct socket *sk = sock_lookup(fd, &f, &err);

	if (!sk)
		return err;
	err = sk->proto->connect(sk, a, f->flags & O_NONBLOCK);
	file_put(f);
	return err;
}

/* The name of sk or of its peer into *a. */
static long sock_name(struct socket *sk, struct sock_addr *a, bool want_peer)
{
	struct socket *p = NULL;
	long err = 0;

	spin_lock(&sk->lock);
	if (!want_peer)
		*a = sk->local;
	else if (sk->type == SOCK_DGRAM && sk->remote.len)
		*a = sk->remote;
	else if (sk->type == SOCK_STREAM && sk->state == SS_CONNECTED && sk->peer)
		sock_get(p = sk->peer);
	else
		err = -ENOTCONN;
	spin_unlock(&sk->lock);
	if (p) {
		spin_lock(&p->lock);
		*a = p->local;
		spin_unlock(&p->lock);
		sock_put(p);
	}
	if (!err && want_peer)
		sk->fam->wire_name(sk, a);
	return err;
}

/*
 * accept4: the new fd lands in the non-sequential area when the listener's
 * fd is there (the fdmap v2 rule); its fd flags come from flags alone.
 * The fd is reserved before a connection is taken off the queue, as Linux
 * does: at EMFILE the connection stays queued for a later accept.
 */
static long sock_accept_fd(int fd, struct socket *sk, struct file *f, struct sock_addr *peer,
			   int flags, struct file **out)
{
	unsigned int oflags = flags | (fd >= NONSEQ_FD_BASE ? O_NONSEQFD : 0);
	struct socket *ns;
	struct file *nf;
	int nfd = fd_reserve(oflags, 0);
	long err = nfd < 0 ? nfd : sk->proto->accept(sk, file_nonblock(f), &ns);

	if (err)
		goto bad;
	if (sock_name(ns, peer, true) < 0)
		*peer = (struct sock_addr){.len = sk->fam->unnamed_len,
					   .sa.ss_family = sk->fam->family};
	nf = sock_file(ns, oflags);
	err = -ENOMEM;
	if (!nf)
		goto bad;
	*out = nf;
	return nfd;
bad:
	if (nfd >= 0)
		fd_unreserve(nfd);
	return err;
}

long sock_accept(int fd, struct sock_addr *peer, int flags, struct file **nf)
{
	struct file *f;
	long err;
	struct socket *sk;

	if (flags & ~SOCK_TYPE_FLAGS)
		return -EINVAL;
	sk = sock_lookup(fd, &f, &err);
	if (!sk)
		return err;
	err = sock_accept_fd(fd, sk, f, peer, flags, nf);
	file_put(f);
	return err;
}

long sock_send(struct socket *sk, struct file *f, struct kmsg *m)
{
	long n = scm_parse(m->ctl, m->ctl_len, sk->fam->passes_fds, &m->fds, &m->cred);

	if (n)
		return n;
	m->nonblock = file_nonblock(f) || (m->flags & MSG_DONTWAIT);
	n = sk->proto->sendmsg(sk, m);
	scm_free(m->fds); /* what the protocol did not queue */
	m->fds = NULL;
	return n;
}

long sock_recv(struct socket *sk, struct file *f, struct kmsg *m)
{
	m->nonblock = file_nonblock(f) || (m->flags & MSG_DONTWAIT);
	/* inet's error queue (ICMP reports, timestamps) never has anything here. */
	return (m->flags & MSG_ERRQUEUE) && sk->fam->errqueue ? -EAGAIN : sk->proto->recvmsg(sk, m);
}

long sock_sendmsg(int fd, struct kmsg *m)
{
	struct file *f;
	long n;
	struct socket *sk = sock_lookup(fd, &f, &n);

	if (!sk)
		return n;
	n = sock_send(sk, f, m);
	file_put(f);
	return n;
}

long sock_recvmsg(int fd, struct kmsg *m)
{
	struct file *f;
	long n;
	struct socket *sk = sock_lookup(fd, &f, &n);

	if (!sk)
		return n;
	n = sock_recv(sk, f, m);
	file_put(f);
	return n;
}

int sock_error(struct socket *sk)
{
	int err;

	spin_lock(&sk->lock);
	err = sk->error;
	sk->error = 0;
	spin_unlock(&sk->lock);
	return -err;
}

void sock_set_error(struct socket *sk, int err)
{
	spin_lock(&sk->lock);
	sk->error = -err;
	spin_unlock(&sk->lock);
	sock_wake(sk); /* pollers see POLLERR */
}

long sock_shutdown(int fd, int how)
{
	struct file *f;
	long err;
	struct socket *sk;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	sk = sock_lookup(fd, &f, &err);
	if (!sk)
		return err;
	err = sk->proto->shutdown(sk, how);
	file_put(f);
	return err;
}

long sock_getname(int fd, struct sock_addr *a, bool peer)
{
	struct file *f;
	long err;
	struct socket *sk = sock_lookup(fd, &f, &err);

	if (!sk)
		return err;
	err = sock_name(sk, a, peer);
	file_put(f);
	return err;
}

/*
 * SOL_SOCKET options are the socket layer's (sockopt.c), other levels the
 * family's.  EBADF and ENOTSOCK come first, as Linux looks the fd up first.
 */
long sock_setsockopt(int fd, int level, int name, const struct sockopt *o)
{
	struct file *f;
	long err;
	struct socket *sk = sock_lookup(fd, &f, &err);

	if (!sk)
		return err;
	err = level == SOL_SOCKET ? sock_set_sol(sk, name, o)
				  : sk->fam->setsockopt(sk, level, name, o);
	file_put(f);
	return err;
}

long sock_getsockopt(int fd, int level, int name, struct sockopt *o)
{
	struct file *f;
	long err;
	struct socket *sk = sock_lookup(fd, &f, &err);

	if (!sk)
		return err;
	err = level == SOL_SOCKET ? sock_get_sol(sk, name, o)
				  : sk->fam->getsockopt(sk, level, name, o);
	file_put(f);
	return err;
}
