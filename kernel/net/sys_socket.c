/*
 * Socket system calls: argument copying and checking only (addresses,
 * msghdr, iovecs, option values); the work is in socket.c and below.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/fd.h"
#include "fs/file.h"
#include "fs/files.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define SOCKET2_FLAGS (O_NONSEQFD | O_CLOEXEC | O_CLOFORK | O_NONBLOCK)
#define MAX_CONTROL                                                                                \
	(64 * 1024) /* longest sendmsg control buffer (ENOBUFS), Linux's optmem scale              \
		     */

/* Copies an address argument in: 0, -EINVAL (length), -EFAULT. */
static long addr_get(struct sock_addr *a, const void *uaddr, int len)
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
	long err = addr_get(&a, uaddr, len);

	return err ? err : sock_bind(fd, &a);
}

SYSCALL_DEFINE2(listen, int, fd, int, backlog)
{
	return sock_listen(fd, backlog);
}

SYSCALL_DEFINE3(connect, int, fd, const void *, uaddr, int, len)
{
	struct sock_addr a;
	long err = addr_get(&a, uaddr, len);

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
	long err = uaddr ? addr_get(&m.name, uaddr, alen) : 0;

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

/* A user msghdr in kernel form. */
struct umsg {
	struct msghdr h;		/* the user's header */
	struct iovec fast[UIO_FASTIOV]; /* copy of its iovecs when they fit */
	struct iovec *iov;		/* kmalloc'd copy of more, else NULL */
	void *ctl;			/* sendmsg: kmalloc'd copy of its control buffer */
	struct kmsg m;
};

static void umsg_put(struct umsg *u)
{
	kfree(u->iov);
	kfree(u->ctl);
}

/* The iovec array, checked as readv's; EMSGSIZE past UIO_MAXIOV as Linux. */
static long umsg_iov(struct umsg *u)
{
	if (u->h.msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	u->iov = u->fast;
	return iovec_import(u->h.msg_iov, u->h.msg_iovlen, &u->iov, &u->m.it);
}

/*
 * Copies a msghdr and what it points to (the name and control for a send).
 * msg_namelen is an int to Linux: none without msg_name, else negative is
 * EINVAL and more than any address is cut to sockaddr_storage.
 */
static long umsg_get(struct umsg *u, const struct msghdr *uh, int flags, bool send)
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
	err = umsg_iov(u);
	if (!err && send && u->h.msg_name)
		err = addr_get(&u->m.name, u->h.msg_name, u->h.msg_namelen);
	if (err || !send || !u->h.msg_controllen)
		return err;
	if (u->h.msg_controllen > MAX_CONTROL)
		return -ENOBUFS;
	u->ctl = kmalloc(u->h.msg_controllen);
	if (!u->ctl)
		return -ENOMEM;
	if (copy_from_user(u->ctl, u->h.msg_control, u->h.msg_controllen))
		return -EFAULT;
	u->m.ctl = u->ctl;
	u->m.ctl_len = u->h.msg_controllen;
	return 0;
}

SYSCALL_DEFINE3(sendmsg, int, fd, const struct msghdr *, umsg, int, flags)
{
	struct umsg u;
	long n = umsg_get(&u, umsg, flags, true);

	if (!n)
		n = sock_sendmsg(fd, &u.m);
	umsg_put(&u);
	return n;
}

/* recvmsg's results into the user's header: name, control length, flags. */
static long umsg_result(struct umsg *u, struct msghdr *uh)
{
	struct msghdr *h = &u->h;
	size_t namelen = u->m.name.len < h->msg_namelen ? u->m.name.len : h->msg_namelen;

	if (h->msg_name && copy_to_user(h->msg_name, &u->m.name.sa, namelen))
		return -EFAULT;
	h->msg_namelen = h->msg_name ? u->m.name.len : 0;
	h->msg_controllen = u->m.ctl_used;
	h->msg_flags = u->m.out_flags;
	if (copy_to_user(&uh->msg_namelen, &h->msg_namelen, sizeof(h->msg_namelen)) ||
	    copy_to_user(&uh->msg_controllen, &h->msg_controllen, sizeof(h->msg_controllen)) ||
	    copy_to_user(&uh->msg_flags, &h->msg_flags, sizeof(h->msg_flags)))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(recvmsg, int, fd, struct msghdr *, umsg, int, flags)
{
	struct umsg u;
	long n = umsg_get(&u, umsg, flags, false);

	if (!n) {
		u.m.uctl = u.h.msg_control;
		u.m.ctl_room = u.h.msg_control ? u.h.msg_controllen : 0;
		n = sock_recvmsg(fd, &u.m);
	}
	if (n >= 0 && umsg_result(&u, umsg))
		n = -EFAULT;
	umsg_put(&u);
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
 * The value is copied in before the option is known, as Linux reads an
 * int before looking at the name (a bad pointer is EFAULT even for an
 * unknown option); options are at most sizeof(o.u) bytes, the rest of a
 * longer buffer is not read.
 */
SYSCALL_DEFINE5(setsockopt, int, fd, int, level, int, name, const void *, uval, int, len)
{
	struct sockopt o = {.len = len};
	size_t n = (size_t)len < sizeof(o.u) ? (size_t)len : sizeof(o.u);

	if (len < 0)
		return -EINVAL;
	if (n >= sizeof(int) && copy_from_user(&o.u, uval, n))
		return -EFAULT;
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
