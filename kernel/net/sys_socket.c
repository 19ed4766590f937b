/*
 * Socket system calls: argument copying and checking only (addresses,
 * msghdr, iovecs, option values), and sendmmsg/recvmmsg's loops over
 * messages; the work is in socket.c and below.
 */
#include "arch/x86_64/uaccess.h"
#include "fd/fd_install.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/event/poll.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "sched/ktimer.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define SOCKET2_FLAGS (O_NONSEQFD | O_CLOEXEC | O_CLOFORK | O_NONBLOCK)
#define MAX_CONTROL                                                                                \
	(64 * 1024) /* longest sendmsg control buffer (ENOBUFS), Linux's optmem scale              \
		     */

long sock_addr_get(struct sock_addr *a, const void *uaddr, int len)
{
	if (len < 0 || (size_t)len > sizeof(a->sa))
		return -EINVAL;
	a->len = len;
	return copy_from_user(&a->sa, uaddr, len);
}

/* Reads the caller's buffer length for an address result (NULL: none wanted). */
static long addrlen_get(const uint32_t *ulen, int *len)
{
	*len = 0;
	if (!ulen)
		return 0;
	if (copy_from_user(len, ulen, sizeof(*len)))
		return -EFAULT;
	return *len < 0 ? -EINVAL : 0;
}

/* Writes an address result: as much as fits (nothing is written to uaddr
 * when that is 0 bytes), and its full length, as Linux's move_addr_to_user. */
static long addr_put(const struct sock_addr *a, void *uaddr, uint32_t *ulen, int room)
{
	size_t n = a->len < (uint32_t)room ? a->len : (size_t)room;

	if ((n && copy_to_user(uaddr, &a->sa, n)) || copy_to_user(ulen, &a->len, sizeof(a->len)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(socket, int, domain, int, type, int, protocol)
{
	return sock_create(domain, type, protocol, 0);
}

/* fdmap v2: socket() whose flags (open flags) choose the fd's area and flags. */
SYSCALL_DEFINE4(socket2, int, domain, int, type, int, protocol, unsigned int, flags)
{
	if (flags & ~SOCKET2_FLAGS)
		return -EINVAL;
	return sock_create(domain, type, protocol, flags);
}

/*
 * The last step of a call that made fds (socketpair, accept4): installs
 * the n reserved fds with their files, or, if copying the results out
 * failed (err), gives both back: the fds were never visible.
 */
static long fds_publish(const int *fds, struct file **f, int n, long err)
{
	for (int i = 0; i < n; i++) {
		if (err) {
			file_put(f[i]);
			fd_unreserve(fds[i]);
		} else {
			fd_install(fds[i], f[i]);
		}
	}
	return err;
}

SYSCALL_DEFINE4(socketpair, int, domain, int, type, int, protocol, int *, usv)
{
	int fds[2];
	struct file *f[2];
	long err = sock_socketpair(domain, type, protocol, fds, f);

	if (err)
		return err;
	return fds_publish(fds, f, 2, copy_to_user(usv, fds, sizeof(fds)) ? -EFAULT : 0);
}

SYSCALL_DEFINE3(bind, int, fd, const void *, uaddr, int, len)
{
	struct sock_addr a;
	long err = sock_addr_get(&a, uaddr, len);

	return err ? err : sock_bind(fd, &a);
}

SYSCALL_DEFINE2(listen, int, fd, int, backlog)
{
	return sock_listen(fd, backlog);
}

SYSCALL_DEFINE3(connect, int, fd, const void *, uaddr, int, len)
{
	struct sock_addr a;
	long err = sock_addr_get(&a, uaddr, len);

	return err ? err : sock_connect(fd, &a);
}

/* A bad address drops the connection just taken, as Linux's. */
SYSCALL_DEFINE4(accept4, int, fd, void *, uaddr, uint32_t *, ulen, int, flags)
{
	struct sock_addr peer;
	struct file *nf;
	int room, nfd;
	long err = addrlen_get(uaddr ? ulen : NULL, &room);

	if (err)
		return err;
	nfd = sock_accept(fd, &peer, flags, &nf);
	if (nfd < 0)
		return nfd;
	err = uaddr && ulen && addr_put(&peer, uaddr, ulen, room) ? -EFAULT : 0;
	return fds_publish(&nfd, &nf, 1, err) ?: nfd;
}

SYSCALL_DEFINE3(accept, int, fd, void *, uaddr, uint32_t *, ulen)
{
	const uint64_t args[6] = {(uint64_t)fd, (uint64_t)uaddr, (uint64_t)ulen, 0};

	return sys_accept4(args);
}

SYSCALL_DEFINE6(sendto, int, fd, const void *, buf, size_t, len, int, flags, const void *, uaddr,
		int, alen)
{
	struct iovec v = {(void *)buf, len};
	struct kmsg m = {.flags = flags};
	long err = uaddr ? sock_addr_get(&m.name, uaddr, alen) : 0;

	if (err)
		return err;
	iov_iter_init(&m.it, &v, 1, len);
	return sock_sendmsg(fd, &m);
}

SYSCALL_DEFINE6(recvfrom, int, fd, void *, buf, size_t, len, int, flags, void *, uaddr, uint32_t *,
		ualen)
{
	struct iovec v = {buf, len};
	struct kmsg m = {.flags = flags};
	int room;
	long n = addrlen_get(uaddr ? ualen : NULL, &room);

	if (n)
		return n;
	iov_iter_init(&m.it, &v, 1, len);
	n = sock_recvmsg(fd, &m);
	if (n >= 0 && uaddr && ualen && addr_put(&m.name, uaddr, ualen, room))
		return -EFAULT;
	return n;
}

void umsg_put(struct umsg *u)
{
	kfree(u->iov);
}

/* The iovec array, checked as readv's; EMSGSIZE past UIO_MAXIOV as Linux. */
static long umsg_iov(struct umsg *u)
{
	if (u->h.msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	u->iov = u->fast;
	return iovec_import(u->h.msg_iov, u->h.msg_iovlen, &u->iov, &u->m.it);
}

long umsg_get(struct umsg *u, const struct msghdr *uh, int flags, bool send,
	      const struct iovec *data)
{
	long err;

	*u = (struct umsg){.m.flags = flags};
	if (copy_from_user(&u->h, uh, sizeof(u->h)))
		return -EFAULT;
	if (!u->h.msg_name)
		u->h.msg_namelen = 0;
	if ((int)u->h.msg_namelen < 0)
		return -EINVAL;
	if (u->h.msg_namelen > sizeof(struct sockaddr_storage))
		u->h.msg_namelen = sizeof(struct sockaddr_storage);
	if (data) {
		u->fast[0] = *data;
		iov_iter_init(&u->m.it, u->fast, 1, data->iov_len);
		err = 0;
	} else {
		err = umsg_iov(u);
	}
	if (!err && send && u->h.msg_name)
		err = sock_addr_get(&u->m.name, u->h.msg_name, u->h.msg_namelen);
	return err;
}

/* A send's control buffer, read when it sends (as Linux's, also for
 * io_uring's SENDMSG): into m, *ctl the kmalloc'd copy to free. */
static long umsg_ctl(const struct umsg *u, struct kmsg *m, void **ctl)
{
	*ctl = NULL;
	if (!u->h.msg_controllen)
		return 0;
	if (u->h.msg_controllen > MAX_CONTROL)
		return -ENOBUFS;
	if (!(*ctl = kmalloc(u->h.msg_controllen)))
		return -ENOMEM;
	if (copy_from_user(*ctl, u->h.msg_control, u->h.msg_controllen))
		return -EFAULT;
	m->ctl = *ctl;
	m->ctl_len = u->h.msg_controllen;
	return 0;
}

/*
 * One sendmsg on sk (file f, held by the caller) of the header u copied
 * in, from its start (a request's run may come after an attempt): the
 * bytes sent or -errno; *whole is false when a stream took only part.
 */
static long umsg_send(struct socket *sk, struct file *f, const struct umsg *u, bool *whole)
{
	struct kmsg m = u->m;
	void *ctl;
	long n = umsg_ctl(u, &m, &ctl);

	*whole = true;
	if (!n) {
		n = sock_send(sk, f, &m);
		*whole = n < 0 || (size_t)n == u->m.it.left;
	}
	kfree(ctl);
	return n;
}

/* sendmsg and each message of sendmmsg: uh copied in, then sent. */
static long sendmsg_one(struct socket *sk, struct file *f, const struct msghdr *uh, int flags,
			bool *whole)
{
	struct umsg u;
	long n = umsg_get(&u, uh, flags, true, NULL);

	*whole = true;
	if (!n)
		n = umsg_send(sk, f, &u, whole);
	umsg_put(&u);
	return n;
}

/* recvmsg's results into the user's header uh: name, control length,
 * flags (u's pointers, as copied in). */
static long umsg_result(const struct umsg *u, const struct kmsg *m, struct msghdr *uh)
{
	const struct msghdr *h = &u->h;
	size_t namelen = m->name.len < h->msg_namelen ? m->name.len : h->msg_namelen;
	uint32_t outlen = h->msg_name ? m->name.len : 0;
	size_t ctl_used = m->ctl_used;
	int out_flags = m->out_flags;

	if (h->msg_name && copy_to_user(h->msg_name, &m->name.sa, namelen))
		return -EFAULT;
	if (copy_to_user(&uh->msg_namelen, &outlen, sizeof(outlen)) ||
	    copy_to_user(&uh->msg_controllen, &ctl_used, sizeof(ctl_used)) ||
	    copy_to_user(&uh->msg_flags, &out_flags, sizeof(out_flags)))
		return -EFAULT;
	return 0;
}

/* One recvmsg on sk (file f, held by the caller) into the header u
 * copied in (its data into io->data instead, if io has one: io_uring's,
 * socket.h), the results into the user's header uh: the bytes received
 * or -errno. */
static long umsg_recv(struct socket *sk, struct file *f, const struct umsg *u, struct msghdr *uh,
		      struct recvmsg_io *io)
{
	struct kmsg m = u->m;
	long n;

	if (io && io->data)
		iov_iter_init(&m.it, io->data, 1, io->data->iov_len);
	if (io) {
		iov_iter_advance(&m.it, io->skip);
		io->want = iov_iter_count(&m.it);
	}
	m.uctl = u->h.msg_control;
	m.ctl_room = u->h.msg_control ? u->h.msg_controllen : 0;
	n = sock_recv(sk, f, &m);
	if (io) {
		io->inq = m.inq;
		io->drained = m.drained;
	}
	if (n >= 0 && umsg_result(u, &m, uh))
		n = -EFAULT;
	return n;
}

/* recvmsg and each of recvmmsg's: uh copied in, then received into. */
static long recvmsg_one(struct socket *sk, struct file *f, struct msghdr *uh, int flags)
{
	struct umsg u;
	long n = umsg_get(&u, uh, flags, false, NULL);

	if (!n)
		n = umsg_recv(sk, f, &u, uh, NULL);
	umsg_put(&u);
	return n;
}

/* sendmsg and recvmsg: one message on the socket at fd, as Linux checks
 * MSG_CMSG_COMPAT (no 64-bit call takes it) and the fd before the header
 * (uh's, or u if already copied in: io_uring's). */
static long msg_call(int fd, struct msghdr *uh, int flags, bool send, const struct umsg *u,
		     struct recvmsg_io *io)
{
	struct file *f;
	struct socket *sk;
	bool whole;
	long n;

	if ((unsigned int)flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	sk = sock_lookup(fd, &f, &n);
	if (!sk)
		return n;
	if (u)
		n = send ? umsg_send(sk, f, u, &whole) : umsg_recv(sk, f, u, uh, io);
	else
		n = send ? sendmsg_one(sk, f, uh, flags, &whole) : recvmsg_one(sk, f, uh, flags);
	file_put(f);
	return n;
}

SYSCALL_DEFINE3(sendmsg, int, fd, const struct msghdr *, umsg, int, flags)
{
	return msg_call(fd, (struct msghdr *)umsg, flags, true, NULL, NULL); /* only read */
}

SYSCALL_DEFINE3(recvmsg, int, fd, struct msghdr *, umsg, int, flags)
{
	return msg_call(fd, umsg, flags, false, NULL, NULL);
}

long sock_sendmsg_umsg(int fd, const struct umsg *u)
{
	return msg_call(fd, NULL, u->m.flags, true, u, NULL);
}

long sock_recvmsg_umsg(int fd, const struct umsg *u, struct msghdr *uh, struct recvmsg_io *io)
{
	return msg_call(fd, uh, u->m.flags, false, u, io);
}

/*
 * Between two messages of sendmmsg or recvmmsg: the kernel is not
 * preempted, so a long batch yields the CPU here, and a pending signal
 * ends it (with what was done: fewer is always a valid answer) so that it
 * is handled, or kills, at once.  Linux goes on until a wait.
 */
static bool mmsg_continue(void)
{
	if (signal_pending())
		return false;
	cond_resched();
	return true;
}

/* A message's length into its mmsghdr's msg_len: 0 or -EFAULT. */
static long mmsg_put_len(struct mmsghdr *e, long n)
{
	unsigned int len = (unsigned int)n;

	return copy_to_user(&e->msg_len, &len, sizeof(len)) ? -EFAULT : 0;
}

/*
 * Up to vlen messages (at most UIO_MAXIOV), each sent as by sendmsg with
 * its length stored in its msg_len.  Stops at the first error, or after a
 * message a stream took only part of: the count sent, or the error if
 * none was (then lost, as Linux's; a bad msg_len counts as an error).
 */
SYSCALL_DEFINE4(sendmmsg, int, fd, struct mmsghdr *, vec, unsigned int, vlen, int, flags)
{
	struct file *f;
	struct socket *sk;
	unsigned int sent = 0;
	bool whole = true;
	long n;

	if ((unsigned int)flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	if (vlen > UIO_MAXIOV)
		vlen = UIO_MAXIOV;
	sk = sock_lookup(fd, &f, &n);
	if (!sk)
		return n;
	for (n = 0; sent < vlen; sent++) {
		if (sent && (!whole || !mmsg_continue()))
			break;
		n = sendmsg_one(sk, f, &vec[sent].msg_hdr, flags, &whole);
		if (n >= 0)
			n = mmsg_put_len(&vec[sent], n);
		if (n < 0)
			break;
	}
	file_put(f);
	return sent ? (long)sent : n;
}

/* What an error that ended recvmmsg after some messages leaves pending on
 * the socket: Linux leaves the restart code of a wait cut by a signal,
 * which would reach the next call as errno 512; the caller sees EINTR. */
static int recvmmsg_leftover(long err)
{
	return err <= -ERESTARTSYS && err >= -ERESTARTNOHAND ? -EINTR : (int)err;
}

/* recvmmsg's time limit: the deadline (poll_timespec_deadline's) and what
 * is left of it after each message, for the user's timespec. */
struct mmsg_timeout {
	uint64_t deadline;
	struct timespec_k left;
};

/* After a message: false when the time is up (none is left), as Linux
 * looks only between messages (a wait for one is not cut short). */
static bool mmsg_time_left(struct mmsg_timeout *t)
{
	uint64_t now = clock_monotonic_ns(), left = t->deadline > now ? t->deadline - now : 0;

	t->left = (struct timespec_k){left / NSEC_PER_SEC, left % NSEC_PER_SEC};
	return left;
}

/* recvmmsg's loop on sk (file f): the count received, or -errno if none. */
static long recvmmsg_loop(struct socket *sk, struct file *f, struct mmsghdr *vec, unsigned int vlen,
			  int flags, struct mmsg_timeout *t)
{
	unsigned int got = 0;
	long n = 0;

	while (got < vlen) {
		n = recvmsg_one(sk, f, &vec[got].msg_hdr, flags & ~MSG_WAITFORONE);
		if (n >= 0)
			n = mmsg_put_len(&vec[got], n);
		if (n < 0)
			break;
		got++;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if ((t && !mmsg_time_left(t)) || !mmsg_continue())
			break;
	}
	if (!got)
		return n;
	if (n < 0 && n != -EAGAIN) /* for the next call, or SO_ERROR */
		sock_set_error(sk, recvmmsg_leftover(n));
	return got;
}

/*
 * Up to vlen messages, each received as by recvmsg with its length in its
 * msg_len; MSG_WAITFORONE makes all but the first non-blocking.  A
 * timeout is checked after each message, as Linux does, and what is left
 * of it written back when some came.  The count, or the error if none
 * came; an error after some is left pending on the socket (EAGAIN aside).
 */
SYSCALL_DEFINE5(recvmmsg, int, fd, struct mmsghdr *, vec, unsigned int, vlen, int, flags,
		struct timespec_k *, utimeout)
{
	struct mmsg_timeout t, *tp = utimeout ? &t : NULL;
	struct file *f;
	struct socket *sk;
	long n;

	if ((unsigned int)flags & MSG_CMSG_COMPAT)
		return -EINVAL;
	n = poll_timespec_deadline(utimeout, &t.deadline);
	if (n)
		return n;
	sk = sock_lookup(fd, &f, &n);
	if (!sk)
		return n;
	n = (flags & MSG_ERRQUEUE) ? 0 : sock_error(sk);
	if (!n)
		n = recvmmsg_loop(sk, f, vec, vlen, flags, tp);
	file_put(f);
	if (n > 0 && tp && copy_to_user(utimeout, &t.left, sizeof(t.left)))
		return -EFAULT;
	return n;
}

SYSCALL_DEFINE2(shutdown, int, fd, int, how)
{
	return sock_shutdown(fd, how);
}

/* getsockname / getpeername. */
static long sys_getname(int fd, void *uaddr, uint32_t *ulen, bool peer)
{
	struct sock_addr a;
	int room;
	long err = addrlen_get(ulen, &room);

	if (!err && !ulen)
		err = -EFAULT;
	if (!err)
		err = sock_getname(fd, &a, peer);
	if (!err && addr_put(&a, uaddr, ulen, room))
		err = -EFAULT;
	return err;
}

SYSCALL_DEFINE3(getsockname, int, fd, void *, uaddr, uint32_t *, ulen)
{
	return sys_getname(fd, uaddr, ulen, false);
}

SYSCALL_DEFINE3(getpeername, int, fd, void *, uaddr, uint32_t *, ulen)
{
	return sys_getname(fd, uaddr, ulen, true);
}

/*
 * The value is copied in before the option is known, as Linux's
 * SOL_SOCKET reads an int before looking at the name: a fault is kept
 * for the option to report (EFAULT even for an unknown SOL_SOCKET name,
 * as Linux; a level that reads nothing for a name says its own errno).
 * Options read at most sizeof(o.u) bytes from here; those that read a
 * size of their own (IPPROTO_IP's) read it from uval.
 */
SYSCALL_DEFINE5(setsockopt, int, fd, int, level, int, name, const void *, uval, int, len)
{
	struct sockopt o = {.len = len, .uval = uval};
	size_t n = (size_t)len < sizeof(o.u) ? (size_t)len : sizeof(o.u);

	if (len < 0)
		return -EINVAL;
	if (n >= sizeof(int) && copy_from_user(&o.u, uval, n)) {
		memset(&o.u, 0, sizeof(o.u));
		o.fault = true;
	}
	return sock_setsockopt(fd, level, name, &o);
}

/* As much of the value as the caller's length takes, then that length. */
SYSCALL_DEFINE5(getsockopt, int, fd, int, level, int, name, void *, uval, uint32_t *, ulen)
{
	struct sockopt o;
	int len;
	long err = addrlen_get(ulen, &len);

	if (!err && !ulen)
		err = -EFAULT;
	o.len = len;
	if (!err)
		err = sock_getsockopt(fd, level, name, &o);
	if (err)
		return err;
	if ((uint32_t)len > o.len)
		len = o.len;
	if ((len && copy_to_user(uval, &o.u, len)) || copy_to_user(ulen, &len, sizeof(len)))
		return -EFAULT;
	return 0;
}
