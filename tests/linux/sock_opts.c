/* Socket options as Linux answers them (getsockopt01/02, setsockopt04):
 * EFAULT/EINVAL of the value and length, each level's errno for names it
 * does not know, SO_TYPE/DOMAIN/PROTOCOL/ACCEPTCONN, SO_PEERCRED of pairs
 * and connections, SO_RCVTIMEO/SO_SNDTIMEO (kept and honoured: EAGAIN
 * once the time is up), SO_REUSEPORT, SO_OOBINLINE, SO_*BUFFORCE. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"

static int getopt_int(int s, int level, int name)
{
	int v = -12345;
	socklen_t len = sizeof v;

	return getsockopt(s, level, name, &v, &len) == 0 ? v : -12345;
}

static void test_value_checks(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), v = -1;
	socklen_t len = sizeof v;

	is_errno(getsockopt(s, SOL_SOCKET, SO_OOBINLINE, NULL, &len), EFAULT,
		 "getsockopt: a bad value pointer is EFAULT");
	is_errno(getsockopt(s, SOL_SOCKET, SO_OOBINLINE, &v, NULL), EFAULT,
		 "getsockopt: a bad length pointer is EFAULT");
	len = -1;
	is_errno(getsockopt(s, SOL_SOCKET, SO_OOBINLINE, &v, &len), EINVAL,
		 "getsockopt: length -1 is EINVAL");
	len = 0;
	ok(getsockopt(s, SOL_SOCKET, SO_TYPE, NULL, &len) == 0 && len == 0,
	   "getsockopt: length 0 copies nothing");
	len = 2;
	v = -1;
	ok(getsockopt(s, SOL_SOCKET, SO_TYPE, &v, &len) == 0 && len == 2 && v == (int)0xffff0001,
	   "getsockopt: a short length gets the first bytes");
	len = 4;
	is_errno(getsockopt(s, SOL_SOCKET, 9999, NULL, &len), ENOPROTOOPT,
		 "getsockopt: an unknown name is ENOPROTOOPT before the copy");
	is_errno(setsockopt(s, SOL_SOCKET, 9999, NULL, 4), EFAULT,
		 "setsockopt: the value is read before the name is known (EFAULT)");
	is_errno(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, 2), EINVAL,
		 "setsockopt: length 2 is EINVAL");
	is_errno(setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &v, -1), EINVAL,
		 "setsockopt: length -1 is EINVAL");
	close(s);
}

static void test_levels(void)
{
	int t = socket(AF_INET, SOCK_STREAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0), sv[2], v = 1;
	socklen_t len = sizeof v;

	is_errno(getsockopt(t, 500, 1, &v, &len), EOPNOTSUPP,
		 "TCP: getsockopt at level 500: EOPNOTSUPP");
	is_errno(setsockopt(t, 500, 1, &v, 4), ENOPROTOOPT,
		 "TCP: setsockopt at level 500: ENOPROTOOPT");
	is_errno(getsockopt(t, IPPROTO_UDP, 1, &v, &len), EOPNOTSUPP,
		 "TCP: get at IPPROTO_UDP: EOPNOTSUPP");
	is_errno(setsockopt(t, IPPROTO_UDP, 1, &v, 4), ENOPROTOOPT,
		 "TCP: set at IPPROTO_UDP: ENOPROTOOPT");
	is_errno(getsockopt(t, IPPROTO_IP, -1, &v, &len), ENOPROTOOPT,
		 "IPPROTO_IP, name -1: ENOPROTOOPT");
	is_errno(getsockopt(t, IPPROTO_TCP, -1, &v, &len), ENOPROTOOPT,
		 "IPPROTO_TCP, name -1: ENOPROTOOPT");
	is_errno(setsockopt(t, IPPROTO_TCP, -1, &v, 4), ENOPROTOOPT,
		 "set IPPROTO_TCP, name -1: ENOPROTOOPT");
	ok(setsockopt(t, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v) == 0 &&
	       getopt_int(t, IPPROTO_TCP, TCP_NODELAY) == 1,
	   "TCP_NODELAY reads back");
	is_errno(getsockopt(u, IPPROTO_TCP, TCP_CORK, &v, &len), EOPNOTSUPP,
		 "UDP: get TCP_CORK: EOPNOTSUPP");
	is_errno(setsockopt(u, IPPROTO_TCP, TCP_CORK, &v, 4), ENOPROTOOPT,
		 "UDP: set TCP_CORK: ENOPROTOOPT");
	is_int(getopt_int(u, IPPROTO_UDP, UDP_CORK), 0, "UDP_CORK starts off");
	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	is_errno(getsockopt(sv[0], IPPROTO_IP, 1, &v, &len), EOPNOTSUPP,
		 "unix: get at IPPROTO_IP: EOPNOTSUPP");
	is_errno(setsockopt(sv[0], IPPROTO_IP, 1, &v, 4), EOPNOTSUPP,
		 "unix: set at IPPROTO_IP: EOPNOTSUPP");

	is_int(getopt_int(t, SOL_SOCKET, SO_TYPE), SOCK_STREAM, "SO_TYPE");
	is_int(getopt_int(u, SOL_SOCKET, SO_DOMAIN), AF_INET, "SO_DOMAIN inet");
	is_int(getopt_int(sv[0], SOL_SOCKET, SO_DOMAIN), AF_UNIX, "SO_DOMAIN unix");
	is_int(getopt_int(t, SOL_SOCKET, SO_PROTOCOL), IPPROTO_TCP, "SO_PROTOCOL TCP");
	is_int(getopt_int(u, SOL_SOCKET, SO_PROTOCOL), IPPROTO_UDP, "SO_PROTOCOL UDP");
	is_int(getopt_int(sv[0], SOL_SOCKET, SO_PROTOCOL), 0, "SO_PROTOCOL unix: 0");
	is_int(getopt_int(t, SOL_SOCKET, SO_ACCEPTCONN), 0, "SO_ACCEPTCONN of a fresh socket: 0");
	require(listen(t, 1) == 0, "listen");
	is_int(getopt_int(t, SOL_SOCKET, SO_ACCEPTCONN), 1, "SO_ACCEPTCONN of a listener: 1");
	close(t);
	close(u);
	close(sv[0]);
	close(sv[1]);
}

static void test_flags_and_bufs(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), one = 1, big = (int)0xffffff00;

	is_int(getopt_int(s, SOL_SOCKET, SO_OOBINLINE), 0, "SO_OOBINLINE starts off");
	ok(setsockopt(s, SOL_SOCKET, SO_OOBINLINE, &one, sizeof one) == 0 &&
	       getopt_int(s, SOL_SOCKET, SO_OOBINLINE) == 1,
	   "SO_OOBINLINE reads back");
	ok(setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) == 0 &&
	       getopt_int(s, SOL_SOCKET, SO_REUSEPORT) == 1,
	   "SO_REUSEPORT reads back");
	ok(setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big) == 0 &&
	       getopt_int(s, SOL_SOCKET, SO_SNDBUF) > 0,
	   "SO_SNDBUFFORCE of a negative int: a positive SO_SNDBUF (CVE-2016-9793)");
	ok(setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) == 0 &&
	       getopt_int(s, SOL_SOCKET, SO_RCVBUF) > 0,
	   "SO_RCVBUFFORCE of a negative int: a positive SO_RCVBUF");
	close(s);
}

/* SO_REUSEPORT on both: two listeners, and two UDP sockets, on one port. */
static void test_reuseport(void)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof sin;
	int one = 1, type, a, b;

	for (type = SOCK_STREAM; type <= SOCK_DGRAM; type++) {
		sin.sin_port = 0;
		a = socket(AF_INET, type, 0);
		b = socket(AF_INET, type, 0);
		setsockopt(a, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
		require(bind(a, (struct sockaddr *)&sin, sizeof sin) == 0 &&
			    getsockname(a, (struct sockaddr *)&sin, &len) == 0 &&
			    (type == SOCK_DGRAM || listen(a, 1) == 0),
			"first bind");
		is_errno(bind(b, (struct sockaddr *)&sin, sizeof sin), EADDRINUSE,
			 "%s: without SO_REUSEPORT on the second: EADDRINUSE",
			 type == SOCK_STREAM ? "TCP" : "UDP");
		close(b);
		b = socket(AF_INET, type, 0);
		setsockopt(b, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
		ok(bind(b, (struct sockaddr *)&sin, sizeof sin) == 0 &&
		       (type == SOCK_DGRAM || listen(b, 1) == 0),
		   "%s: SO_REUSEPORT on both shares the port", type == SOCK_STREAM ? "TCP" : "UDP");
		close(a);
		close(b);
	}
}

static int check_cred(int s, pid_t pid, const char *what)
{
	struct ucred uc = {0};
	socklen_t len = sizeof uc;

	return ok(getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && len == sizeof uc &&
		      uc.pid == pid && uc.uid == getuid() && uc.gid == getgid(),
		  "SO_PEERCRED %s", what);
}

static void test_peercred(void)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	struct ucred uc;
	socklen_t len = sizeof uc;
	int sv[2], l, s, c, p[2];
	pid_t child;
	char b;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	check_cred(sv[0], getpid(), "of a stream pair: the creator");
	close(sv[0]);
	close(sv[1]);
	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	check_cred(sv[1], getpid(), "of a datagram pair: the creator");
	close(sv[0]);
	close(sv[1]);

	s = socket(AF_UNIX, SOCK_STREAM, 0);
	ok(getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && uc.pid == 0 &&
	       uc.uid == (uid_t)-1 && uc.gid == (gid_t)-1,
	   "SO_PEERCRED unconnected: pid 0, ids -1");
	close(s);
	s = socket(AF_INET, SOCK_STREAM, 0);
	len = sizeof uc;
	ok(getsockopt(s, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && uc.pid == 0,
	   "SO_PEERCRED of a TCP socket: pid 0");
	close(s);

	/* A child connects: each end names the other's process. */
	snprintf(sun.sun_path, sizeof sun.sun_path, "/tmp/sock_opts.%d", getpid());
	unlink(sun.sun_path);
	l = socket(AF_UNIX, SOCK_STREAM, 0);
	require(bind(l, (struct sockaddr *)&sun, sizeof sun) == 0 && listen(l, 1) == 0, "listen");
	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		len = sizeof uc;
		if (connect(c, (struct sockaddr *)&sun, sizeof sun) != 0 ||
		    getsockopt(c, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
			_exit(1);
		b = uc.pid == getppid() ? 'y' : 'n';
		write(p[1], &b, 1);
		read(c, &b, 1); /* until the parent has looked */
		_exit(0);
	}
	s = accept(l, NULL, NULL);
	check_cred(s, child, "of an accepted connection: the connecting process");
	ok(read(p[0], &b, 1) == 1 && b == 'y', "SO_PEERCRED of the client: the listening process");
	close(s);
	waitpid(child, NULL, 0);
	close(l);
	close(p[0]);
	close(p[1]);
	unlink(sun.sun_path);
}

static void test_timeouts(void)
{
	struct timeval tv = {0, 200000}, got;
	socklen_t len = sizeof got;
	int sv[2], s, l;
	char buf[4096];
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	ok(getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got, &len) == 0 && len == sizeof got &&
	       got.tv_sec == 0 && got.tv_usec == 0,
	   "SO_RCVTIMEO starts at 0 (forever)");
	ok(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
	       getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got, &len) == 0 && got.tv_sec == 0 &&
	       got.tv_usec == 200000,
	   "SO_RCVTIMEO 0.2 s reads back");
	is_errno(recv(sv[0], buf, 1, 0), EAGAIN,
		 "a stream recv with nothing to read: EAGAIN once it is up");
	tv.tv_usec = 1000000;
	is_errno(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv), EDOM,
		 "tv_usec 1000000: EDOM");
	tv.tv_usec = 0;
	is_errno(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, 8), EINVAL,
		 "a short timeval: EINVAL");
	tv.tv_sec = -1;
	len = sizeof got;
	ok(setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
	       getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &got, &len) == 0 && got.tv_sec == 0 &&
	       got.tv_usec == 0,
	   "a negative time waits forever (0)");
	len = 8;
	ok(getsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &got, &len) == 0 && len == 8,
	   "SO_SNDTIMEO into 8 bytes: truncated");

	/* Fill the peer, then a blocking send gives up. */
	tv = (struct timeval){0, 200000};
	require(setsockopt(sv[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0, "SO_SNDTIMEO");
	memset(buf, 'x', sizeof buf);
	while (send(sv[1], buf, sizeof buf, MSG_DONTWAIT) > 0)
		;
	is_errno(send(sv[1], buf, sizeof buf, 0), EAGAIN,
		 "a stream send to a full peer: EAGAIN once it is up");
	close(sv[0]);
	close(sv[1]);

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	is_errno(recv(sv[0], buf, 1, 0), EAGAIN, "a datagram recv: EAGAIN once it is up");
	close(sv[0]);
	close(sv[1]);

	l = socket(AF_INET, SOCK_STREAM, 0);
	require(bind(l, (struct sockaddr *)&sin, sizeof sin) == 0 && listen(l, 1) == 0, "listen");
	setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	is_errno(accept(l, NULL, NULL), EAGAIN, "accept with SO_RCVTIMEO: EAGAIN once it is up");
	close(l);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	require(bind(s, (struct sockaddr *)&sin, sizeof sin) == 0, "bind");
	is_errno(recvfrom(s, buf, 1, 0, NULL, NULL), EAGAIN,
		 "a UDP recvfrom: EAGAIN once it is up");
	close(s);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a timed wait with EINTR even under SA_RESTART (Linux's
 * sock_intr_errno: only an untimed wait restarts). */
static void test_timeout_signal(void)
{
	struct sigaction sa = {.sa_handler = on_alarm, .sa_flags = SA_RESTART};
	struct timeval tv = {100, 0};
	struct itimerval it = {.it_value = {0, 100000}};
	int sv[2];
	char b;

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	is_errno(recv(sv[0], &b, 1, 0), EINTR,
		 "a signal during a timed recv: EINTR despite SA_RESTART");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(57);
	test_value_checks();
	test_levels();
	test_flags_and_bufs();
	test_reuseport();
	test_peercred();
	test_timeouts();
	test_timeout_signal();
	return done();
}
