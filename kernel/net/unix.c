/*
 * AF_UNIX: path names are socket inodes in the ramfs namespace.  bind()
 * creates one at the path (EADDRINUSE if the name exists; unlink() frees
 * the name), connect()/sendto() look the path up and find the socket bound
 * there.  Abstract names (sun_path[0] == 0) are bytes in a namespace of
 * their own, one per socket type, gone with their socket; bind() with only
 * the family picks one (autobind).  socketpair() and SCM_RIGHTS live only
 * here.
 */
#include "fs/mount.h"
#include "fs/permission.h"
#include "fs/root_cwd.h"
#include "fs/vfs.h"
#include "lib/string.h"
#include "net/socket.h"
#include "proc/task.h"
#include <uapi/errno.h>

#define UNIX_NAME_OFF offsetof(struct sockaddr_un, sun_path)

#define AUTOBIND_NAMES 0x100000 /* "\0" and five hex digits, as Linux */

/*
 * Protects unix_bound, autobind_next and, for each bound socket, bind_link
 * and bind_priv (the socket inode it holds a reference on; NULL for an
 * abstract name, which is its local address alone).  Taken before a
 * socket lock.
 */
static struct spinlock unix_lock = SPINLOCK_INIT("unix_bound");
static struct list_head unix_bound = LIST_HEAD_INIT(unix_bound);
static unsigned int autobind_next;

/* The family and length checks of every address (Linux's unix_validate_addr). */
static int unix_check_addr(const struct socket *sk, const struct sock_addr *a)
{
	(void)sk;
	if (a->len <= UNIX_NAME_OFF || a->len > sizeof(struct sockaddr_un) ||
	    a->sa.ss_family != AF_UNIX)
		return -EINVAL;
	return 0;
}

static bool unix_abstract(const struct sock_addr *a)
{
	return ((const struct sockaddr_un *)&a->sa)->sun_path[0] == '\0';
}

/* The path name of a checked, non-abstract a, NUL-terminated, into
 * path[UNIX_PATH_MAX + 1]: it ends at the first NUL or a's end. */
static void unix_path(const struct sock_addr *a, char *path)
{
	size_t n = a->len - UNIX_NAME_OFF;

	memcpy(path, ((const struct sockaddr_un *)&a->sa)->sun_path, n);
	path[n] = '\0';
}

/* Under unix_lock: the socket of type bound to abstract name a, or NULL. */
static struct socket *unix_find_abstract(int type, const struct sock_addr *a)
{
	struct socket *s;

	list_for_each_entry(s, &unix_bound, bind_link)
	{
		if (!s->bind_priv && s->type == type && s->local.len == a->len &&
		    memcmp(&s->local.sa, &a->sa, a->len) == 0)
			return s;
	}
	return NULL;
}

/* Under unix_lock: names sk a (its inode ip, NULL for an abstract a). */
static void unix_set_name(struct socket *sk, const struct sock_addr *a, struct inode *ip)
{
	sk->bind_priv = ip;
	list_add_tail(&sk->bind_link, &unix_bound);
	spin_lock(&sk->lock);
	sk->local = *a;
	sk->bound = true;
	spin_unlock(&sk->lock);
}

/* Binds sk to the abstract name a: 0, -EINVAL (bound), -EADDRINUSE. */
static int unix_bind_abstract(struct socket *sk, const struct sock_addr *a)
{
	int err = 0;

	spin_lock(&unix_lock);
	if (sk->bound)
		err = -EINVAL;
	else if (unix_find_abstract(sk->type, a))
		err = -EADDRINUSE;
	else
		unix_set_name(sk, a, NULL);
	spin_unlock(&unix_lock);
	return err;
}

/* Under unix_lock: sets *a to autobind name number n. */
static void autobind_name(struct sock_addr *a, unsigned int n)
{
	static const char hex[] = "0123456789abcdef";
	struct sockaddr_un *u = (struct sockaddr_un *)&a->sa;

	memset(a, 0, sizeof(*a));
	u->sun_family = AF_UNIX;
	for (int i = 5; i >= 1; i--, n >>= 4)
		u->sun_path[i] = hex[n & 15];
	a->len = UNIX_NAME_OFF + 6;
}

/* bind() with only the family: the next free abstract name; 0 if sk is
 * bound already (as Linux), -ENOSPC when all are taken. */
static int unix_autobind_name(struct socket *sk)
{
	struct sock_addr a;
	int err = -ENOSPC;

	spin_lock(&unix_lock);
	if (sk->bound)
		err = 0;
	for (unsigned int i = 0; i < AUTOBIND_NAMES && err; i++) {
		autobind_name(&a, autobind_next);
		autobind_next = (autobind_next + 1) % AUTOBIND_NAMES;
		if (err && !unix_find_abstract(sk->type, &a)) {
			unix_set_name(sk, &a, NULL);
			err = 0;
		}
	}
	spin_unlock(&unix_lock);
	return err;
}

/* Creates the socket inode at path, 0777 less the umask (Linux's
 * unix_bind_bsd): referenced in *ip, or -EADDRINUSE & co. */
static int unix_mknod(const char *path, struct inode **ip)
{
	struct path_last last;
	int err = path_lookup_parent(NULL, path, &last);

	if (err)
		return err;
	/* An existing name first, then EROFS, then the directory's EACCES. */
	if (!last.len || (*ip = dir_lookup(last.dir.inode, last.name, last.len)))
		err = -EEXIST;
	else if (!(err = path_want_write(&last.dir)) && !(err = may_create(last.dir.inode)))
		err = dir_create(last.dir.inode, last.name, last.len,
				 S_IFSOCK | (0777 & ~fs_umask(current()->fs)), 0, ip);
	if (err == -EEXIST)
		err = -EADDRINUSE;
	if (err && *ip)
		inode_put(*ip);
	path_put(&last.dir);
	return err;
}

/* Binds sk to the path in a (checked, not abstract). */
static int unix_bind_path(struct socket *sk, const struct sock_addr *a)
{
	char path[UNIX_PATH_MAX + 1];
	struct inode *ip = NULL;
	struct sock_addr name = {.len = 0};
	int err = 0;

	unix_path(a, path);
	if (sk->bound)
		err = -EINVAL;
	if (!err)
		err = unix_mknod(path, &ip);
	if (err)
		return err;
	/* Its name is the path and one NUL, however long a was (Linux's). */
	name.len = UNIX_NAME_OFF + strlen(path) + 1;
	name.sa.ss_family = AF_UNIX;
	memcpy(((struct sockaddr_un *)&name.sa)->sun_path, path, strlen(path));
	spin_lock(&unix_lock);
	unix_set_name(sk, &name, ip);
	spin_unlock(&unix_lock);
	return 0;
}

static int unix_bind(struct socket *sk, const struct sock_addr *a)
{
	int err;

	if (a->len == UNIX_NAME_OFF && a->sa.ss_family == AF_UNIX)
		return unix_autobind_name(sk);
	err = unix_check_addr(sk, a);
	if (err)
		return err;
	return unix_abstract(a) ? unix_bind_abstract(sk, a) : unix_bind_path(sk, a);
}

/* Sends and connects (dest set) leave an unbound socket unnamed, but one
 * with SO_PASSCRED, which gets an autobind name (Linux's
 * unix_may_passcred); listen (dest NULL) names none (EINVAL). */
static int unix_autobind(struct socket *sk, const struct sock_addr *dest)
{
	if (!dest || !__atomic_load_n(&sk->passcred, __ATOMIC_RELAXED))
		return 0;
	return unix_autobind_name(sk);
}

/* The socket bound to inode ip, referenced, or NULL. */
static struct socket *unix_find(struct inode *ip)
{
	struct socket *s, *found = NULL;

	spin_lock(&unix_lock);
	list_for_each_entry(s, &unix_bound, bind_link)
	{
		if (s->bind_priv == ip) {
			sock_get(found = s);
			break;
		}
	}
	spin_unlock(&unix_lock);
	return found;
}

/* The socket of sk's type bound to abstract name a, referenced. */
static int unix_lookup_abstract(struct socket *sk, const struct sock_addr *a, struct socket **out)
{
	spin_lock(&unix_lock);
	*out = unix_find_abstract(sk->type, a);
	if (*out)
		sock_get(*out);
	spin_unlock(&unix_lock);
	return *out ? 0 : -ECONNREFUSED;
}

static int unix_lookup(struct socket *sk, const struct sock_addr *a, struct socket **out)
{
	char path[UNIX_PATH_MAX + 1];
	struct inode *ip;
	int err = unix_check_addr(sk, a);

	if (err)
		return err;
	if (unix_abstract(a))
		return unix_lookup_abstract(sk, a, out);
	unix_path(a, path);
	err = path_lookup(NULL, path, &ip);
	if (err)
		return err;
	/* Linux's unix_find_bsd: write permission on the file, before its
	 * type is looked at. */
	if ((err = inode_permission(ip, MAY_WRITE))) {
		inode_put(ip);
		return err;
	}
	*out = (ip->mode & S_IFMT) == S_IFSOCK ? unix_find(ip) : NULL;
	inode_put(ip);
	if (!*out)
		return -ECONNREFUSED;
	if ((*out)->type != sk->type) {
		sock_put(*out);
		return -EPROTOTYPE;
	}
	return 0;
}

static void unix_wire_name(const struct socket *sk, struct sock_addr *a)
{
	(void)sk, (void)a;
}

/* An unnamed remote (a socketpair peer) matches unnamed senders: nothing
 * else can address a socket without a name. */
static bool unix_same_addr(const struct sock_addr *remote, const struct sock_addr *addr)
{
	if (remote->len <= UNIX_NAME_OFF)
		return addr->len <= UNIX_NAME_OFF;
	return remote->len == addr->len && memcmp(&remote->sa, &addr->sa, addr->len) == 0;
}

static void unix_unbind(struct socket *sk)
{
	struct inode *ip;

	spin_lock(&unix_lock);
	ip = sk->bind_priv;
	sk->bind_priv = NULL;
	list_del(&sk->bind_link);
	spin_unlock(&unix_lock);
	if (ip)
		inode_put(ip);
}

static int unix_connect_result(struct socket *sk, int err, bool nonblock)
{
	(void)sk, (void)nonblock;
	return err; /* a connect completes or fails at once */
}

/* The server end is named as the listener. */
static void unix_accepted_name(const struct socket *l, const struct sock_addr *dest,
			       struct sock_addr *name)
{
	(void)dest;
	*name = l->local;
}

/* A datagram to a closed socket, or to one connected elsewhere, fails. */
static int unix_dgram_refused(const struct socket *t)
{
	return t->dead ? -ECONNREFUSED : -EPERM;
}

/* socketpair(): a and b (new, unshared) become each other's peer; each
 * one's SO_PEERCRED is the creator's. */
static int unix_pair(struct socket *a, struct socket *b)
{
	a->has_peercred = b->has_peercred = true;
	a->peercred = b->peercred = sock_cred_current();
	sock_get(b);
	a->peer = b;
	sock_get(a);
	b->peer = a;
	if (a->type == SOCK_STREAM) {
		a->state = b->state = SS_CONNECTED;
	} else {
		a->remote = b->local;
		b->remote = a->local;
	}
	return 0;
}

/*
 * Protocol 0 or PF_UNIX, checked first; SOCK_RAW makes a datagram socket,
 * as Linux.  SOCK_SEQPACKET is Linux's too but not here: ESOCKTNOSUPPORT
 * (docs/sockets.md).  SO_PROTOCOL is 0 whatever was asked.
 */
static int unix_socket_type(int type, int protocol, int *proto)
{
	*proto = 0;
	if (protocol && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	if (type == SOCK_STREAM || type == SOCK_DGRAM)
		return type;
	return type == SOCK_RAW ? SOCK_DGRAM : -ESOCKTNOSUPPORT;
}

/* AF_UNIX has no option levels of its own. */
static int unix_setsockopt(struct socket *sk, int level, int name, const struct sockopt *o)
{
	(void)sk, (void)level, (void)name, (void)o;
	return -EOPNOTSUPP;
}

static int unix_getsockopt(struct socket *sk, int level, int name, struct sockopt *o)
{
	(void)sk, (void)level, (void)name, (void)o;
	return -EOPNOTSUPP;
}

const struct sock_family unix_family = {
    .family = AF_UNIX,
    .unnamed_len = UNIX_NAME_OFF,
    .passes_fds = true,
    .holds_more = false,
    .peercred = true,
    .errqueue = false,
    .stream_unconnected_err = -ENOTCONN,
    .stream_listener_recv_err = -EINVAL,
    .stream_unconnected_recv_err = -EINVAL,
    .dgram_recv_oob_err = -EOPNOTSUPP,
    .dgram_noaddr_err = -ENOTCONN,
    .dgram_max = SOCK_BUF_MAX,
    .outq_unread = true,
    .socket_type = unix_socket_type,
    .setsockopt = unix_setsockopt,
    .getsockopt = unix_getsockopt,
    .check_addr = unix_check_addr,
    .bind = unix_bind,
    .autobind = unix_autobind,
    .lookup = unix_lookup,
    .wire_name = unix_wire_name,
    .same_addr = unix_same_addr,
    .unbind = unix_unbind,
    .pair = unix_pair,
    .connect_result = unix_connect_result,
    .accepted_name = unix_accepted_name,
    .dgram_peer = unix_lookup, /* a connected datagram socket keeps its peer */
    .dgram_refused = unix_dgram_refused,
};
