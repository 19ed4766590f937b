/* Multishot requests in numbers and under races, on Debian's liburing.
 * 64 multishot ACCEPTs and 64 multishot POLL_ADDs wait with no task made
 * for them (fdkernel arms them on their files, as Linux: /proc/kstat's
 * task count; on Linux the results only) and each posts a CQE with
 * IORING_CQE_F_MORE per event; a full CQ ring ends a multishot ACCEPT
 * with a last CQE (the connection that found it full, no F_MORE), as
 * Linux; multishot polls reached on a worker (IOSQE_ASYNC, a link) are
 * armed the same; another thread's ASYNC_CANCEL racing connections loses none (the
 * ones accepted and those left in the backlog add up); a ring closed, and
 * a process ending, with 128 multishot requests armed leave nothing. */
#define _GNU_SOURCE
#include <liburing.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "robust.h"
#include "testutil.h"
#include "uring_child.h"
#include "uring_run1.h"

#define N	   64
#define RACES	   40
#define RACE_CONNS 4

static int lfd[N], pipes[N][2];
static struct sockaddr_in addr[N];

static bool more(const struct io_uring_cqe *c)
{
	return (c->flags & IORING_CQE_F_MORE) != 0;
}

static int listener(int i)
{
	socklen_t len = sizeof(addr[i]);

	addr[i] =
	    (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	lfd[i] = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd[i] < 0 || bind(lfd[i], (struct sockaddr *)&addr[i], sizeof(addr[i])) ||
	    listen(lfd[i], 16) || getsockname(lfd[i], (struct sockaddr *)&addr[i], &len))
		return -1;
	return 0;
}

static int dial(int i)
{
	int c = socket(AF_INET, SOCK_STREAM, 0);

	if (c >= 0 && connect(c, (const struct sockaddr *)&addr[i], sizeof(addr[i]))) {
		close(c);
		return -1;
	}
	return c;
}

/* A connection waiting on listener fd, accepted: its socket, or -1 if
 * none waits. */
static int accept_now(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 ? accept(fd, NULL, NULL) : -1;
}

/* A multishot ACCEPT of each listener (user_data i) and a multishot poll
 * of each pipe (user_data N + i) on c. */
static int arm_all(struct io_uring *c, int unused)
{
	(void)unused;
	for (int i = 0; i < N; i++) {
		struct io_uring_sqe *s = io_uring_get_sqe(c);

		io_uring_prep_multishot_accept(s, lfd[i], NULL, NULL, SOCK_CLOEXEC);
		io_uring_sqe_set_data64(s, (uint64_t)i);
		io_uring_prep_poll_multishot(s = io_uring_get_sqe(c), pipes[i][0], POLLIN);
		io_uring_sqe_set_data64(s, (uint64_t)(N + i));
	}
	return 2 * N;
}

/* Each listener gets a connection and each pipe a byte, twice: every
 * request posts a CQE with F_MORE per event, and stays. */
static void check_many(void)
{
	struct io_uring r;
	struct io_uring_cqe c, *cp;
	struct kstat before, armed;
	int cl[N], good = 0, bad = 0;
	bool have;

	require(!io_uring_queue_init(4 * N, &r, 0), "a ring");
	have = kstat_read(&before);
	arm_all(&r, 0);
	is_int(io_uring_submit(&r), 2 * N, "64 multishot ACCEPTs and 64 multishot polls submitted");
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "they wait");
	if (have && kstat_read(&armed))
		is_int(armed.v[KS_TASKS], before.v[KS_TASKS], "and no task waits for them");
	else
		skip("no " KSTAT_PATH, "and no task waits for them");
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < N; i++) {
			cl[i] = dial(i);
			bad += write(pipes[i][1], "x", 1) != 1;
		}
		for (int k = 0; k < 2 * N && !next_cqe(&r, &c); k++) {
			bool acc = c.user_data < N;

			if (more(&c) && c.res >= 0 && (acc ? c.res > 2 : (c.res & POLLIN)))
				good++;
			if (acc)
				close(c.res);
		}
		for (int i = 0; i < N; i++) {
			char b;
			bad += cl[i] < 0 || read(pipes[i][0], &b, 1) != 1;
			close(cl[i]);
		}
	}
	is_int(bad, 0, "128 connections made, 128 bytes written and read");
	is_int(good, 4 * N, "each ACCEPT posted two sockets, each poll two POLLINs, all F_MORE");
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "no other CQE: they still wait");
	if (have && kstat_read(&armed))
		is_int(armed.v[KS_TASKS], before.v[KS_TASKS], "and still no task waits for them");
	else
		skip("no " KSTAT_PATH, "and still no task waits for them");
	io_uring_queue_exit(&r);
}

/* A CQ ring of 8 and a multishot ACCEPT, 10 connections unreaped: 8
 * CQEs with F_MORE, then the 9th connection's without (Linux ends a
 * multishot request whose CQE finds the CQ ring full); the 10th is
 * left to accept. */
static void check_cq_full(void)
{
	struct io_uring r;
	struct io_uring_cqe c, *cp;
	struct io_uring_params p = {.flags = IORING_SETUP_CQSIZE, .cq_entries = 8};
	int cl[10], nmore = 0, last = -1, n = 0, fd;

	require(!io_uring_queue_init_params(4, &r, &p), "a ring with 8 CQEs");
	io_uring_prep_multishot_accept(io_uring_get_sqe(&r), lfd[0], NULL, NULL, 0);
	io_uring_submit(&r);
	for (int i = 0; i < 10; i++)
		cl[i] = dial(0);
	while (n < 9 && !next_cqe(&r, &c)) {
		n++;
		if (more(&c) && c.res >= 0)
			nmore++;
		else
			last = c.res;
		if (c.res >= 0)
			close(c.res);
		if (!more(&c))
			break;
	}
	is_int(nmore, 8, "a full CQ ring: 8 connections with F_MORE");
	ok(n == 9 && last >= 0, "then the 9th connection's CQE, no F_MORE: the end (%d)", last);
	ok(io_uring_peek_cqe(&r, &cp) == -EAGAIN, "no other CQE");
	fd = accept_now(lfd[0]);
	ok(fd >= 0, "the 10th connection is left in the listener's backlog");
	close(fd);
	for (int i = 0; i < 10; i++)
		close(cl[i]);
	io_uring_queue_exit(&r);
}

/* Multishot polls reached on a worker (IOSQE_ASYNC; linked after an
 * IOSQE_ASYNC NOP): armed all the same, one CQE with F_MORE per event,
 * ended by ASYNC_CANCEL. */
static void check_async(void)
{
	struct io_uring r;
	struct io_uring_sqe *s;
	struct io_uring_cqe c;
	int got[3] = {0}, ends = 0, bad = 0;
	char b;

	require(!io_uring_queue_init(16, &r, 0), "a ring");
	io_uring_prep_nop(s = io_uring_get_sqe(&r));
	io_uring_sqe_set_data64(s, 0);
	io_uring_sqe_set_flags(s, IOSQE_ASYNC | IOSQE_IO_LINK);
	io_uring_prep_poll_multishot(s = io_uring_get_sqe(&r), pipes[0][0], POLLIN);
	io_uring_sqe_set_data64(s, 1);
	io_uring_prep_poll_multishot(s = io_uring_get_sqe(&r), pipes[1][0], POLLIN);
	io_uring_sqe_set_data64(s, 2);
	io_uring_sqe_set_flags(s, IOSQE_ASYNC);
	is_int(io_uring_submit(&r), 3,
	       "an ASYNC NOP linked to a multishot poll, an ASYNC multishot poll");
	for (int round = 0; round < 2; round++) {
		bad += write(pipes[0][1], "x", 1) != 1 || write(pipes[1][1], "x", 1) != 1;
		for (int k = 0; k < 2 + !round && !next_cqe(&r, &c); k++)
			if (c.user_data < 3 && (c.user_data ? more(&c) && c.res == POLLIN : !c.res))
				got[c.user_data]++;
		bad += read(pipes[0][0], &b, 1) != 1 || read(pipes[1][0], &b, 1) != 1;
	}
	ok(!bad && got[0] == 1 && got[1] == 2 && got[2] == 2,
	   "the NOP 0, then each poll a POLLIN with F_MORE per write (%d %d %d)", got[0], got[1],
	   got[2]);
	for (int t = 1; t <= 2; t++) {
		io_uring_prep_cancel64(s = io_uring_get_sqe(&r), (uint64_t)t, 0);
		io_uring_sqe_set_data64(s, 9);
	}
	io_uring_submit(&r);
	for (int k = 0; k < 4 && !next_cqe(&r, &c); k++)
		ends += c.user_data == 9 ? !c.res : (c.res == -ECANCELED && !more(&c));
	is_int(ends, 4, "both cancelled: 0, 0, and each ends ECANCELED without F_MORE");
	io_uring_queue_exit(&r);
}

static struct io_uring race_ring;

/* Another thread's cancel of user_data 1, while the main one connects. */
static void *canceller(void *arg)
{
	struct io_uring_sqe *s = io_uring_get_sqe(&race_ring);

	(void)arg;
	io_uring_prep_cancel64(s, 1, 0);
	io_uring_sqe_set_data64(s, 2);
	io_uring_submit(&race_ring);
	return NULL;
}

/* Each round: a multishot ACCEPT, RACE_CONNS connections made while
 * another thread cancels it.  Every socket accepted has its CQE (F_MORE),
 * the end is one CQE -ECANCELED without F_MORE, the cancel 0, and the
 * connections accepted plus those left in the backlog are all made. */
static void check_cancel_race(void)
{
	struct io_uring_cqe c;
	int bad = 0, lost = 0;

	require(!io_uring_queue_init(64, &race_ring, 0), "a ring");
	for (int round = 0; round < RACES; round++) {
		int cl[RACE_CONNS], got = 0, ends = 0, cancel = -9999, fd;
		struct io_uring_sqe *s = io_uring_get_sqe(&race_ring);
		pthread_t t;

		io_uring_prep_multishot_accept(s, lfd[1], NULL, NULL, 0);
		io_uring_sqe_set_data64(s, 1);
		io_uring_submit(&race_ring);
		if (pthread_create(&t, NULL, canceller, NULL)) {
			bad++;
			break;
		}
		for (int i = 0; i < RACE_CONNS; i++)
			cl[i] = dial(1);
		pthread_join(t, NULL);
		while (cancel == -9999 || !ends) {
			if (next_cqe(&race_ring, &c))
				break;
			if (c.user_data == 2)
				cancel = c.res;
			else if (more(&c) && c.res >= 0)
				got++, close(c.res);
			else
				ends += c.res == -ECANCELED ? 1 : 100;
		}
		while ((fd = accept_now(lfd[1])) >= 0)
			got++, close(fd);
		for (int i = 0; i < RACE_CONNS; i++) {
			bad += cl[i] < 0;
			close(cl[i]);
		}
		bad += cancel != 0 || ends != 1;
		lost += got != RACE_CONNS;
	}
	is_int(bad, 0, "%d cancels racing connections: each 0, each end ECANCELED without F_MORE",
	       RACES);
	is_int(lost, 0, "no connection lost: those accepted and those left add up");
	io_uring_queue_exit(&race_ring);
}

int main(void)
{
	struct kstat before;
	bool have;

	plan(20);
	for (int i = 0; i < N; i++)
		require(!listener(i) && !pipe(pipes[i]), "a listener and a pipe");
	check_many();
	check_cq_full();
	check_async();
	check_cancel_race();
	uring_child_n(4 * N, false, arm_all, 0); /* warm-up: slab pages */
	have = kstat_read(&before);
	is_int(uring_child_n(4 * N, true, arm_all, 0), 0,
	       "a ring closed with 128 multishot requests armed");
	kstat_unchanged(&before, have, "and nothing of it is left");
	have = kstat_read(&before);
	is_int(uring_child_n(4 * N, false, arm_all, 0), 0,
	       "an exit with 128 multishot requests armed");
	kstat_unchanged(&before, have, "and nothing of it is left");
	return done();
}
