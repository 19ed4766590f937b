/* Socket throughput and set-up cost between two processes, AF_UNIX and
 * 127.0.0.1: stream MB/s with 64 B and 64 KiB writes, datagrams/s, and
 * connect+accept+close in microseconds. */
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define REPS  9
#define BATCH 32 /* datagrams between acknowledgements (no loss on Linux UDP) */

struct sock_case {
	int family, type;
	size_t chunk;	/* stream: bytes per write and read; dgram: message size */
	size_t total;	/* stream: bytes per repetition; dgram: messages per repetition */
	int mine, peer; /* connected pair: the parent keeps mine, the child peer */
	int go[2];	/* parent -> child: one byte starts a repetition */
};

static char buf[64 * 1024];

static int bound_inet(int type, struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, type, 0);

	*a = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)a, &len) < 0)
		return -1;
	return fd;
}

/* A connected pair of c->family and c->type in c->mine and c->peer. */
static int make_pair(struct sock_case *c)
{
	int sv[2];
	struct sockaddr_in a, b;

	if (c->family == AF_UNIX) {
		if (socketpair(AF_UNIX, c->type, 0, sv) < 0)
			return -1;
		c->mine = sv[0];
		c->peer = sv[1];
		return 0;
	}
	int x = bound_inet(c->type, &a);
	if (x < 0)
		return -1;
	if (c->type == SOCK_STREAM) {
		listen(x, 1);
		c->peer = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(c->peer, (struct sockaddr *)&a, sizeof(a)) < 0)
			return -1;
		c->mine = accept(x, NULL, NULL);
		close(x);
		return c->mine < 0 ? -1 : 0;
	}
	c->mine = x;
	c->peer = bound_inet(SOCK_DGRAM, &b);
	if (c->peer < 0 || connect(c->mine, (struct sockaddr *)&b, sizeof(b)) < 0 ||
	    connect(c->peer, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	return 0;
}

/* The child: per token, one repetition's worth of writes or datagrams. */
static _Noreturn void sender(struct sock_case *c)
{
	size_t writes = c->type == SOCK_STREAM ? c->total / c->chunk : c->total;
	char token;

	close(c->mine);
	close(c->go[1]);
	while (read(c->go[0], &token, 1) == 1) {
		for (size_t i = 0; i < writes; i++) {
			if (write(c->peer, buf, c->chunk) != (ssize_t)c->chunk)
				_exit(1);
			if (c->type == SOCK_DGRAM && (i + 1) % BATCH == 0 &&
			    read(c->peer, &token, 1) != 1)
				_exit(2);
		}
	}
	_exit(0);
}

static bool receive_rep(struct sock_case *c)
{
	if (c->type == SOCK_STREAM) {
		for (size_t got = 0; got < c->total;) {
			ssize_t n = read(c->mine, buf, c->chunk);
			if (n <= 0)
				return false;
			got += (size_t)n;
		}
		return true;
	}
	for (size_t i = 0; i < c->total; i++) {
		if (read(c->mine, buf, c->chunk) != (ssize_t)c->chunk)
			return false;
		if ((i + 1) % BATCH == 0 && write(c->mine, "a", 1) != 1)
			return false;
	}
	return true;
}

static double sock_rep(const char *name, void *arg)
{
	struct sock_case *c = arg;
	uint64_t start = bench_now_ns();

	if (write(c->go[1], "g", 1) != 1 || !receive_rep(c)) {
		bench_fail(name, "transfer: %s", strerror(errno));
		return -1;
	}
	double ns = (double)(bench_now_ns() - start);
	return c->type == SOCK_STREAM ? (double)c->total * 1000 / ns /* MB/s */
				      : (double)c->total * 1e9 / ns; /* msg/s */
}

static void sock_row(const char *name, int family, int type, size_t chunk, size_t total)
{
	struct sock_case c = {.family = family, .type = type, .chunk = chunk, .total = total};

	if (!bench_wanted(name)) /* no sender process for a row not run */
		return;
	if (make_pair(&c) < 0 || pipe(c.go) < 0) {
		bench_fail(name, "set-up: %s", strerror(errno));
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		bench_fail(name, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		sender(&c);
	close(c.peer);
	close(c.go[0]);
	bench_row(name, type == SOCK_STREAM ? "MB/s" : "msg/s", REPS, sock_rep, &c);
	close(c.go[1]);
	close(c.mine);
	waitpid(pid, NULL, 0);
}

#define CONNECTS 200

/* connect + accept + close of both ends, in one process: microseconds each. */
static double connect_rep(const char *name, void *arg)
{
	int family = *(int *)arg, l;
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);
	struct sockaddr_un *u = (struct sockaddr_un *)&a;

	if (family == AF_UNIX) {
		*u = (struct sockaddr_un){.sun_family = AF_UNIX};
		snprintf(u->sun_path, sizeof(u->sun_path), "/tmp/bench-sock-%d", (int)getpid());
		unlink(u->sun_path);
		l = socket(AF_UNIX, SOCK_STREAM, 0);
		if (bind(l, (struct sockaddr *)u, sizeof(*u)) < 0)
			l = -1;
		len = sizeof(*u);
	} else {
		l = bound_inet(SOCK_STREAM, (struct sockaddr_in *)&a);
		len = sizeof(struct sockaddr_in);
	}
	if (l < 0 || listen(l, 16) < 0) {
		bench_fail(name, "listener: %s", strerror(errno));
		return -1;
	}
	uint64_t start = bench_now_ns();
	for (int i = 0; i < CONNECTS; i++) {
		int c = socket(family, SOCK_STREAM, 0), s;
		if (connect(c, (struct sockaddr *)&a, len) < 0 || (s = accept(l, NULL, NULL)) < 0) {
			bench_fail(name, "connect/accept: %s", strerror(errno));
			return -1;
		}
		close(c);
		close(s);
	}
	double us = bench_ns_per_op(start, CONNECTS) / 1000;
	close(l);
	if (family == AF_UNIX)
		unlink(u->sun_path);
	return us;
}

int main(void)
{
	int unix_f = AF_UNIX, inet_f = AF_INET;

	bench_begin("bench_sock",
		    "sock_unix_64B,sock_unix_64KiB,sock_inet_64B,sock_inet_64KiB,"
		    "sock_unix_dgram,sock_inet_dgram,sock_unix_connect,sock_inet_connect");
	sock_row("sock_unix_64B", AF_UNIX, SOCK_STREAM, 64, 1 << 20);
	sock_row("sock_unix_64KiB", AF_UNIX, SOCK_STREAM, 64 * 1024, 16 << 20);
	sock_row("sock_inet_64B", AF_INET, SOCK_STREAM, 64, 1 << 20);
	sock_row("sock_inet_64KiB", AF_INET, SOCK_STREAM, 64 * 1024, 16 << 20);
	sock_row("sock_unix_dgram", AF_UNIX, SOCK_DGRAM, 64, 20000);
	sock_row("sock_inet_dgram", AF_INET, SOCK_DGRAM, 64, 20000);
	bench_row("sock_unix_connect", "us", REPS, connect_rep, &unix_f);
	bench_row("sock_inet_connect", "us", REPS, connect_rep, &inet_f);
	return bench_end();
}
