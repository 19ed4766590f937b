/*
 * Stream sockets between real processes, over AF_UNIX and 127.0.0.1: echo,
 * many clients on one listener, 10 MB streamed and checksummed, names, and
 * the peer closing (EOF, then EPIPE with SIGPIPE or MSG_NOSIGNAL).
 */
#include <signal.h>
#include <sys/wait.h>

#include "sock_util.h"

#define CLIENTS 6
#define BIG	(10 * 1024 * 1024)

/* Server child: accepts n connections one by one, echoing each until EOF. */
static pid_t echo_server(int lfd, int n)
{
	pid_t pid = fork();
	char buf[1500];
	ssize_t len;

	if (pid != 0)
		return pid;
	for (int i = 0; i < n; i++) {
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			_exit(1);
		while ((len = read(c, buf, sizeof(buf))) > 0)
			if (!write_all(c, buf, len))
				_exit(2);
		close(c);
	}
	_exit(0);
}

/* One echo round trip on a connected fd. */
static bool echo_once(int fd, const char *msg)
{
	char back[64] = {0};
	size_t len = strlen(msg);

	return write_all(fd, msg, len) && read_all(fd, back, len) == len &&
	       memcmp(back, msg, len) == 0;
}

static void test_echo(int family)
{
	struct saddr a;
	int lfd = sock_server(family, SOCK_STREAM, "echo", &a);

	require(lfd >= 0, "echo listener");
	pid_t srv = echo_server(lfd, 1 + CLIENTS);
	int fd = sock_client(family, SOCK_STREAM, &a);
	ok(fd >= 0 && echo_once(fd, "hello, socket"), "%s stream: echo", fam_name(family));
	close(fd);
	pid_t kids[CLIENTS];
	for (int i = 0; i < CLIENTS; i++) {
		fflush(stdout);
		if ((kids[i] = fork()) == 0) {
			char msg[32];
			snprintf(msg, sizeof(msg), "client %d says hi", i);
			int c = sock_client(family, SOCK_STREAM, &a);
			_exit(c >= 0 && echo_once(c, msg) ? 0 : 1);
		}
	}
	bool all = true;
	for (int i = 0; i < CLIENTS; i++)
		all &= child_ok(kids[i]);
	ok(all, "%s stream: %d client processes on one listener", fam_name(family), CLIENTS);
	ok(child_ok(srv), "%s stream: server served them all", fam_name(family));
	close(lfd);
	saddr_drop(&a);
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + (i >> 11));
}

/* 10 MB from a child in odd-sized writes; the parent checks every byte. */
static void test_bulk(int family)
{
	struct saddr a;
	int lfd = sock_server(family, SOCK_STREAM, "bulk", &a);
	static unsigned char buf[65536];

	require(lfd >= 0, "bulk listener");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = sock_client(family, SOCK_STREAM, &a);
		for (size_t off = 0; fd >= 0 && off < BIG;) {
			size_t n = BIG - off < 7919 ? BIG - off : 7919;
			for (size_t i = 0; i < n; i++)
				buf[i] = pattern(off + i);
			if (!write_all(fd, buf, n))
				_exit(1);
			off += n;
		}
		_exit(fd >= 0 ? 0 : 2);
	}
	int c = accept(lfd, NULL, NULL);
	size_t total = 0;
	bool good = c >= 0;
	ssize_t n;
	while (c >= 0 && (n = read(c, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			good &= buf[i] == pattern(total + i);
		total += n;
	}
	is_int(total, BIG, "%s stream: 10 MB arrived", fam_name(family));
	ok(good, "%s stream: checksum of every byte", fam_name(family));
	ok(child_ok(pid), "%s stream: writer done", fam_name(family));
	close(c);
	close(lfd);
	saddr_drop(&a);
}

/* A connected pair through a listener: *c client end, *s server end. */
static void connected(int family, const char *tag, int *c, int *s)
{
	struct saddr a;
	int lfd = sock_server(family, SOCK_STREAM, tag, &a);

	require(lfd >= 0, "listener");
	*c = sock_client(family, SOCK_STREAM, &a);
	*s = accept(lfd, NULL, NULL);
	require(*c >= 0 && *s >= 0, "connect/accept");
	close(lfd);
	saddr_drop(&a);
}

static void test_peer_close(int family)
{
	int c, s;
	char b;

	connected(family, "close", &c, &s);
	ok(write_all(s, "x", 1) && close(s) == 0, "%s stream: server writes and closes",
	   fam_name(family));
	is_int(read(c, &b, 1), 1, "%s stream: data before EOF still arrives", fam_name(family));
	is_int(read(c, &b, 1), 0, "%s stream: then EOF", fam_name(family));
	/* TCP may take one more send to hear the reset; AF_UNIX knows at once. */
	ssize_t r = send(c, "y", 1, MSG_NOSIGNAL);
	if (r == 1 && family == AF_INET)
		r = send(c, "y", 1, MSG_NOSIGNAL);
	is_errno(r, EPIPE, "%s stream: send after close, MSG_NOSIGNAL", fam_name(family));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		write(c, "y", 1);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	ok(killed_by(status, SIGPIPE), "%s stream: write after close raises SIGPIPE",
	   fam_name(family));
	signal(SIGPIPE, SIG_IGN);
	is_errno(write(c, "y", 1), EPIPE, "%s stream: SIGPIPE ignored: EPIPE", fam_name(family));
	signal(SIGPIPE, SIG_DFL);
	close(c);
}

static void test_shutdown(int family)
{
	int c, s;
	char b[4];

	connected(family, "shut", &c, &s);
	ok(shutdown(c, SHUT_WR) == 0, "%s stream: shutdown(SHUT_WR)", fam_name(family));
	is_int(read(s, b, 4), 0, "%s stream: peer reads EOF", fam_name(family));
	ok(write_all(s, "ok", 2) && read_all(c, b, 2) == 2,
	   "%s stream: other direction still works", fam_name(family));
	is_errno(send(c, "z", 1, MSG_NOSIGNAL), EPIPE, "%s stream: send after SHUT_WR: EPIPE",
		 fam_name(family));
	is_errno(shutdown(c, 7), EINVAL, "%s stream: shutdown(7): EINVAL", fam_name(family));
	close(c);
	close(s);
}

static void test_names(int family)
{
	struct saddr a, got, peer;
	int lfd = sock_server(family, SOCK_STREAM, "names", &a);
	require(lfd >= 0, "names listener");
	int c = sock_client(family, SOCK_STREAM, &a);
	peer.len = sizeof(peer.ss);
	int s = accept(lfd, (struct sockaddr *)&peer.ss, &peer.len);
	require(c >= 0 && s >= 0, "names connect");
	got.len = sizeof(got.ss);
	memset(&got.ss, 0, sizeof(got.ss));
	ok(getpeername(c, (struct sockaddr *)&got.ss, &got.len) == 0 &&
	       (family == AF_UNIX ? strcmp(((struct sockaddr_un *)&got.ss)->sun_path,
					   ((struct sockaddr_un *)&a.ss)->sun_path) == 0
				  : memcmp(&got.ss, &a.ss, 8) == 0),
	   "%s stream: getpeername is the listener's name", fam_name(family));
	got.len = sizeof(got.ss);
	ok(getsockname(c, (struct sockaddr *)&got.ss, &got.len) == 0 &&
	       peer.ss.ss_family == family &&
	       (family == AF_UNIX || memcmp(&got.ss, &peer.ss, 8) == 0),
	   "%s stream: accept's address is the client's name", fam_name(family));
	close(c);
	close(s);
	close(lfd);
	saddr_drop(&a);
}

static void test_socketpair(void)
{
	int sv[2];
	char b[8] = {0};

	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair(AF_UNIX, SOCK_STREAM)");
	ok(write_all(sv[0], "ping", 4) && read_all(sv[1], b, 4) == 4 && !memcmp(b, "ping", 4),
	   "socketpair: data flows");
	is_int(recv(sv[1], b, 4, MSG_DONTWAIT), -1, "socketpair: empty, MSG_DONTWAIT fails");
	close(sv[0]);
	close(sv[1]);
	is_errno(socketpair(AF_INET, SOCK_STREAM, 0, sv), EOPNOTSUPP,
		 "socketpair(AF_INET): EOPNOTSUPP");
}

int main(void)
{
	plan(2 * 19 + 4);
	for (int i = 0; i < 2; i++) {
		test_echo(families[i]);
		test_bulk(families[i]);
		test_peer_close(families[i]);
		test_shutdown(families[i]);
		test_names(families[i]);
	}
	test_socketpair();
	return done();
}
