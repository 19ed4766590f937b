/*
 * Socket calls given bad input or called in the wrong state: each gets the
 * errno Linux gives.  Also ECONNREFUSED, EADDRINUSE (and SO_REUSEADDR), a
 * full backlog, and the SOL_SOCKET options.
 */
/* newlib names ESOCKTNOSUPPORT only with this. */
#define __LINUX_ERRNO_EXTENSIONS__
#include <fcntl.h>
#include <sys/wait.h>

#include "sock_util.h"

static void test_create(void)
{
	is_errno(socket(46 /* AF_MAX */, SOCK_STREAM, 0), EAFNOSUPPORT, "socket(46): EAFNOSUPPORT");
	is_errno(socket(4242, SOCK_STREAM, 0), EAFNOSUPPORT, "socket(4242): EAFNOSUPPORT");
	is_errno(socket(AF_UNIX, 14, 0), EINVAL, "socket(type 14): EINVAL");
	is_errno(socket(AF_UNIX, 4 /* SOCK_RDM */, 0), ESOCKTNOSUPPORT,
		 "socket(AF_UNIX, SOCK_RDM): ESOCKTNOSUPPORT");
	is_errno(socket(AF_INET, SOCK_STREAM, IPPROTO_UDP), EPROTONOSUPPORT,
		 "socket(AF_INET, SOCK_STREAM, IPPROTO_UDP): EPROTONOSUPPORT");
	is_errno(socket(AF_UNIX, SOCK_DGRAM, 7), EPROTONOSUPPORT,
		 "socket(AF_UNIX, protocol 7): EPROTONOSUPPORT");
	is_errno(socket(AF_UNIX, SOCK_STREAM | 0x100, 0), EINVAL, "unknown type flag: EINVAL");
}

static void test_addresses(void)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0xc0000201)};
	int u = socket(AF_UNIX, SOCK_STREAM, 0), i = socket(AF_INET, SOCK_STREAM, 0);

	require(u >= 0 && i >= 0, "sockets");
	is_errno(bind(u, (struct sockaddr *)&un, 1), EINVAL, "unix bind, length 1: EINVAL");
	is_errno(bind(u, (struct sockaddr *)&un, 200), EINVAL, "unix bind, length 200: EINVAL");
	is_errno(connect(u, (struct sockaddr *)&un, 1), EINVAL, "unix connect, length 1: EINVAL");
	is_errno(bind(u, NULL, sizeof(un)), EFAULT, "bind(NULL address): EFAULT");
	is_errno(bind(i, (struct sockaddr *)&in, 8), EINVAL, "inet bind, length 8: EINVAL");
	is_errno(connect(i, (struct sockaddr *)&in, 4), EINVAL, "inet connect, length 4: EINVAL");
	is_errno(bind(i, (struct sockaddr *)&un, sizeof(un)), EAFNOSUPPORT,
		 "inet bind to an AF_UNIX address: EAFNOSUPPORT");
	is_errno(bind(i, (struct sockaddr *)&in, sizeof(in)), EADDRNOTAVAIL,
		 "inet bind to 192.0.2.1: EADDRNOTAVAIL");
	strcpy(un.sun_path, "/tmp/no/such/dir/sock");
	is_errno(connect(u, (struct sockaddr *)&un, sizeof(un)), ENOENT,
		 "unix connect, no such path: ENOENT");
	if (on_fdkernel())
		is_errno(connect(i, (struct sockaddr *)&in, sizeof(in)), ENETUNREACH,
			 "inet connect off loopback: ENETUNREACH");
	else
		skip("the host has a real network", "inet connect off loopback: ENETUNREACH");
	close(u);
	close(i);
}

static void test_notsock(void)
{
	int f = open("/dev/null", O_RDWR);
	struct sockaddr_in in = {.sin_family = AF_INET};

	is_errno(bind(f, (struct sockaddr *)&in, sizeof(in)), ENOTSOCK,
		 "bind on /dev/null: ENOTSOCK");
	is_errno(listen(f, 1), ENOTSOCK, "listen on /dev/null: ENOTSOCK");
	is_errno(accept(f, NULL, NULL), ENOTSOCK, "accept on /dev/null: ENOTSOCK");
	is_errno(send(f, "x", 1, 0), ENOTSOCK, "send on /dev/null: ENOTSOCK");
	is_errno(shutdown(f, SHUT_RD), ENOTSOCK, "shutdown on /dev/null: ENOTSOCK");
	is_errno(listen(9999, 1), EBADF, "listen on a closed fd: EBADF");
	close(f);
}

static void test_states(int family)
{
	struct saddr a;
	int l = sock_server(family, SOCK_STREAM, "state", &a);
	int c = sock_client(family, SOCK_STREAM, &a);
	int s = accept(l, NULL, NULL);
	int d = socket(family, SOCK_DGRAM, 0), fresh = socket(family, SOCK_STREAM, 0);
	char b;

	require(l >= 0 && c >= 0 && s >= 0 && d >= 0 && fresh >= 0, "state sockets");
	is_errno(listen(c, 1), EINVAL, "%s: listen on a connected socket: EINVAL",
		 fam_name(family));
	is_errno(accept(c, NULL, NULL), EINVAL, "%s: accept on a non-listener: EINVAL",
		 fam_name(family));
	is_errno(connect(c, (struct sockaddr *)&a.ss, a.len), EISCONN, "%s: connect twice: EISCONN",
		 fam_name(family));
	is_errno(listen(d, 1), EOPNOTSUPP, "%s: listen on a datagram socket: EOPNOTSUPP",
		 fam_name(family));
	is_errno(accept(d, NULL, NULL), EOPNOTSUPP, "%s: accept on a datagram socket: EOPNOTSUPP",
		 fam_name(family));
	is_errno(send(fresh, "x", 1, MSG_NOSIGNAL), family == AF_UNIX ? ENOTCONN : EPIPE,
		 "%s: send on an unconnected stream: %s", fam_name(family),
		 family == AF_UNIX ? "ENOTCONN" : "EPIPE");
	is_errno(recv(l, &b, 1, 0), family == AF_UNIX ? EINVAL : ENOTCONN, "%s: recv on a listener",
		 fam_name(family));
	struct saddr p = {.len = sizeof(p.ss)};
	is_errno(getpeername(fresh, (struct sockaddr *)&p.ss, &p.len), ENOTCONN,
		 "%s: getpeername unconnected: ENOTCONN", fam_name(family));
	close(c);
	close(s);
	close(l);
	close(d);
	close(fresh);
	saddr_drop(&a);
}

static void test_refused(int family)
{
	struct saddr a;
	int b = socket(family, SOCK_STREAM, 0);

	saddr_make(&a, family, "refused");
	require(b >= 0 && bind(b, (struct sockaddr *)&a.ss, a.len) == 0, "bind");
	a.len = sizeof(a.ss);
	getsockname(b, (struct sockaddr *)&a.ss, &a.len);
	int c = socket(family, SOCK_STREAM, 0);
	is_errno(connect(c, (struct sockaddr *)&a.ss, a.len), ECONNREFUSED,
		 "%s: connect to a bound, non-listening name: ECONNREFUSED", fam_name(family));
	close(b);
	if (family == AF_UNIX)
		is_errno(connect(c, (struct sockaddr *)&a.ss, a.len), ECONNREFUSED,
			 "unix: connect to a name whose socket closed: ECONNREFUSED");
	else
		is_errno(connect(c, (struct sockaddr *)&a.ss, a.len), ECONNREFUSED,
			 "inet: connect to a port nobody has: ECONNREFUSED");
	close(c);
	int d = socket(AF_UNIX, SOCK_DGRAM, 0);
	struct saddr l;
	int ls = sock_server(AF_UNIX, SOCK_STREAM, "ptype", &l);
	if (family == AF_UNIX)
		is_errno(connect(d, (struct sockaddr *)&l.ss, l.len), EPROTOTYPE,
			 "unix: datagram connect to a stream socket: EPROTOTYPE");
	close(ls);
	if (family == AF_INET)
		is_errno(sendto(d, "x", 1, 0, (struct sockaddr *)&l.ss, l.len), ECONNREFUSED,
			 "unix: sendto a path whose socket closed: ECONNREFUSED");
	close(d);
	saddr_drop(&l);
	saddr_drop(&a);
}

static int reuse_socket(int on)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	return fd;
}

static void test_addrinuse(void)
{
	struct saddr a;
	int s = sock_server(AF_UNIX, SOCK_STREAM, "inuse", &a), t = socket(AF_UNIX, SOCK_STREAM, 0);

	is_errno(bind(t, (struct sockaddr *)&a.ss, a.len), EADDRINUSE,
		 "unix: bind a used path: EADDRINUSE");
	saddr_drop(&a);
	ok(bind(t, (struct sockaddr *)&a.ss, a.len) == 0,
	   "unix: after unlink the path binds again");
	close(s);
	close(t);
	saddr_drop(&a);

	int x = reuse_socket(0), y = reuse_socket(0);
	saddr_make(&a, AF_INET, "");
	require(bind(x, (struct sockaddr *)&a.ss, a.len) == 0, "inet bind");
	getsockname(x, (struct sockaddr *)&a.ss, &a.len);
	is_errno(bind(y, (struct sockaddr *)&a.ss, a.len), EADDRINUSE,
		 "inet: bind a used port: EADDRINUSE");
	close(x);
	close(y);
	x = reuse_socket(1);
	y = reuse_socket(1);
	ok(bind(x, (struct sockaddr *)&a.ss, a.len) == 0 &&
	       bind(y, (struct sockaddr *)&a.ss, a.len) == 0,
	   "inet: SO_REUSEADDR on both: the port is shared");
	close(y);
	y = reuse_socket(1);
	listen(x, 1);
	is_errno(bind(y, (struct sockaddr *)&a.ss, a.len), EADDRINUSE,
		 "inet: SO_REUSEADDR, but the other one listens: EADDRINUSE");
	close(x);
	ok(bind(y, (struct sockaddr *)&a.ss, a.len) == 0,
	   "inet: the port is free once the listener closes");
	close(y);
}

/* backlog 1 takes two pending connections (Linux's count); the next blocks or EAGAIN. */
static void test_backlog(void)
{
	struct saddr a;
	int l = sock_server(AF_UNIX, SOCK_STREAM, "backlog", &a), c[3], n = 0;

	listen(l, 1);
	for (int i = 0; i < 3; i++) {
		c[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (connect(c[i], (struct sockaddr *)&a.ss, a.len) == 0)
			n++;
		else
			is_errno(-1, EAGAIN,
				 "unix: connect to a full backlog, non-blocking: EAGAIN");
	}
	is_int(n, 2, "unix: backlog 1 holds 2 pending connections");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int b = socket(AF_UNIX, SOCK_STREAM, 0);
		_exit(connect(b, (struct sockaddr *)&a.ss, a.len) == 0 ? 0 : 1);
	}
	sleep_ms(100);
	int s = accept(l, NULL, NULL);
	ok(s >= 0 && child_ok(pid), "unix: a blocked connect completes once accept makes room");
	close(s);
	for (int i = 0; i < 3; i++)
		close(c[i]);
	close(l);
	saddr_drop(&a);
}

static int getopt_int(int fd, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	return getsockopt(fd, SOL_SOCKET, name, &v, &len) == 0 && len == sizeof(v) ? v : -1;
}

static void test_options(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1, v = 32768;
	socklen_t len = sizeof(v);

	is_int(getopt_int(s, SO_TYPE), SOCK_DGRAM, "SO_TYPE");
	is_int(getopt_int(s, SO_ERROR), 0, "SO_ERROR of a fresh socket: 0");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	is_int(getopt_int(s, SO_REUSEADDR), 1, "SO_REUSEADDR reads back");
	ok(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0 &&
	       getopt_int(s, SO_RCVBUF) >= v,
	   "SO_RCVBUF: at least what was set");
	ok(setsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) == 0 &&
	       getopt_int(s, SO_SNDBUF) >= v,
	   "SO_SNDBUF: at least what was set");
	is_errno(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, 2), EINVAL,
		 "setsockopt, optlen 2: EINVAL");
	is_errno(getsockopt(s, SOL_SOCKET, 9999, &v, &len), ENOPROTOOPT,
		 "unknown option: ENOPROTOOPT");
	is_errno(getsockopt(s, SOL_SOCKET, SO_TYPE, &v, NULL), EFAULT,
		 "getsockopt, NULL optlen: EFAULT");
	close(s);
}

static void test_msg(void)
{
	int sv[2];
	static struct iovec v[1100];
	struct msghdr m = {.msg_iov = v, .msg_iovlen = 1100};

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	is_errno(sendmsg(sv[0], &m, 0), EMSGSIZE, "sendmsg with 1100 iovecs: EMSGSIZE");
	is_errno(sendmsg(sv[0], NULL, 0), EFAULT, "sendmsg(NULL): EFAULT");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(64);
	test_create();
	test_addresses();
	test_notsock();
	for (int i = 0; i < 2; i++)
		test_states(families[i]);
	for (int i = 0; i < 2; i++)
		test_refused(families[i]);
	test_addrinuse();
	test_backlog();
	test_options();
	test_msg();
	return done();
}
