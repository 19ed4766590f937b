/*
 * AF_UNIX: names are socket inodes in the ramfs namespace.  bind() creates
 * one at the path (EADDRINUSE if the name exists; unlink() frees the name),
 * connect()/sendto() look the path up and find the socket bound there.
 * socketpair() and SCM_RIGHTS live only here.
 */
#include "fs/vfs.h"
#include "lib/string.h"
#include "net/socket.h"
#include <uapi/errno.h>

#define UNIX_NAME_OFF offsetof(struct sockaddr_un, sun_path)

/*
 * Protects unix_bound and, for each bound socket, bind_link and bind_priv
 * (the socket inode it holds a reference on).  Taken before a socket lock.
 */
static struct spinlock unix_lock = SPINLOCK_INIT("unix_bound");
static struct list_head unix_bound = LIST_HEAD_INIT(unix_bound);

/* The path in a, NUL-terminated, into path[UNIX_PATH_MAX + 1]: 0 or -EINVAL
 * (wrong family or length; abstract names are not supported). */
static int unix_path(const struct sock_addr *a, char *path)
{
	const struct sockaddr_un *u = (const void *)&a->sa;
	size_t n = a->len - UNIX_NAME_OFF;

	if (a->len <= UNIX_NAME_OFF || a->len > sizeof(*u) || u->sun_family != AF_UNIX ||
	    u->sun_path[0] == '\0')
		return -EINVAL;
	memcpy(path, u->sun_path, n);
	path[n] = '\0';
	return 0;
}

static int unix_check_addr(const struct sock_addr *a)
{
	char path[UNIX_PATH_MAX + 1];

	return unix_path(a, path);
}

/* Creates the socket inode at path: referenced in *ip, or -EADDRINUSE & co. */
static int unix_mknod(const char *path, struct inode **ip)
{
	struct path_last last;
	int err = path_lookup_parent(NULL, path, &last);

	if (err)
		return err;
	err =
	    last.len ? dir_create(last.dir, last.name, last.len, S_IFSOCK | 0777, 0, ip) : -EEXIST;
	if (err == -EEXIST)
		err = -EADDRINUSE;
	if (err && *ip)
		inode_put(*ip);
	inode_put(last.dir);
	return err;
}

static int unix_bind(struct socket *sk, const struct sock_addr *a)
{
	char path[UNIX_PATH_MAX + 1];
	struct inode *ip = NULL;
	int err = unix_path(a, path);

	if (!err && sk->bound)
		err = -EINVAL;
	if (!err)
		err = unix_mknod(path, &ip);
	if (err)
		return err;
	spin_lock(&unix_lock);
	sk->bind_priv = ip;
	list_add_tail(&sk->bind_link, &unix_bound);
	spin_lock(&sk->lock);
	sk->local.len = UNIX_NAME_OFF + strlen(path) + 1;
	memset(&sk->local.sa, 0, sizeof(sk->local.sa));
	sk->local.sa.ss_family = AF_UNIX;
	memcpy(((struct sockaddr_un *)&sk->local.sa)->sun_path, path, strlen(path));
	sk->bound = true;
	spin_unlock(&sk->lock);
	spin_unlock(&unix_lock);
	return 0;
}

/* Names are only ever explicit: an unbound socket stays unnamed. */
static int unix_autobind(struct socket *sk)
{
	(void)sk;
	return 0;
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

static int unix_lookup(struct socket *sk, const struct sock_addr *a, struct socket **out)
{
	char path[UNIX_PATH_MAX + 1];
	struct inode *ip;
	int err = unix_path(a, path);

	if (!err)
		err = path_lookup(NULL, path, &ip);
	if (err)
		return err;
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

static void unix_wire_name(struct sock_addr *a)
{
	(void)a;
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

/* socketpair(): a and b (new, unshared) become each other's peer. */
static int unix_pair(struct socket *a, struct socket *b)
{
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

const struct sock_family unix_family = {
    .family = AF_UNIX,
    .unnamed_len = UNIX_NAME_OFF,
    .passes_fds = true,
    .stream_protocol = PF_UNIX,
    .dgram_protocol = PF_UNIX,
    .stream_unconnected_err = -ENOTCONN,
    .stream_listener_recv_err = -EINVAL,
    .dgram_noaddr_err = -ENOTCONN,
    .dgram_max = SOCK_BUF_MAX,
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
