/* A stream connect whose connection the server accepts and closes at
 * once, over and over (AF_UNIX and TCP loopback): every connect succeeds
 * and the client then sees the close (a send EPIPE or ECONNRESET, or
 * queued; a recv EOF or ECONNRESET), as on Linux.  fdkernel's connect
 * took its reference to the server end after queueing it, so an accept
 * and close in between freed it under the client, which later locked and
 * put it as its peer (the fuzzer's heap corruption). */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "threads.h"

#define ROUNDS 1500

static int listener;

/* Accepts ROUNDS connections, closing each at once. */
static void *acceptor(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		int fd = accept(listener, NULL, NULL);

		if (fd < 0)
			bad++;
		else
			close(fd);
	}
	return (void *)bad;
}

/* ROUNDS connects to addr, each then shown the server's close. */
static void play(const char *family, int domain, const struct sockaddr *addr, socklen_t len)
{
	int connected = 0, sent_ok = 0, recv_ok = 0;
	void *bad = NULL;
	pthread_t t = start_thread(acceptor, NULL);

	for (int i = 0; i < ROUNDS; i++) {
		int c = socket(domain, SOCK_STREAM, 0);
		char b;
		long n;

		if (c < 0 || connect(c, addr, len) != 0) {
			if (c >= 0)
				close(c);
			continue;
		}
		connected++;
		n = send(c, "x", 1, MSG_NOSIGNAL);
		sent_ok += n == 1 || (n < 0 && (errno == EPIPE || errno == ECONNRESET));
		n = recv(c, &b, 1, 0);
		recv_ok += n == 0 || (n < 0 && errno == ECONNRESET);
		close(c);
	}
	pthread_join(t, &bad);
	is_int(connected, ROUNDS, "%s: every connect succeeds", family);
	is_int((long)bad, 0, "%s: every accept succeeds", family);
	is_int(sent_ok, ROUNDS, "%s: each send is queued, EPIPE or ECONNRESET", family);
	is_int(recv_ok, ROUNDS, "%s: each recv then sees EOF or ECONNRESET", family);
}

int main(void)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(in);

	plan(8);
	snprintf(un.sun_path, sizeof(un.sun_path), "/tmp/sock_connect_close.%d", (int)getpid());
	unlink(un.sun_path);
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	require(listener >= 0 && !bind(listener, (struct sockaddr *)&un, sizeof(un)) &&
		    !listen(listener, 8),
		"an AF_UNIX listener");
	play("AF_UNIX", AF_UNIX, (struct sockaddr *)&un, sizeof(un));
	close(listener);
	unlink(un.sun_path);

	listener = socket(AF_INET, SOCK_STREAM, 0);
	require(listener >= 0 && !bind(listener, (struct sockaddr *)&in, sizeof(in)) &&
		    !listen(listener, 8) && !getsockname(listener, (struct sockaddr *)&in, &len),
		"a TCP listener on 127.0.0.1");
	play("TCP", AF_INET, (struct sockaddr *)&in, sizeof(in));
	close(listener);
	return done();
}
