/*
 * poll() on a socket whose peer goes away while the poll sleeps: another
 * process disconnects (connect to AF_UNSPEC) or closes the peer, over and
 * over.  The kernel must neither touch the freed peer (a poller queued on
 * its wait queue) nor lose the wake-up: the poll reports what Linux does.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>

#include "sock_util.h"
#include "thread.h"

#define ROUNDS	    40
#define SPIN_ROUNDS 200

/* A child polls fd for events (timeout ms) once the parent may act; it exits
 * 0 if the revents it got include one of want (or none was wanted and the
 * poll timed out).  It closes its copy of other (the parent's to close; -1:
 * none).  Returns its pid once the child is about to poll. */
static pid_t poller(int fd, int other, short events, int timeout, short want)
{
	int sync[2];
	char c = 'p';
	pid_t pid;

	require(pipe(sync) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct pollfd p = {.fd = fd, .events = events};
		if (other >= 0)
			close(other);
		close(sync[0]);
		write(sync[1], &c, 1);
		close(sync[1]);
		int n = poll(&p, 1, timeout);
		_exit(want ? !(n == 1 && (p.revents & want)) : n != 0);
	}
	require(pid > 0, "fork");
	close(sync[1]);
	read(sync[0], &c, 1);
	close(sync[0]);
	sleep_ms(2); /* let it get into poll's sleep */
	return pid;
}

/* A datagram socket connected to a bound one whose fd is closed: the
 * connection holds the only reference to the peer.  -1 on failure. */
static int dgram_to_orphan(struct saddr *a, int *peer_fd)
{
	int b = sock_server(AF_UNIX, SOCK_DGRAM, "pp", a);
	int s = b < 0 ? -1 : sock_client(AF_UNIX, SOCK_DGRAM, a);

	if (peer_fd)
		*peer_fd = b;
	else if (b >= 0)
		close(b);
	return s;
}

static void disconnect(int fd)
{
	struct sockaddr sa = {.sa_family = AF_UNSPEC};

	connect(fd, &sa, sizeof(sa));
}

static char chunk[512];

/* Sends datagrams (or stream data) until the receiver is full, not even
 * room for an empty datagram left: how many went.  An empty send on a
 * stream sends nothing and succeeds, full or not: datagrams only (on a
 * stream it once made 100,000 calls per fill). */
static int fill(int fd)
{
	int n = 0, type = 0;
	socklen_t len = sizeof(type);

	while (send(fd, chunk, sizeof(chunk), MSG_DONTWAIT) > 0 && n < 100000)
		n++;
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
	while (type == SOCK_DGRAM && send(fd, chunk, 0, MSG_DONTWAIT) == 0 && n < 100000)
		n++;
	return n;
}

/* The only reference to the peer goes with the disconnect, under the poll. */
static void test_dgram_disconnect(void)
{
	int good = 0;
	struct saddr a;

	for (int i = 0; i < ROUNDS; i++) {
		int s = dgram_to_orphan(&a, NULL);
		require(s >= 0, "dgram socket connected to an orphan");
		saddr_drop(&a);
		pid_t pid = poller(s, -1, POLLIN, 20, 0);
		disconnect(s);
		good += child_ok(pid);
		close(s);
	}
	is_int(good, ROUNDS, "dgram: peer freed by a disconnect while polled: poll times out");
}

/* A writer polling for room in a full peer: each way the peer goes, or the
 * peer's reader making room, ends the poll with POLLOUT. */
static void test_dgram_room(void)
{
	int good_disc = 0, good_close = 0, good_read = 0, b, full = 0;
	struct saddr a;
	char byte;

	for (int i = 0; i < ROUNDS / 4; i++) {
		int s = dgram_to_orphan(&a, &b);
		require(s >= 0, "dgram socket connected");
		saddr_drop(&a);
		full += fill(s) > 0;

		pid_t pid = poller(s, b, POLLOUT, 5000, POLLOUT);
		recv(b, &byte, 1, 0);
		good_read += child_ok(pid);

		fill(s);
		pid = poller(s, b, POLLOUT, 5000, POLLOUT);
		close(b);
		good_close += child_ok(pid);

		fill(s);
		pid = poller(s, b, POLLOUT, 5000, POLLOUT);
		disconnect(s);
		good_disc += child_ok(pid);
		close(s);
	}
	is_int(full, ROUNDS / 4, "dgram: datagrams fill a receiver");
	is_int(good_read, ROUNDS / 4, "dgram: the peer's reader makes room: POLLOUT");
	is_int(good_close, ROUNDS / 4, "dgram: the full peer closes: POLLOUT");
	is_int(good_disc, ROUNDS / 4, "dgram: a disconnect from the full peer: POLLOUT");

	/* Not polled, only checked: nothing is queued anywhere any more. */
	int s = dgram_to_orphan(&a, &b);
	saddr_drop(&a);
	fill(s);
	struct pollfd p = {.fd = s, .events = POLLOUT};
	is_int(poll(&p, 1, 0), 0, "dgram: a full peer: no POLLOUT");
	close(b);
	close(s);
}

/* Stream: the peer closes while its partner is polled, for data or room. */
static void test_stream_close(void)
{
	int good_in = 0, good_out = 0, sv[2];

	for (int i = 0; i < ROUNDS; i++) {
		require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
		bool out = i % 2;
		if (out)
			fill(sv[0]);
		pid_t pid = poller(sv[0], sv[1], out ? POLLOUT : POLLIN, 5000, POLLHUP);
		close(sv[1]);
		if (out)
			good_out += child_ok(pid);
		else
			good_in += child_ok(pid);
		close(sv[0]);
	}
	is_int(good_in, ROUNDS / 2, "stream: the peer closes under a poll for POLLIN: POLLHUP");
	is_int(good_out, ROUNDS / 2, "stream: the peer closes under a poll for POLLOUT: POLLHUP");
}

/* A thread polls a full stream socket without sleeping until it sees room
 * or a hang-up; room seen without POLLHUP (the peer's close half done)
 * counts in bad.  Raw calls only (thread.h). */
static volatile int spin_fd, spin_bad;

static int spin_poller(void *arg)
{
	struct pollfd p = {.fd = spin_fd, .events = POLLOUT};

	(void)arg;
	for (;;) {
		p.revents = 0;
		if (thread_sys(__NR_poll, &p, 1, 0) != 1)
			continue;
		if ((p.revents & POLLOUT) && !(p.revents & POLLHUP))
			__atomic_add_fetch(&spin_bad, 1, __ATOMIC_RELAXED);
		return 0;
	}
}

/* The peer of a full socket closes while another thread (on another CPU,
 * tasks on every CPU) polls it: the room its close makes must come with POLLHUP,
 * as Linux sets the peer's shutdown before it frees the send room. */
static void test_stream_close_spinning(void)
{
	int sv[2], rounds = 0;

	spin_bad = 0;
	for (int i = 0; i < SPIN_ROUNDS; i++) {
		struct thread t;
		require(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
		fill(sv[0]);
		spin_fd = sv[0];
		if (thread_start(&t, spin_poller, NULL) <= 0)
			break;
		for (volatile int d = 0; d < i * 50; d++) /* vary where the close lands */
			;
		close(sv[1]);
		thread_join(&t);
		close(sv[0]);
		rounds++;
	}
	is_int(rounds, SPIN_ROUNDS, "stream: %d rounds of a close under a spinning poll",
	       SPIN_ROUNDS);
	is_int(spin_bad, 0, "stream: the close's room always came with POLLHUP");
}

int main(void)
{
	plan(1 + 5 + 2 + 2);
	test_dgram_disconnect();
	test_dgram_room();
	test_stream_close();
	test_stream_close_spinning();
	return done();
}
