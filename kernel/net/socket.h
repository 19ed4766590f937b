/*
 * The socket layer: the socket object behind a struct file, and the two
 * tables a socket dispatches to: its protocol (stream.c, dgram.c: how data
 * and connections behave) and its address family (unix.c, inet.c: names,
 * binding, finding the socket an address means).  docs/sockets.md.
 */
#ifndef NET_SOCKET_H
#define NET_SOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/iov_iter.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "fs/fasync.h"
#include "net/sbuf.h"
#include "net/scm.h"
#include "arch/x86_64/timer.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include <uapi/errno.h>
#include <uapi/socket.h>

#define SOCK_BUF_DEFAULT (64 * 1024) /* SO_RCVBUF / SO_SNDBUF of a new socket */
#define SOCK_BUF_MIN	 2048
#define SOCK_BUF_MAX	 (4 * 1024 * 1024)

struct dgram_cork;
struct file;
struct poll_table;
struct scm_fds;
struct sock_family;
struct sock_proto;

enum sock_state {
	SS_UNCONNECTED,
	SS_CONNECTING, /* a connect() is setting it up */
	SS_LISTENING,
	SS_CONNECTED,
};

/* Bits of struct socket.shut. */
#define SHUT_RX 1 /* receives nothing more (SHUT_RD, or closed) */
#define SHUT_TX 2 /* sends nothing more (SHUT_WR, or closed) */

/* The credentials SO_PEERCRED reports: the peer's when the connection was made. */
struct sock_cred {
	int pid, uid, gid;
};

/*
 * A socket option's value on its way in or out.  setsockopt: len is what
 * the caller gave, of which the first min(len, sizeof(u)) bytes were copied
 * in if len was at least an int's (fault: that copy faulted, u is zero);
 * uval is the caller's buffer, for options that read their own size as
 * Linux does (a byte, a struct: inet_mcast.c).  getsockopt: len is the
 * caller's length on entry, then how many bytes of u the option has.
 */
struct sockopt {
	uint32_t len;
	bool fault;
	const void *uval;
	union {
		int i;
		struct ucred cred;
		struct {
			int64_t sec, usec;
		} tv; /* struct timeval (SO_RCVTIMEO, SO_SNDTIMEO) */
		unsigned char bytes[16];
	} u;
};

/* An address as user space gave it (len bytes of sa are meaningful). */
struct sock_addr {
	uint32_t len;
	struct sockaddr_storage sa;
};

struct socket {
	/* Atomic: the file, a peer's pointer, an accept queue, lookups, its
	 * unread AF_UNIX datagrams (dgram_send.c's sender). */
	uint32_t refcount;
	int type;     /* SOCK_STREAM or SOCK_DGRAM */
	int protocol; /* SO_PROTOCOL (IPPROTO_TCP, IPPROTO_UDP; 0 for unix) */
	const struct sock_family *fam;
	const struct sock_proto *proto;
	struct wait_queue wq; /* woken on any change of this socket's readiness */
	/*
	 * Datagram: room_wq is woken when the queue gains room or the socket
	 * dies (blocked senders sleep there).  A socket that finds its peer
	 * full queues its peer_wake on peer->room_wq, under its own lock and
	 * only while that is its peer; the first wake-up there unqueues it
	 * and wakes wq, where this socket's pollers sleep (Linux's
	 * unix_dgram_peer_wake).
	 */
	struct wait_queue room_wq;
	struct wait_entry peer_wake;
	/* Its files with O_ASYNC (fs/fasync.h); told by sock_async. */
	struct fasync_list async;
	/* A stream sender found this socket's ring full (atomic): its next
	 * read tells the sender it may write (Linux's SOCKWQ_ASYNC_NOSPACE). */
	bool async_nospace;

	/*
	 * Protects every field below (the rx fields too) up to the GC's.
	 * Never held with another socket's lock, except that the unix GC
	 * takes a listener's and then its unaccepted connections'; may be
	 * taken under the family's table lock and under unix_gc_lock.
	 */
	struct spinlock lock;
	enum sock_state state;
	bool dead;	    /* its file is closed */
	unsigned int shut;  /* SHUT_RX | SHUT_TX */
	int error;	    /* SO_ERROR, cleared when read */
	bool reuseaddr;	    /* SO_REUSEADDR */
	bool reuseport;	    /* SO_REUSEPORT */
	uint32_t owner_uid; /* the creator's fsuid (Linux's sk_uid): SO_REUSEPORT's match */
	bool oobinline;	    /* SO_OOBINLINE */
	/* SO_PASSCRED: its messages' senders come with them (AF_UNIX); read
	 * without the lock by senders (scm_cred_for) and readers. */
	bool passcred;
	bool nodelay;		   /* TCP_NODELAY */
	bool cork;		   /* TCP_CORK / UDP_CORK: sends are held (family: holds_more) */
	bool v6only;		   /* IPV6_V6ONLY: an AF_INET6 socket on :: takes no IPv4 */
	bool bound;		   /* local is set (constant from then on) */
	unsigned int rcvbuf;	   /* SO_RCVBUF */
	unsigned int sndbuf;	   /* SO_SNDBUF */
	uint64_t rcvtimeo;	   /* SO_RCVTIMEO in ns, 0: wait forever */
	uint64_t sndtimeo;	   /* SO_SNDTIMEO */
	bool has_peercred;	   /* peercred is set (unix: connected, listening, a pair) */
	struct sock_cred peercred; /* SO_PEERCRED */
	/* Datagram: what MSG_MORE or a cork holds back (dgram_send.c), or NULL. */
	struct dgram_cork *pending;
	struct sock_addr local;	 /* its own name */
	struct sock_addr remote; /* datagram: connect()'s address (len 0: none) */
	/*
	 * The socket this one sends to, referenced (put when it changes).
	 * Stream: the other end, set when the connection is made and cleared
	 * only by release, so while the file is open it stays valid without
	 * the lock (a poll may wait on peer->wq).  Unix datagram: connect()'s
	 * target, which connect() and release replace at any time: use it
	 * only under the lock or with a reference of one's own, and never
	 * wait on its queues (a poll relays through peer_wake, dgram.c).
	 */
	struct socket *peer;

	/* Inet multicast (inet_mcast.c), as Linux's inet_sock: kept across
	 * accept, except the groups joined, which a new socket never has.
	 * mc_all is read without the lock by senders (atomic). */
	bool mc_loop; /* IP_MULTICAST_LOOP */
	bool mc_all;  /* IP_MULTICAST_ALL */
	/* IP_RECVORIGDSTADDR, IPV6_RECVORIGDSTADDR: a received datagram says
	 * where it was sent (inet_dgram_ctl); read without the lock. */
	bool ip_origdst, ip6_origdst;
	uint8_t mc_ttl; /* IP_MULTICAST_TTL */
	/* IP_MULTICAST_IF: the address it was given (network order), read
	 * back as given; lo is the only interface to send on either way. */
	uint32_t mc_addr;
	/* The groups it joined: a list of struct inet_mc, under inet_mcast.c's
	 * mc_lock, not this lock; freed by the family's unbind. */
	struct inet_mc *mc_list;

	/* Listening stream sockets. */
	struct list_head accq; /* connected sockets awaiting accept(), by acc_link */
	struct list_head acc_link;
	unsigned int nacc, backlog;

	/* Receiving: one reader copies out at a time (rx_busy). */
	bool rx_busy;
	struct sbuf rx;	      /* stream */
	struct list_head dgq; /* datagram: struct dgram, oldest first */
	size_t dgq_size;      /* what the queued messages cost (dgram.c truesize) */
	/* Atomic: what its datagrams waiting unread in receivers' queues
	 * cost (their truesize), where the family charges the sender
	 * (outq_unread: Linux's sk_wmem_alloc, SIOCOUTQ); each such message
	 * holds a reference to its sender until it is freed. */
	size_t wmem;

	struct list_head bind_link; /* the family's table of bound sockets */
	void *bind_priv;	    /* the family's (unix: the socket inode; inet: its port) */

	/*
	 * AF_UNIX garbage collection (unix_gc.c), under unix_gc_lock.  file
	 * is set once when the file is made and holds no reference (the file
	 * holds the socket); it is used only while inflight > 0, when
	 * SCM_RIGHTS sets hold the file.
	 */
	struct file *file;
	unsigned long inflight;	  /* references to file held by SCM_RIGHTS sets */
	struct list_head gc_link; /* on the in-flight list while inflight > 0 */
	unsigned long gc_refs;	  /* a collection's count of outside references */
	bool gc_candidate;	  /* a collection may free it */
};

/* A message on its way through sendmsg/recvmsg. */
struct kmsg {
	struct iov_iter it;    /* the data */
	struct sock_addr name; /* send: target (len 0: none); recv: the source */
	struct scm_fds *fds;   /* send: SCM_RIGHTS to queue (NULL once a queue took them) */
	/* send: SCM_CREDENTIALS asked for (pid 0: none), then what the
	 * message carries (sock_msg_cred); recv: what a stream read
	 * delivered, which the rest of the read must match. */
	struct scm_cred cred;
	int flags;     /* MSG_* of the call */
	int out_flags; /* recv: MSG_TRUNC | MSG_CTRUNC for msg_flags */
	/* recv: a stream's read left nothing a next read would find (no
	 * data, end or error: its next wake-up tells of more); false:
	 * unknown.  io_uring's multishot RECV then waits without a poll. */
	bool drained;
	/* recv: a stream's bytes are left to read after it (Linux's
	 * msg_inq > 0): io_uring's IORING_CQE_F_SOCK_NONEMPTY. */
	bool inq;
	bool nonblock;	 /* O_NONBLOCK or MSG_DONTWAIT */
	const void *ctl; /* send: kernel copy of the control buffer */
	size_t ctl_len;
	/* recv: the user's control buffer (NULL: received fds are dropped). */
	void *uctl;
	size_t ctl_room, ctl_used;
};

/* How a socket type behaves (stream.c, dgram.c).  -errno on failure. */
struct sock_proto {
	int (*connect)(struct socket *sk, const struct sock_addr *addr, bool nonblock);
	int (*listen)(struct socket *sk, int backlog);
	/* A connected socket with one reference, in *out. */
	int (*accept)(struct socket *sk, bool nonblock, struct socket **out);
	long (*sendmsg)(struct socket *sk, struct kmsg *m);
	long (*recvmsg)(struct socket *sk, struct kmsg *m);
	int (*shutdown)(struct socket *sk, int how);
	unsigned int (*poll)(struct socket *sk, struct file *f, struct poll_table *pt);
	/* The file is gone: disconnect, drop queued data and fds. */
	void (*release)(struct socket *sk);
	/* The cork is off (TCP_CORK, UDP_CORK cleared, TCP_NODELAY set): what
	 * the socket held back goes out now. */
	void (*uncork)(struct socket *sk);
	/*
	 * For the unix GC (unix_gc.c, under unix_gc_lock): calls fn on each
	 * SCM_RIGHTS set queued on sk and, for a listener, on its unaccepted
	 * connections; a set for which fn returns true is fn's from then on
	 * and leaves its queue.
	 */
	void (*gc_fds)(struct socket *sk, bool (*fn)(struct scm_fds *fds, void *arg), void *arg);
};

/* What an address family provides (unix.c, inet.c).  -errno on failure. */
struct sock_family {
	int family;
	uint32_t unnamed_len;	      /* getsockname() length of an unbound socket */
	bool passes_fds;	      /* SCM_RIGHTS allowed */
	bool holds_more;	      /* MSG_MORE and corks hold data back (TCP, UDP) */
	bool peercred;		      /* connections record SO_PEERCRED (unix) */
	bool errqueue;		      /* MSG_ERRQUEUE reads an (always empty) error queue: EAGAIN */
	int stream_unconnected_err;   /* send on an unconnected stream */
	int stream_listener_recv_err; /* receive on a listening stream socket */
	int stream_unconnected_recv_err; /* receive on an unconnected stream socket */
	/* MSG_OOB receive and SIOCATMARK on a datagram socket (0: not the
	 * family's concern: MSG_OOB is ignored, SIOCATMARK goes on to the
	 * interface requests, as Linux's UDP). */
	int dgram_recv_oob_err;
	int dgram_noaddr_err; /* send without address on an unconnected datagram */
	size_t dgram_max;     /* longest datagram (EMSGSIZE) */
	bool ifreq_v4;	      /* answers the IPv4 interface address requests (AF_INET) */
	/* SIOCOUTQ counts what the receiver has not read (AF_UNIX: Linux
	 * charges it to the sender until it is read), not only what was not
	 * sent yet (TCP, UDP: what a receiver queued is no longer the
	 * sender's); false also makes a listener's SIOCOUTQ EINVAL, as TCP. */
	bool outq_unread;
	/* socket(): the socket type made for type (SOCK_TYPE_MASK bits) and
	 * protocol, with its SO_PROTOCOL in *proto, or -errno as Linux's
	 * family says (EPROTONOSUPPORT, ESOCKTNOSUPPORT, EINVAL). */
	int (*socket_type)(int type, int protocol, int *proto);
	/* Options at levels other than SOL_SOCKET (sockopt.c has SOL_SOCKET's):
	 * -ENOPROTOOPT / -EOPNOTSUPP as the family answers for a name or level
	 * it does not know.  Called without sk's lock. */
	int (*setsockopt)(struct socket *sk, int level, int name, const struct sockopt *o);
	int (*getsockopt)(struct socket *sk, int level, int name,
			  struct sockopt *o); /* Checks an address sk is given to connect or send to
					       * (family, length, reach). */
	int (*check_addr)(const struct socket *sk, const struct sock_addr *a);
	int (*bind)(struct socket *sk,
		    const struct sock_addr
			*a); /* Gives an unbound socket a name where the family needs one, for
			      * talking to dest (NULL: listen); no name left is -EADDRINUSE, which
			      * each caller turns into its call's errno. */
	int (*autobind)(struct socket *sk, const struct sock_addr *dest);
	/*
	 * Datagram: the sockets a message to a reaches when a is a group
	 * address (multicast: lookup said 1), each referenced, in a new
	 * array of *n (NULL if none: dropped) that the caller frees after
	 * putting them: 0, or -errno.  NULL: the family has no groups.
	 */
	int (*group_lookup)(struct socket *sk, const struct sock_addr *a, struct socket ***out,
			    size_t *n);
	/* The socket of sk's type at address a, referenced: 0, -errno, or
	 * 1 for a datagram's group address (group_lookup finds them). */
	int (*lookup)(
	    struct socket *sk, const struct sock_addr *a,
	    struct socket **out); /* Turns a, some socket's local name, into the name sk sees it by:
				   * inet gives a wildcard its loopback address and writes it in
				   * sk's family (an IPv4 name v4-mapped for an AF_INET6 socket). */
	void (*wire_name)(const struct socket *sk, struct sock_addr *a);
	/* A datagram sk receives, sent to address to (recorded for sockets
	 * with ip_origdst or ip6_origdst): its control messages into m, 0 or
	 * -EFAULT.  NULL: the family has none. */
	long (*dgram_ctl)(const struct socket *sk, struct kmsg *m, const struct sock_addr *to);
	/* True if datagrams from addr reach a socket connected to remote. */
	bool (*same_addr)(const struct sock_addr *remote, const struct sock_addr *addr);
	/* The file is closing: give the name back, and what else the family
	 * keeps for the socket (inet: its multicast groups). */
	void (*unbind)(struct socket *sk);
	/* socketpair(), or NULL (EOPNOTSUPP). */
	int (*pair)(struct socket *a, struct socket *b);
	/* Under sk's lock: what a stream connect that ended with err (0:
	 * connected) returns; it may report err by SO_ERROR instead. */
	int (*connect_result)(struct socket *sk, int err, bool nonblock);
	/* Under l's lock: the name of the server end of a connection made to
	 * dest through listener l. */
	void (*accepted_name)(const struct socket *l, const struct sock_addr *dest,
			      struct sock_addr *name);
	/* Datagram connect() to a: the socket to keep as peer, referenced, or
	 * NULL when only the address is kept. */
	int (*dgram_peer)(struct socket *sk, const struct sock_addr *a, struct socket **peer);
	/* Under t's lock: a datagram t cannot take (t is closed, or connected
	 * to another address): the sender's -errno, or 0 to drop it silently. */
	int (*dgram_refused)(const struct socket *t);
};

extern const struct sock_proto stream_proto, dgram_proto;
extern const struct sock_family unix_family, inet_family, inet6_family;

/* A new unconnected socket with one reference, or NULL. */
struct socket *sock_alloc(const struct sock_family *fam, int type);
void sock_get(struct socket *sk);
void sock_put(struct socket *sk);
/* Sockets alive (leak accounting). */
unsigned long socket_count(void);
/* The socket behind file f, or NULL if f is not a socket. */
struct socket *sock_of_file(struct file *f);
/* ioctl on a socket's file (net/sock_ioctl.c). */
long sock_ioctl(struct file *f, unsigned long cmd, unsigned long arg);
/* The interface requests (net/dev_ioctl.c): SIOCGIFCONF, and the ifreq
 * requests sk did not take itself. */
long dev_ifconf(void *uarg);
long dev_ioctl(const struct socket *sk, unsigned int cmd, void *uarg);
/* The length of the next datagram a read would take, 0 if none (dgram.c). */
size_t dgram_first_len(struct socket *sk);
/* SIOCOUTQ of a datagram socket: its cork's bytes and wmem (dgram_send.c). */
size_t dgram_outq(struct socket *sk);
/* Wakes everyone waiting on sk or polling it. */
void sock_wake(struct socket *sk);
/* Signals sk's O_ASYNC files' owners (POLL_IN, POLL_OUT, POLL_HUP,
 * POLL_ERR: fs/fasync.h).  With no socket lock held: the signal path
 * takes proc_lock, which may be held where sockets are locked. */
void sock_async(struct socket *sk, int reason);
/* Received fds into m's control buffer (dropped, MSG_CTRUNC, if none). */
long sock_deliver_fds(struct kmsg *m, const struct scm_fds *fds);
/* The credentials a message from sk to t carries (Linux's scm_send and
 * maybe_add_creds): those the sender asked for, else its own when either
 * end has SO_PASSCRED, else none. */
struct scm_cred sock_msg_cred(const struct socket *sk, const struct socket *t,
			      const struct kmsg *m);
/* Whether sk's reader gets SCM_CREDENTIALS (SO_PASSCRED on AF_UNIX). */
bool sock_wants_cred(const struct socket *sk);
/* A received message's credentials into m's control buffer, before any
 * fds (SCM_CREDENTIALS; none known: pid 0 and the overflow ids). */
long sock_deliver_cred(struct kmsg *m, const struct scm_cred *cred);
/* A control message of len bytes (at most 32) into a receive's control
 * buffer: 0, or -EFAULT; MSG_CTRUNC if it did not fit (or no buffer). */
long sock_put_cmsg(struct kmsg *m, int level, int type, const void *data, size_t len);
/* Stream send on a broken connection: SIGPIPE unless MSG_NOSIGNAL; -EPIPE. */
long sock_epipe(int flags);
/* The credentials of the calling process, for SO_PEERCRED. */
struct sock_cred sock_cred_current(void);
/* The deadline (monotonic ns, 0: none) of a wait bounded by timeo
 * (SO_RCVTIMEO / SO_SNDTIMEO, in ns; 0: none), starting now. */
uint64_t sock_deadline(uint64_t timeo);

/*
 * wait_event_interruptible with a socket's timeout: sleeps until cond holds
 * (0), the deadline (sock_deadline; 0: none) passes (-EAGAIN, as a timed-out
 * socket call says) or a signal comes: -ERESTARTSYS without a deadline, else
 * -EINTR, as Linux's sock_intr_errno (a timed wait is not restarted).
 */
#define sock_wait_event(wq, cond, deadline)                                                        \
	({                                                                                         \
		DEFINE_WAIT(__we);                                                                 \
		uint64_t __dl = (deadline);                                                        \
		int __ret = 0;                                                                     \
		for (;;) {                                                                         \
			prepare_to_wait((wq), &__we);                                              \
			if (__dl)                                                                  \
				sched_arm_deadline(__dl);                                          \
			if (cond)                                                                  \
				break;                                                             \
			if (signal_pending()) {                                                    \
				__ret = __dl ? -EINTR : -ERESTARTSYS;                              \
				break;                                                             \
			}                                                                          \
			if (__dl && clock_monotonic_ns() >= __dl) {                                \
				__ret = -EAGAIN;                                                   \
				break;                                                             \
			}                                                                          \
			schedule();                                                                \
		}                                                                                  \
		if (__dl)                                                                          \
			sched_disarm_deadline();                                                   \
		finish_wait((wq), &__we);                                                          \
		__ret;                                                                             \
	})

/*
 * The calls (socket.c): each validates what is generic and dispatches.
 * fd arguments are the caller's; addresses already copied in.
 */
long sock_create(int family, int type, int protocol, unsigned int oflags);
/*
 * socketpair and accept4 give reserved fds and their files, not installed:
 * the caller copies the results out, then installs them (fd_install) or,
 * if that failed, puts the files and unreserves the fds, so that no other
 * thread ever sees an fd the call then takes back (do_pipe2's order).
 */
long sock_socketpair(int family, int type, int protocol, int kfds[2], struct file *f[2]);
long sock_bind(int fd, const struct sock_addr *a);
long sock_listen(int fd, int backlog);
long sock_accept(int fd, struct sock_addr *peer, int flags, struct file **nf);
long sock_connect(int fd, const struct sock_addr *a);
long sock_sendmsg(int fd, struct kmsg *m);
long sock_recvmsg(int fd, struct kmsg *m);
/*
 * A user msghdr copied in (sys_socket.c): the header, its iovecs (or, if
 * umsg_get's data is not NULL, that one user range instead, the header's
 * iovecs not read) and a send's target address, as Linux's
 * io_msg_copy_hdr; the control buffer is read when the message is sent
 * (as Linux's), a receive's name and control are written then.  sendmsg
 * and recvmsg copy into one on their stack; io_uring's SENDMSG and
 * RECVMSG at their preparation, into one the request owns (u->m.it may
 * point into u: it is never moved).  umsg_get: 0, -EFAULT, -EINVAL,
 * -EMSGSIZE, -ENOMEM; umsg_put frees what it holds (also after a
 * failed umsg_get).
 */
struct umsg {
	struct msghdr h;		/* the user's header */
	struct iovec fast[UIO_FASTIOV]; /* copy of its iovecs when they fit */
	struct iovec *iov;		/* kmalloc'd copy of more, else NULL */
	struct kmsg m;			/* flags, the data's iterator, a send's name */
};
/* Copies an address argument in (Linux's move_addr_to_kernel): 0,
 * -EINVAL (a negative length, or past any address), -EFAULT. */
long sock_addr_get(struct sock_addr *a, const void *uaddr, int len);
long umsg_get(struct umsg *u, const struct msghdr *uh, int flags, bool send,
	      const struct iovec *data);
void umsg_put(struct umsg *u);
/* io_uring's RECVMSG: where the data goes instead of the header's iovecs,
 * if data is not NULL (a provided buffer), and how many of their first
 * bytes to pass over (a MSG_WAITALL receive's earlier parts); how much it
 * asked for, and whether a stream's bytes are left to read (kmsg.inq) or
 * it was drained (kmsg.drained), out. */
struct recvmsg_io {
	const struct iovec *data;
	size_t skip;
	size_t want; /* out: the bytes it asked for */
	bool inq, drained;
};
/* sendmsg and recvmsg of a header u copied in, on the socket at fd, with
 * the flags u was copied with; a receive's results go to the user's
 * header uh (the one u was copied from). */
long sock_sendmsg_umsg(int fd, const struct umsg *u);
long sock_recvmsg_umsg(int fd, const struct umsg *u, struct msghdr *uh, struct recvmsg_io *io);
/*
 * The socket at fd, its file referenced in *fp (the caller puts it with
 * file_put when done; the file holds the socket), or NULL with *err
 * -EBADF or -ENOTSOCK: for calls that act on one socket several times
 * (sendmmsg, recvmmsg), through the two below.
 */
struct socket *sock_lookup(int fd, struct file **fp, long *err);
/* sendmsg / recvmsg of one message on sk, whose file f the caller holds. */
long sock_send(struct socket *sk, struct file *f, struct kmsg *m);
long sock_recv(struct socket *sk, struct file *f, struct kmsg *m);
/* Takes sk's pending error (SO_ERROR), as Linux's sock_error: -errno or 0. */
int sock_error(struct socket *sk);
/* Leaves err (-errno) pending on sk, for its next receive or SO_ERROR. */
void sock_set_error(struct socket *sk, int err);
long sock_shutdown(int fd, int how);
long sock_getname(int fd, struct sock_addr *a, bool peer);
long sock_setsockopt(int fd, int level, int name, const struct sockopt *o);
long sock_getsockopt(int fd, int level, int name, struct sockopt *o);

/* SOL_SOCKET options (sockopt.c). */
int sock_set_sol(struct socket *sk, int name, const struct sockopt *o);
int sock_get_sol(struct socket *sk, int name, struct sockopt *o);
/* An int option's value: -EINVAL if the caller gave fewer than 4 bytes,
 * -EFAULT if they could not be read. */
int sockopt_int(const struct sockopt *o, int *val);
/* Sets o to the int value v. */
void sockopt_put_int(struct sockopt *o, int v);

#endif
