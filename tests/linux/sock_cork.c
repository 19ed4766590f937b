/* MSG_MORE and the corks hold data back as Linux does (send02): TCP keeps
 * what a MSG_MORE send or TCP_CORK wrote from the reader until a send
 * without it, the cork's removal, TCP_NODELAY, shutdown or close; UDP
 * gathers MSG_MORE sends (and UDP_CORK's) into one datagram; AF_UNIX
 * ignores MSG_MORE. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inet_pair.h"
#include "testutil.h"

static struct sockaddr_in loopback = {.sin_family = AF_INET};

/* What a non-blocking read finds: its count, or -errno. */
static long peek_count(int s)
{
	char buf[256];
	long n = recv(s, buf, sizeof buf, MSG_DONTWAIT);

	return n < 0 ? -errno : n;
}

static void test_tcp_more(void)
{
	struct pollfd pfd;
	int c, a, on = 1, off = 0;

	tcp_pair(&c, &a);
	require(send(c, "0123456789abcdef", 16, MSG_MORE) == 16, "send MSG_MORE");
	is_int(peek_count(a), -EAGAIN, "TCP: a MSG_MORE send is held back");
	pfd = (struct pollfd){.fd = a, .events = POLLIN};
	is_int(poll(&pfd, 1, 0), 0, "TCP: held data does not make the reader POLLIN");
	require(send(c, "!", 1, 0) == 1, "send");
	is_int(peek_count(a), 17, "TCP: the next plain send pushes both");

	require(setsockopt(c, IPPROTO_TCP, TCP_CORK, &on, sizeof on) == 0, "TCP_CORK");
	is_int(send(c, "abc", 3, 0), 3, "TCP_CORK: send");
	is_int(send(c, "def", 3, 0), 3, "TCP_CORK: another");
	is_int(peek_count(a), -EAGAIN, "TCP_CORK: nothing reaches the reader");
	setsockopt(c, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
	is_int(peek_count(a), 6, "clearing TCP_CORK pushes it all");

	setsockopt(c, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
	send(c, "gh", 2, 0);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
	is_int(peek_count(a), 2, "setting TCP_NODELAY pushes what the cork held");
	setsockopt(c, IPPROTO_TCP, TCP_CORK, &off, sizeof off);

	send(c, "ij", 2, MSG_MORE);
	shutdown(c, SHUT_WR);
	is_int(peek_count(a), 2, "shutdown(SHUT_WR) pushes held data before the EOF");
	is_int(peek_count(a), 0, "then EOF");
	close(c);
	close(a);

	tcp_pair(&c, &a);
	send(c, "kl", 2, MSG_MORE);
	close(c);
	is_int(peek_count(a), 2, "close pushes held data");
	close(a);
}

static void test_udp_more(void)
{
	struct sockaddr_in sin = loopback;
	socklen_t len = sizeof sin;
	int r = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0), on = 1, off = 0;

	require(bind(r, (struct sockaddr *)&sin, sizeof sin) == 0 &&
		    getsockname(r, (struct sockaddr *)&sin, &len) == 0,
		"bind");
	is_int(sendto(s, "0123456789abcdef", 16, MSG_MORE, (struct sockaddr *)&sin, sizeof sin), 16,
	       "UDP sendto MSG_MORE: the count of this call");
	is_int(peek_count(r), -EAGAIN, "UDP: MSG_MORE holds the datagram");
	is_int(sendto(s, "!", 1, 0, (struct sockaddr *)&sin, sizeof sin), 1, "UDP: the last part");
	is_int(peek_count(r), 17, "UDP: one datagram of both parts");
	is_int(peek_count(r), -EAGAIN, "... and only one");

	require(setsockopt(s, IPPROTO_UDP, UDP_CORK, &on, sizeof on) == 0, "UDP_CORK");
	sendto(s, "ab", 2, 0, (struct sockaddr *)&sin, sizeof sin);
	sendto(s, "cd", 2, 0, (struct sockaddr *)&sin, sizeof sin);
	is_int(peek_count(r), -EAGAIN, "UDP_CORK: held");
	setsockopt(s, IPPROTO_UDP, UDP_CORK, &off, sizeof off);
	is_int(peek_count(r), 4, "clearing UDP_CORK sends one datagram");

	require(connect(s, (struct sockaddr *)&sin, sizeof sin) == 0, "connect");
	send(s, "xyz", 3, MSG_MORE);
	send(s, "", 0, 0);
	is_int(peek_count(r), 3, "connected UDP: an empty send ends the datagram");
	close(s);
	close(r);
}

static void test_unix_ignores(void)
{
	int sv[2];

	require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	send(sv[0], "ab", 2, MSG_MORE);
	is_int(peek_count(sv[1]), 2, "unix stream: MSG_MORE changes nothing");
	close(sv[0]);
	close(sv[1]);
	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	send(sv[0], "ab", 2, MSG_MORE);
	is_int(peek_count(sv[1]), 2, "unix datagram: MSG_MORE changes nothing");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	loopback.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	plan(21);
	test_tcp_more();
	test_udp_more();
	test_unix_ignores();
	return done();
}
