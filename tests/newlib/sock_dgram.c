/*
 * Datagram sockets between real processes, over AF_UNIX and 127.0.0.1:
 * echo, message boundaries kept, truncation (MSG_TRUNC), MSG_PEEK,
 * connected datagram sockets, recvfrom's source address.
 */
#include <sys/wait.h>

#include "sock_util.h"

#define MSGS 20

/* Child: echoes n datagrams back to their sender. */
static pid_t echo_server(int fd, int n)
{
	pid_t pid;
	char buf[2048];

	fflush(stdout);
	if ((pid = fork()) != 0)
		return pid;
	for (int i = 0; i < n; i++) {
		struct saddr from = {.len = sizeof(from.ss)};
		ssize_t len =
		    recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from.ss, &from.len);
		if (len < 0 ||
		    sendto(fd, buf, len, 0, (struct sockaddr *)&from.ss, from.len) != len)
			_exit(1);
	}
	_exit(0);
}

/* A datagram socket with a name of its own (AF_UNIX replies need one). */
static int named_client(int family, struct saddr *me)
{
	return sock_server(family, SOCK_DGRAM, "dcli", me);
}

static void test_echo(int family)
{
	struct saddr a, me;
	int s = sock_server(family, SOCK_DGRAM, "decho", &a);
	int c = named_client(family, &me);
	char buf[64];

	require(s >= 0 && c >= 0, "datagram sockets");
	pid_t srv = echo_server(s, 1);
	ok(sendto(c, "marco", 5, 0, (struct sockaddr *)&a.ss, a.len) == 5, "%s dgram: sendto",
	   fam_name(family));
	is_int(recv(c, buf, sizeof(buf), 0), 5, "%s dgram: echo comes back whole",
	       fam_name(family));
	ok(child_ok(srv), "%s dgram: server done", fam_name(family));
	close(s);
	close(c);
	saddr_drop(&a);
	saddr_drop(&me);
}

/* MSGS messages of different sizes from a child; each read gets exactly one. */
static void test_boundaries(int family)
{
	struct saddr a;
	int s = sock_server(family, SOCK_DGRAM, "dbound", &a);
	char buf[1024];
	bool good = true;

	require(s >= 0, "datagram receiver");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int c = socket(family, SOCK_DGRAM, 0);
		for (int i = 0; i < MSGS; i++) {
			memset(buf, 'a' + i, i * 37 + 1);
			if (sendto(c, buf, i * 37 + 1, 0, (struct sockaddr *)&a.ss, a.len) !=
			    i * 37 + 1)
				_exit(1);
		}
		_exit(0);
	}
	for (int i = 0; i < MSGS; i++) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		good &= n == i * 37 + 1 && buf[0] == 'a' + i && buf[n - 1] == 'a' + i;
	}
	ok(good, "%s dgram: %d messages, one per read, sizes kept", fam_name(family), MSGS);
	ok(child_ok(pid), "%s dgram: sender done", fam_name(family));
	close(s);
	saddr_drop(&a);
}

static void test_trunc_peek(int family)
{
	struct saddr a, from = {.len = sizeof(from.ss)};
	int s = sock_server(family, SOCK_DGRAM, "dtrunc", &a);
	int c = socket(family, SOCK_DGRAM, 0);
	char buf[16];
	struct iovec v = {buf, 4};
	struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};

	require(s >= 0 && c >= 0, "datagram sockets");
	sendto(c, "0123456789", 10, 0, (struct sockaddr *)&a.ss, a.len);
	sendto(c, "second", 6, 0, (struct sockaddr *)&a.ss, a.len);
	is_int(recv(s, buf, sizeof(buf), MSG_PEEK), 10, "%s dgram: MSG_PEEK sees the first message",
	       fam_name(family));
	is_int(recvmsg(s, &m, 0), 4, "%s dgram: short read returns what fit", fam_name(family));
	ok(m.msg_flags & MSG_TRUNC, "%s dgram: msg_flags has MSG_TRUNC", fam_name(family));
	is_int(recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from.ss, &from.len), 6,
	       "%s dgram: the rest of a truncated message is gone", fam_name(family));
	ok(family == AF_UNIX ? from.len == 0 : from.ss.ss_family == family && from.len == a.len,
	   "%s dgram: recvfrom's source (none for an unnamed AF_UNIX sender)", fam_name(family));
	sendto(c, "0123456789", 10, 0, (struct sockaddr *)&a.ss, a.len);
	is_int(recv(s, buf, 2, MSG_TRUNC), 10, "%s dgram: MSG_TRUNC returns the real length",
	       fam_name(family));
	close(s);
	close(c);
	saddr_drop(&a);
}

static void test_connected(int family)
{
	struct saddr a;
	int s = sock_server(family, SOCK_DGRAM, "dconn", &a);
	int c = sock_client(family, SOCK_DGRAM, &a);
	char buf[8];

	require(s >= 0 && c >= 0, "connected datagram socket");
	ok(send(c, "abc", 3, 0) == 3 && recv(s, buf, sizeof(buf), 0) == 3,
	   "%s dgram: send on a connected socket", fam_name(family));
	struct saddr p = {.len = sizeof(p.ss)};
	ok(getpeername(c, (struct sockaddr *)&p.ss, &p.len) == 0 && p.ss.ss_family == family,
	   "%s dgram: getpeername after connect", fam_name(family));
	int u = socket(family, SOCK_DGRAM, 0);
	is_errno(send(u, "x", 1, 0), family == AF_UNIX ? ENOTCONN : EDESTADDRREQ,
		 "%s dgram: send without address or peer", fam_name(family));
	close(u);
	close(c);
	close(s);
	saddr_drop(&a);
}

static void test_socketpair(void)
{
	int sv[2];
	char buf[8];

	ok(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair(AF_UNIX, SOCK_DGRAM)");
	send(sv[0], "one", 3, 0);
	send(sv[0], "three", 5, 0);
	ok(recv(sv[1], buf, sizeof(buf), 0) == 3 && recv(sv[1], buf, sizeof(buf), 0) == 5,
	   "socketpair dgram: boundaries kept");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	plan(2 * 14 + 2);
	for (int i = 0; i < 2; i++) {
		test_echo(families[i]);
		test_boundaries(families[i]);
		test_trunc_peek(families[i]);
		test_connected(families[i]);
	}
	test_socketpair();
	return done();
}
