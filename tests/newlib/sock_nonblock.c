/*
 * Sockets that must not block: EAGAIN from accept, recv and a full send;
 * MSG_DONTWAIT, MSG_PEEK, MSG_WAITALL; non-blocking connect (EINPROGRESS,
 * then SO_ERROR); poll() over a mix of sockets and pipes, woken by other
 * processes.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include "sock_util.h"

static void test_eagain(int family)
{
	struct saddr a;
	int l = sock_server(family, SOCK_STREAM, "nb", &a);
	char buf[4096];

	require(l >= 0, "listener");
	fcntl(l, F_SETFL, O_NONBLOCK);
	is_errno(accept(l, NULL, NULL), EAGAIN, "%s: non-blocking accept, nobody waiting: EAGAIN",
		 fam_name(family));
	int c = sock_client(family, SOCK_STREAM, &a), s = accept(l, NULL, NULL);
	ok(s >= 0, "%s: accept once a client connected", fam_name(family));
	is_errno(recv(s, buf, 1, MSG_DONTWAIT), EAGAIN, "%s: recv MSG_DONTWAIT, no data: EAGAIN",
		 fam_name(family));
	fcntl(c, F_SETFL, O_NONBLOCK);
	long sent = 0, n;
	memset(buf, 'q', sizeof(buf));
	while ((n = send(c, buf, sizeof(buf), 0)) > 0)
		sent += n;
	ok(n == -1 && errno == EAGAIN && sent > 0,
	   "%s: send until the receiver is full, then EAGAIN (%ld bytes)", fam_name(family), sent);
	struct pollfd p = {c, POLLOUT, 0};
	is_int(poll(&p, 1, 0), 0, "%s: poll: a full connection is not writable", fam_name(family));
	close(c);
	close(s);
	close(l);
	saddr_drop(&a);
}

static void test_peek_waitall(void)
{
	int sv[2];
	char b[8] = {0};

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	write(sv[0], "abcd", 4);
	ok(recv(sv[1], b, 2, MSG_PEEK) == 2 && !memcmp(b, "ab", 2), "MSG_PEEK reads ...");
	ok(recv(sv[1], b, 4, 0) == 4 && !memcmp(b, "abcd", 4), "... and leaves the data queued");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 8; i++) {
			sleep_ms(5);
			write(sv[0], "x", 1);
		}
		_exit(0);
	}
	is_int(recv(sv[1], b, 8, MSG_WAITALL), 8, "MSG_WAITALL waits for all 8 bytes of 8 writes");
	child_ok(pid);
	close(sv[0]);
	close(sv[1]);
}

static void test_connect_nb(void)
{
	struct saddr a;
	int l = sock_server(AF_INET, SOCK_STREAM, "", &a), v = -1;
	int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	socklen_t len = sizeof(v);
	struct pollfd p = {c, POLLOUT, 0};

	is_errno(connect(c, (struct sockaddr *)&a.ss, a.len), EINPROGRESS,
		 "inet: non-blocking connect: EINPROGRESS");
	ok(poll(&p, 1, 2000) == 1 && (p.revents & POLLOUT),
	   "inet: poll says writable when connected");
	ok(getsockopt(c, SOL_SOCKET, SO_ERROR, &v, &len) == 0 && v == 0, "inet: SO_ERROR 0");
	int s = accept(l, NULL, NULL);
	ok(s >= 0 && write_all(c, "hi", 2) && read_all(s, &v, 2) == 2,
	   "inet: the connection works");
	close(s);
	close(c);
	close(l); /* nobody listens on the port now */
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	int r = connect(c, (struct sockaddr *)&a.ss, a.len);
	ok(r == -1 && (errno == EINPROGRESS || errno == ECONNREFUSED),
	   "inet: non-blocking connect to a closed port: EINPROGRESS (or ECONNREFUSED)");
	p = (struct pollfd){c, POLLOUT, 0};
	if (r == -1 && errno == EINPROGRESS)
		ok(poll(&p, 1, 2000) == 1 && (p.revents & POLLERR) &&
		       getsockopt(c, SOL_SOCKET, SO_ERROR, &v, &len) == 0 && v == ECONNREFUSED,
		   "inet: then POLLERR and SO_ERROR ECONNREFUSED");
	else
		ok(1, "inet: refused at once");
	is_int(getsockopt(c, SOL_SOCKET, SO_ERROR, &v, &len) == 0 ? v : -1, 0,
	       "inet: reading SO_ERROR cleared it");
	close(c);

	struct saddr u;
	l = sock_server(AF_UNIX, SOCK_STREAM, "nbconn", &u);
	c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ok(connect(c, (struct sockaddr *)&u.ss, u.len) == 0,
	   "unix: non-blocking connect with backlog room completes at once");
	close(c);
	close(l);
	saddr_drop(&u);
}

/* poll over two sockets and a pipe; a child makes each ready in turn, the
 * next once the parent has read the one before (on ACK), so that poll sees
 * one at a time however late the parent runs. */
static void test_poll_mix(void)
{
	struct saddr a;
	int sv[2], pp[2], ack[2], d = sock_server(AF_INET, SOCK_DGRAM, "", &a);
	struct pollfd p[3];

	require(d >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(pp) == 0 &&
		    pipe(ack) == 0,
		"set-up");
	p[0] = (struct pollfd){sv[0], POLLIN, 0};
	p[1] = (struct pollfd){pp[0], POLLIN, 0};
	p[2] = (struct pollfd){d, POLLIN, 0};
	is_int(poll(p, 3, 0), 0, "poll: nothing ready yet");
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int u = socket(AF_INET, SOCK_DGRAM, 0);
		char c;

		sleep_ms(30); /* most likely the parent waits in poll by then */
		write(pp[1], "p", 1);
		if (read(ack[0], &c, 1) != 1)
			_exit(1);
		sleep_ms(30);
		sendto(u, "d", 1, 0, (struct sockaddr *)&a.ss, a.len);
		if (read(ack[0], &c, 1) != 1)
			_exit(1);
		sleep_ms(30);
		write(sv[1], "s", 1);
		_exit(0);
	}
	bool order = true;
	char b;
	for (int want = 1; want <= 3; want++) {
		int idx = want == 1 ? 1 : want == 2 ? 2 : 0;
		int n = poll(p, 3, 60000); /* a bound for a hang, not a speed */
		order &= n == 1 && (p[idx].revents & POLLIN);
		order &= read(p[idx].fd, &b, 1) == 1;
		order &= want == 3 || write(ack[1], "a", 1) == 1;
	}
	ok(order, "poll wakes for a pipe, a datagram socket and a stream socket, each in turn");
	child_ok(pid);
	close(sv[1]);
	p[0].revents = 0;
	ok(poll(p, 1, 1000) == 1 && (p[0].revents & (POLLIN | POLLHUP)),
	   "poll: the peer's close makes the socket readable (EOF)");
	close(sv[0]);
	close(pp[0]);
	close(pp[1]);
	close(ack[0]);
	close(ack[1]);
	close(d);
}

static void test_poll_listener(void)
{
	struct saddr a;
	int l = sock_server(AF_UNIX, SOCK_STREAM, "pl", &a);
	struct pollfd p = {l, POLLIN, 0};

	is_int(poll(&p, 1, 0), 0, "poll: a listener with nobody waiting");
	int c = sock_client(AF_UNIX, SOCK_STREAM, &a);
	ok(poll(&p, 1, 0) == 1 && (p.revents & POLLIN), "poll: a pending connection is POLLIN");
	close(c);
	close(l);
	saddr_drop(&a);
}

int main(void)
{
	plan(26);
	for (int i = 0; i < 2; i++)
		test_eagain(families[i]);
	test_peek_waitall();
	test_connect_nb();
	test_poll_mix();
	test_poll_listener();
	return done();
}
