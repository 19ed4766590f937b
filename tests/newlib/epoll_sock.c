/*
 * epoll over sockets of both families: a listener's accept readiness, a
 * stream's EPOLLIN / EPOLLOUT / EPOLLRDHUP, a full stream that becomes
 * writable when the peer reads (registered before connect()), datagram
 * sockets, and the console (fdkernel-only: the host's stdout may be
 * anything).  Nothing is left behind.
 */
#include "epoll_util.h"
#include "robust.h"
#include "sock_util.h"

static char big[65536];

static void check_stream(int family)
{
	const char *fam = fam_name(family);
	int ep = epoll_create1(0), srv, cli, conn, fd = -1;
	struct saddr a;
	char buf[8];

	srv = sock_server(family, SOCK_STREAM, "epoll", &a);
	require(ep >= 0 && srv >= 0, "set-up");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, srv, EPOLLIN) == 0, "%s: ADD a listener", fam);
	is_int(ep_wait1(ep, 0, NULL), 0, "%s: no connection yet: not ready", fam);
	cli = sock_client(family, SOCK_STREAM, &a);
	require(cli >= 0, "connect");
	is_int(ep_wait1(ep, 1000, &fd), EPOLLIN, "%s: a pending connection: EPOLLIN", fam);
	is_int(fd, srv, "%s: for the listener", fam);
	conn = accept(srv, NULL, NULL);
	require(conn >= 0, "accept");
	is_int(ep_wait1(ep, 0, NULL), 0, "%s: accepted: the listener is not ready", fam);
	ep_ctl(ep, EPOLL_CTL_DEL, srv, 0);
	ok(ep_ctl(ep, EPOLL_CTL_ADD, conn, EPOLLIN | EPOLLRDHUP) == 0, "%s: ADD the connection",
	   fam);
	is_int(ep_wait1(ep, 0, NULL), 0, "%s: no data: not ready", fam);
	write(cli, "hi", 2);
	is_int(ep_wait1(ep, 1000, NULL), EPOLLIN, "%s: data: EPOLLIN", fam);
	read(conn, buf, sizeof buf);
	is_int(ep_wait1(ep, 0, NULL), 0, "%s: read: not ready", fam);
	shutdown(cli, SHUT_WR);
	is_int(ep_wait1(ep, 1000, NULL) & (EPOLLIN | EPOLLRDHUP), EPOLLIN | EPOLLRDHUP,
	       "%s: peer shut down writing: EPOLLIN | EPOLLRDHUP", fam);
	ok(ep_ctl(ep, EPOLL_CTL_MOD, conn, EPOLLOUT) == 0, "%s: MOD to EPOLLOUT", fam);
	is_int(ep_wait1(ep, 0, NULL) & EPOLLOUT, EPOLLOUT, "%s: room: EPOLLOUT", fam);
	close(cli);
	close(conn);
	close(srv);
	saddr_drop(&a);
	close(ep);
}

/* The client is added before connect(); it fills the connection, then a
 * child drains it: the sleeping epoll_wait sees EPOLLOUT. */
static void check_writable_later(int family)
{
	const char *fam = fam_name(family);
	int ep = epoll_create1(0), srv, cli = socket(family, SOCK_STREAM, 0), conn;
	struct saddr a;
	pid_t pid;

	srv = sock_server(family, SOCK_STREAM, "epollw", &a);
	require(ep >= 0 && srv >= 0 && cli >= 0, "set-up");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, cli, EPOLLOUT) == 0, "%s: ADD an unconnected socket", fam);
	require(connect(cli, (struct sockaddr *)&a.ss, a.len) == 0, "connect");
	conn = accept(srv, NULL, NULL);
	require(conn >= 0, "accept");
	fcntl(cli, F_SETFL, O_NONBLOCK);
	while (write(cli, big, sizeof big) > 0)
		;
	is_int(ep_wait1(ep, 0, NULL), 0, "%s: connection full: no EPOLLOUT", fam);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sleep_ms(50);
		fcntl(conn, F_SETFL, O_NONBLOCK);
		while (read(conn, big, sizeof big) > 0)
			;
		_exit(0);
	}
	is_int(ep_wait1(ep, 5000, NULL), EPOLLOUT, "%s: the peer read: the sleeper gets EPOLLOUT",
	       fam);
	ok(child_ok(pid), "%s: the reader exited", fam);
	close(cli);
	close(conn);
	close(srv);
	saddr_drop(&a);
	close(ep);
}

static void check_dgram(int family)
{
	const char *fam = fam_name(family);
	int ep = epoll_create1(0), srv, cli;
	struct saddr a;
	char c;

	srv = sock_server(family, SOCK_DGRAM, "epolld", &a);
	cli = socket(family, SOCK_DGRAM, 0);
	require(ep >= 0 && srv >= 0 && cli >= 0, "set-up");
	ok(ep_ctl(ep, EPOLL_CTL_ADD, srv, EPOLLIN | EPOLLET) == 0, "%s dgram: ADD (ET)", fam);
	is_int(ep_wait1(ep, 0, NULL), 0, "%s dgram: empty: not ready", fam);
	sendto(cli, "d", 1, 0, (struct sockaddr *)&a.ss, a.len);
	is_int(ep_wait1(ep, 1000, NULL), EPOLLIN, "%s dgram: a datagram: EPOLLIN", fam);
	is_int(ep_wait1(ep, 0, NULL), 0, "%s dgram: ET: once", fam);
	recv(srv, &c, 1, 0);
	close(cli);
	close(srv);
	saddr_drop(&a);
	close(ep);
}

static void check_console(void)
{
	int ep = epoll_create1(0);

	if (!on_fdkernel()) {
		skip("fdkernel-only: the host's stdout may be a file", "console: EPOLLOUT");
		close(ep);
		return;
	}
	ep_ctl(ep, EPOLL_CTL_ADD, 1, EPOLLOUT);
	is_int(ep_wait1(ep, 0, NULL), EPOLLOUT, "console: EPOLLOUT");
	close(ep);
}

int main(void)
{
	struct kstat before;
	bool have = kstat_read(&before);

	plan(2 * (12 + 4 + 4) + 2);
	for (int i = 0; i < 2; i++) {
		check_stream(families[i]);
		check_writable_later(families[i]);
		check_dgram(families[i]);
	}
	check_console();
	kstat_unchanged(&before, have, "nothing left: files, sockets, epoll watches");
	return done();
}
