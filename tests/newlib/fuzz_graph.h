/* Object-graph scenarios: socket pairs, listeners with queued connections,
 * pipes and fds in flight over SCM_RIGHTS, shared with helper processes
 * that block on them (poll, read, write, accept) and torn down in a random
 * order, by close, shutdown, connect(AF_UNSPEC), dup2 over, SIGKILL mid-call
 * and exit.  The kernel must free all of it, whatever the order.
 * Included by fuzz.c only, after fuzz_scenario.h. */
#ifndef FUZZ_GRAPH_H
#define FUZZ_GRAPH_H

#define GRAPH_MAX  24	/* objects in one graph */
#define GRAPH_OPS  40	/* teardown steps at most */
#define DGRAM_CAP  4096 /* empty datagrams into the least buffer: Linux stops 6 in */
#define CYCLE_REPS 4	/* cycles built per cycle scenario */

/* One graph, in the scenario process; helpers get a copy when forked.  A
 * closed slot has fd -1.  nb: the file is non-blocking (the flag is shared
 * by every process holding the file, so it is set once, at creation);
 * only a non-blocking listener may be accepted from in the scenario. */
static struct graph {
	struct {
		int fd;
		bool listener, nb;
	} o[GRAPH_MAX];
	int n, names; /* slots used; AF_UNIX names made */
} g;

static int graph_add(int fd, bool listener, bool nb)
{
	if (fd < 0 || g.n == GRAPH_MAX) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	g.o[g.n].fd = fd, g.o[g.n].listener = listener, g.o[g.n].nb = nb;
	return g.n++;
}

/* A random slot still open (-1 if none). */
static int graph_pick(void)
{
	for (int tries = 0; tries < 8 && g.n; tries++) {
		int i = (int)below(g.n);
		if (g.o[i].fd >= 0)
			return i;
	}
	return -1;
}

static int sock_flags(bool nb)
{
	return nb ? SOCK_NONBLOCK : 0;
}

static void add_pair(void)
{
	static const int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET};
	int sv[2], type = PICK(types);
	bool nb = one_in(2);
	if (socketpair(AF_UNIX, type | sock_flags(nb), 0, sv) == 0)
		graph_add(sv[0], false, nb), graph_add(sv[1], false, nb);
}

static void add_pipe(void)
{
	int p[2];
	if (pipe(p) == 0)
		graph_add(p[0], false, false), graph_add(p[1], false, false);
}

/* A listener (AF_UNIX or TCP on loopback) with clients it never accepts. */
static void add_listener(void)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	bool unix_family = one_in(2), nb = one_in(2);
	if (unix_family)
		len = unix_name((struct sockaddr_un *)&ss, "l", g.names++);
	else
		len = inet_loopback(&ss);
	int l = socket(ss.ss_family, SOCK_STREAM | sock_flags(nb), 0);
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, (int)below(4)) < 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) < 0) {
		close(l);
		return;
	}
	graph_add(l, true, nb);
	for (int n = (int)below(4); n > 0; n--) {
		int c = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(c, (struct sockaddr *)&ss, len);
		if (one_in(2)) /* TCP holds it back: held data at teardown */
			send(c, "m", 1, MSG_MORE | MSG_NOSIGNAL);
		graph_add(c, false, true);
	}
	if (unix_family && one_in(2))
		unlink(((struct sockaddr_un *)&ss)->sun_path);
}

/* Datagram sockets connected to a bound one: AF_UNIX (the peer relation
 * whose lifetime dgram poll depends on) or UDP. */
static void add_dgram_peers(void)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	bool unix_family = !one_in(4);
	if (unix_family)
		len = unix_name((struct sockaddr_un *)&ss, "d", g.names++);
	else
		len = inet_loopback(&ss);
	int b = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (b < 0 || bind(b, (struct sockaddr *)&ss, len) < 0 ||
	    getsockname(b, (struct sockaddr *)&ss, &len) < 0) {
		close(b);
		return;
	}
	graph_add(b, false, true);
	for (int n = 1 + (int)below(2); n > 0; n--) {
		bool nb = one_in(2);
		int c = socket(ss.ss_family, SOCK_DGRAM | sock_flags(nb), 0);
		struct timeval tv = {0, 1000 * (long)below(50)};
		if (connect(c, (struct sockaddr *)&ss, len) == 0 && one_in(2))
			connect(b, (struct sockaddr *)&ss, len); /* b to itself, now and then */
		if (one_in(2)) /* UDP gathers it: a cork never sent at teardown */
			send(c, "m", 1, MSG_MORE | MSG_DONTWAIT);
		if (one_in(2)) /* helpers' blocking calls may end by time */
			setsockopt(c, SOL_SOCKET, one_in(2) ? SO_RCVTIMEO : SO_SNDTIMEO, &tv,
				   sizeof tv);
		graph_add(c, false, nb);
	}
}

static void graph_build(void)
{
	static void (*const builders[])(void) = {add_pair, add_pair, add_pipe, add_listener,
						 add_dgram_peers};
	g.n = 0;
	for (int n = 2 + (int)below(5); n > 0; n--)
		PICK(builders)();
}

/* --- What a helper does with its copy of the graph: block on something
 * (killed there, or woken by the teardown). --- */

static void helper_block(void)
{
	static char buf[8192];
	int i = graph_pick(), fds[SCM_MAX], flags;
	if (i < 0)
		_exit(0);
	int fd = g.o[i].fd;
	struct pollfd p[3] = {{fd, POLLIN, 0}, {fd, POLLOUT, 0}, {fd, POLLIN | POLLOUT, 0}};
	for (int j = 1; j < 3 && g.n; j++) {
		int k = graph_pick();
		p[j].fd = k < 0 ? fd : g.o[k].fd;
	}
	switch (below(7)) {
	case 0:
		poll(p, 1 + below(3), one_in(4) ? (int)below(5) : -1);
		break;
	case 1:
		read(fd, buf, 1 + below(sizeof buf));
		break;
	case 2:
		while (write(fd, buf, 1 + below(sizeof buf)) > 0) /* until full: blocks */
			;
		break;
	case 3:
		close(accept(fd, NULL, NULL));
		break;
	case 4:
		for (int n = recv_fds(fd, fds, 0, &flags); n > 0;)
			close(fds[--n]);
		break;
	case 5: /* blocked in wait4 on a child that outlives nothing */
		if (fork() == 0) {
			sleep_ms(20);
			_exit(0);
		}
		wait4(-1, NULL, 0, NULL);
		break;
	default: /* dup, dup2 and close of the shared fds, then exit */
		for (int n = 0; n < 4; n++) {
			int j = graph_pick();
			if (j >= 0)
				dup2(fd, g.o[j].fd);
			close(dup(fd));
		}
	}
	_exit(0);
}

/* Fork a helper that first closes some of its copies (so the scenario's
 * close may be the last), then blocks. */
static void spawn_blocker(void)
{
	if (helper() != 0)
		return;
	for (int i = 0; i < g.n; i++)
		if (g.o[i].fd >= 0 && one_in(3))
			close(g.o[i].fd), g.o[i].fd = -1;
	helper_block();
}

/* --- Teardown steps, in the scenario process: none may block. --- */

static void step_close(int i)
{
	close(g.o[i].fd);
	g.o[i].fd = -1;
}

static void disconnect(int fd)
{
	struct sockaddr sa = {.sa_family = AF_UNSPEC};
	connect(fd, &sa, sizeof sa);
}

/* SCM_RIGHTS: fds of the graph (perhaps the socket itself) into a socket. */
static void step_send(int i)
{
	int fds[SCM_MAX], n = (int)below(SCM_MAX + 1);
	for (int k = 0; k < n; k++) {
		int j = one_in(3) ? i : graph_pick();
		fds[k] = j < 0 ? g.o[i].fd : g.o[j].fd;
	}
	send_fds(g.o[i].fd, fds, n, one_in(4));
}

/* Receive a message; keep its fds in the graph or close them. */
static void step_recv(int i)
{
	int fds[SCM_MAX], flags, n = recv_fds(g.o[i].fd, fds, MSG_DONTWAIT, &flags);
	while (n > 0)
		if (one_in(2))
			graph_add(fds[--n], false, false);
		else
			close(fds[--n]);
}

static void step(void)
{
	int i = graph_pick(), j = graph_pick();
	if (i < 0)
		return;
	switch (below(12)) {
	case 0:
	case 1:
		step_close(i);
		break;
	case 2:
		shutdown(g.o[i].fd, (int)below(3));
		break;
	case 3:
		disconnect(g.o[i].fd);
		break;
	case 4:
	case 5:
		step_send(i);
		break;
	case 6:
		step_recv(i);
		break;
	case 7:
		if (g.o[i].listener && g.o[i].nb)
			graph_add(accept4(g.o[i].fd, NULL, NULL, SOCK_NONBLOCK), false, true);
		break;
	case 8:
		if (j >= 0 && j != i &&
		    dup2(g.o[i].fd, g.o[j].fd) >= 0) { /* j's old file: one ref less */
			g.o[j].listener = g.o[i].listener;
			g.o[j].nb = g.o[i].nb;
		}
		break;
	case 9:
		spawn_blocker();
		break;
	case 10:
		if (helpers.n)
			kill_helper((int)below(helpers.n));
		break;
	default:
		settle();
	}
}

/* The general case: a random graph, shared with blockers, torn down step by
 * step; what is left goes in a random order, or with the process's exit. */
static void scenario_graph(void)
{
	int order[GRAPH_MAX];
	graph_build();
	for (int n = (int)below(4); n > 0; n--)
		spawn_blocker();
	for (int n = (int)below(GRAPH_OPS); n > 0; n--)
		step();
	if (one_in(4))
		return; /* exit closes the rest, helpers killed after */
	for (int i = 0; i < g.n; i++)
		order[i] = i;
	shuffle(order, g.n);
	for (int i = 0; i < g.n; i++) {
		if (g.o[order[i]].fd >= 0)
			step_close(order[i]);
		if (one_in(4) && helpers.n)
			kill_helper((int)below(helpers.n));
	}
}

/* --- SCM_RIGHTS reference cycles: only garbage collection frees them. --- */

/* A socket pair, one end sent over itself (into the other's queue) and the
 * other end into its own queue. */
static void cycle_self(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, one_in(2) ? SOCK_STREAM : SOCK_DGRAM, 0, sv) < 0)
		return;
	send_fds(sv[0], &sv[0], 1, false);
	if (one_in(2))
		send_fds(sv[0], &sv[1], 1, false); /* sv[1] in sv[1]'s own queue */
	shuffle(sv, 2);
	close(sv[0]), close(sv[1]);
}

/* A listener sent into its own unaccepted connection. */
static void cycle_listener(void)
{
	struct sockaddr_un u;
	socklen_t len = unix_name(&u, "c", g.names++);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0), fds[2];
	if (bind(l, (struct sockaddr *)&u, len) == 0 && listen(l, 4) == 0 &&
	    connect(c, (struct sockaddr *)&u, len) == 0)
		send_fds(c, &l, 1, false);
	unlink(u.sun_path);
	fds[0] = l, fds[1] = c;
	shuffle(fds, 2);
	close(fds[0]), close(fds[1]);
}

/* Two pairs, each sent into the other. */
static void cycle_mutual(void)
{
	int a[2], b[2], fds[4];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) < 0)
		return;
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, b) < 0) {
		close(a[0]), close(a[1]);
		return;
	}
	send_fds(a[0], &b[0], 1, false);
	send_fds(b[0], &a[0], 1, false);
	memcpy(fds, a, sizeof a), memcpy(fds + 2, b, sizeof b);
	shuffle(fds, 4);
	for (int i = 0; i < 4; i++)
		close(fds[i]);
}

static void scenario_cycle(void)
{
	static void (*const cycles[])(void) = {cycle_self, cycle_listener, cycle_mutual};
	for (int n = 0; n < CYCLE_REPS; n++)
		PICK(cycles)();
}

/* --- A poller on a datagram peer that goes away under it. --- */

/* A is connected to B; helpers holding only A block in poll on it (for
 * POLLOUT with B's queue full, which waits on B's queue too); B is
 * disconnected and closed, then the pollers are woken or killed. */
static void scenario_peer_poll(void)
{
	struct sockaddr_un u;
	socklen_t len = unix_name(&u, "p", g.names++);
	int a = socket(AF_UNIX, SOCK_DGRAM, 0), b = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (bind(b, (struct sockaddr *)&u, len) < 0 || connect(a, (struct sockaddr *)&u, len) < 0)
		goto out;
	unlink(u.sun_path);
	bool full = one_in(2); /* B's queue full: A is not writable, POLLOUT waits */
	while (full && send(a, "x", 1, MSG_DONTWAIT) == 1)
		;
	for (int n = 1 + (int)below(2); n > 0; n--)
		if (helper() == 0) {
			struct pollfd p = {a, full ? POLLOUT : POLLIN, 0};
			close(b);
			poll(&p, 1, -1);
			_exit(0);
		}
	settle();
	if (one_in(2))
		disconnect(a);
	close(b), b = -1;
	settle();
	if (one_in(2))
		disconnect(a);
	if (one_in(2))
		shutdown(a, SHUT_RDWR); /* wakes the pollers */
	settle();
out:
	close(a);
	close(b);
	unlink(u.sun_path);
}

/* --- Empty datagrams, with and without fds: each must cost buffer. --- */

static void scenario_dgram_queue(void)
{
	int sv[2], n, fds[SCM_MAX], nfds = one_in(2) ? 0 : 1 + (int)below(SCM_MAX);
	int null = open("/dev/null", O_RDONLY); /* what the messages pin: no cycles here */
	int small = 1; /* clamped to the least buffer: bytes or messages, whichever charges */
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) < 0)
		return;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small,
		   sizeof small); /* Linux charges the sender */
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	for (int i = 0; i < nfds; i++)
		fds[i] = null;
	for (n = 0; n < DGRAM_CAP; n++)
		if (send_fds(sv[0], fds, nfds, true) < 0)
			break;
	if (n == DGRAM_CAP)
		finding(F_DGRAM_UNBOUNDED);
	shuffle(sv, 2);
	close(sv[0]), close(null), close(sv[1]);
}

#endif
