/*
 * Regression (issue 13, item 13): a datagram sent after shutdown(SHUT_WR)
 * was delivered.  Linux refuses it with EPIPE, and raises no SIGPIPE for a
 * datagram socket (MSG_NOSIGNAL or not); receiving still works.  For a
 * unix pair, a named unix socket and a UDP socket, on the host Linux too.
 */
#include <signal.h>

#include "sock_util.h"

/* A datagram socket *a able to send to *b (connected, or by address in *to). */
struct pair {
	int a, b;
	struct saddr to;
	const char *what;
};

static void make_pairs(struct pair p[3])
{
	int sv[2];

	require(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0, "socketpair");
	p[0] = (struct pair){sv[0], sv[1], {.len = 0}, "unix pair"};
	p[1].what = "unix named";
	p[1].b = sock_server(AF_UNIX, SOCK_DGRAM, "shutwr", &p[1].to);
	p[1].a = socket(AF_UNIX, SOCK_DGRAM, 0);
	p[2].what = "udp, connected"; /* Linux: unconnected UDP cannot shut down */
	p[2].b = sock_server(AF_INET, SOCK_DGRAM, "shutwr", &p[2].to);
	p[2].a = sock_client(AF_INET, SOCK_DGRAM, &p[2].to);
	p[2].to.len = 0;
	require(p[1].a >= 0 && p[1].b >= 0 && p[2].a >= 0 && p[2].b >= 0, "datagram sockets");
}

static ssize_t send_one(const struct pair *p, int flags)
{
	if (!p->to.len)
		return send(p->a, "x", 1, flags);
	return sendto(p->a, "x", 1, flags, (const struct sockaddr *)&p->to.ss, p->to.len);
}

/* b sends "y" to a. */
static bool answer(const struct pair *p)
{
	struct saddr a = {.len = sizeof(a.ss)};

	if (send(p->b, "y", 1, 0) == 1)
		return true; /* b is connected to a */
	return getsockname(p->a, (struct sockaddr *)&a.ss, &a.len) == 0 &&
	       sendto(p->b, "y", 1, 0, (struct sockaddr *)&a.ss, a.len) == 1;
}

static void check(const struct pair *p)
{
	char c;
	int status = -1;
	pid_t pid;

	ok(send_one(p, 0) == 1 && recv(p->b, &c, 1, 0) == 1, "%s: a datagram goes through",
	   p->what);
	require(shutdown(p->a, SHUT_WR) == 0, "shutdown(SHUT_WR)");
	is_errno(send_one(p, MSG_NOSIGNAL), EPIPE, "%s: after SHUT_WR, MSG_NOSIGNAL: EPIPE",
		 p->what);
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(send_one(p, 0) == -1 && errno == EPIPE ? 0 : 1);
	if (pid > 0)
		waitpid(pid, &status, 0);
	ok(exited_with(status, 0), "%s: without it: EPIPE and no SIGPIPE (status %#x)", p->what,
	   status);
	is_errno(recv(p->b, &c, 1, MSG_DONTWAIT), EAGAIN, "%s: nothing was delivered", p->what);
	if (p->to.len) /* the sender has no name to answer to */
		skip("unnamed sender", "receiving after SHUT_WR");
	else
		ok(answer(p) && recv(p->a, &c, 1, 0) == 1 && c == 'y',
		   "%s: receiving after SHUT_WR still works", p->what);
	close(p->a);
	close(p->b);
	saddr_drop(&p->to);
}

int main(void)
{
	struct pair p[3];

	plan(3 * 5);
	signal(SIGPIPE, SIG_DFL);
	make_pairs(p);
	for (int i = 0; i < 3; i++)
		check(&p[i]);
	return done();
}
