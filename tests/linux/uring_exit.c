/* io_uring requests outliving the thread or process that submitted them,
 * as Linux's: a thread's exit cancels only its requests on an io_uring
 * file (a poll of the ring itself, and the rest of its chain); its other
 * armed requests (polls, a multishot poll, a READ of a pipe) stay, and
 * the one woken after its submitter is gone completes with ECANCELED
 * (there is no one to run it); a TIMEOUT goes off (ETIME).  The same for
 * a forked child sharing the ring.  Teardown in hostile orders: a thread exits with requests
 * armed, then the ring is closed, or the process exits with them, or
 * they wake after the thread is gone; a child of a child arms them on a
 * shared ring; afterwards nothing is left (/proc/kstat). */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>

#include "robust.h"
#include "testutil.h"
#include "uring_raw.h"

static struct uring r;
static int pa[2], pb[2];
static char rbuf[8];

static void poll_add(struct uring *u, int fd, uint64_t data, uint32_t flags)
{
	struct io_uring_sqe *s = uring_prep(u, IORING_OP_POLL_ADD, fd, 0, flags, 0, data);

	s->poll32_events = POLLIN;
}

/* A poll of pipe a (1), a multishot poll of pipe b (2), a READ of pipe
 * b (3) and a NOP (4), submitted. */
static void *arm_pipes(void *arg)
{
	(void)arg;
	poll_add(&r, pa[0], 1, 0);
	poll_add(&r, pb[0], 2, IORING_POLL_ADD_MULTI);
	uring_prep(&r, IORING_OP_READ, pb[0], (uint64_t)rbuf, sizeof(rbuf), UINT64_MAX, 3);
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 4);
	return (void *)uring_submit_wait(&r, 0);
}

/* A poll of the ring's own fd (5) linked to a NOP (6), submitted. */
static void *arm_ring(void *arg)
{
	(void)arg;
	poll_add(&r, r.fd, 5, 0);
	r.sqes[(r.sq_local - 1) & *r.sq_mask].flags |= IOSQE_IO_LINK;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 6);
	return (void *)uring_submit_wait(&r, 0);
}

/* A READ of an empty pipe forced to a worker (7): the worker finds it
 * would wait and hands it back to be armed, perhaps after the thread
 * has exited without arming it. */
static void *async_read(void *arg)
{
	(void)arg;
	uring_prep(&r, IORING_OP_READ, pa[0], (uint64_t)rbuf, 1, UINT64_MAX, 7)->flags |=
	    IOSQE_ASYNC;
	return (void *)uring_submit_wait(&r, 0);
}

static long in_thread(void *(*fn)(void *))
{
	pthread_t t;
	void *ret;

	pthread_create(&t, NULL, fn, NULL);
	pthread_join(t, &ret);
	return (long)ret;
}

/* The CQEs ready now (no wait), res by user_data < 8 (else -9999): how many. */
static int peek_all(int32_t *res)
{
	struct io_uring_cqe c;
	int n = 0;

	for (int i = 0; i < 8; i++)
		res[i] = -9999;
	for (; uring_peek(&r, &c); n++)
		if (c.user_data < 8)
			res[c.user_data] = c.flags & IORING_CQE_F_MORE ? -8888 : c.res;
	return n;
}

static void check_thread(void)
{
	int32_t res[8];
	struct io_uring_cqe c;

	is_int((int)in_thread(arm_pipes), 4, "a thread submits 2 polls, a multishot poll, a READ");
	is_int(peek_all(res), 1, "it exited: only its NOP has completed");
	is_int(res[4], 0, "the NOP");
	is_int((int)in_thread(arm_ring), 2, "a thread polls the ring's own fd, linked to a NOP");
	is_int(peek_all(res), 2, "it exited: both have completed");
	ok(res[5] == -ECANCELED && res[6] == -ECANCELED,
	   "ECANCELED: its exit cancels a request on an io_uring file, and its link");
	write(pa[1], "x", 1);
	write(pb[1], "y", 1);
	for (int i = 0; i < 8; i++)
		res[i] = -9999;
	for (int i = 0; i < 3 && !uring_wait(&r, &c); i++)
		if (c.user_data < 8)
			res[c.user_data] = c.flags & IORING_CQE_F_MORE ? -8888 : c.res;
	ok(res[1] == -ECANCELED && res[2] == -ECANCELED && res[3] == -ECANCELED,
	   "woken once their thread is gone, the polls and the READ end ECANCELED (%d %d %d)",
	   res[1], res[2], res[3]);
	read(pa[0], rbuf, 1);
	read(pb[0], rbuf, 1);
}

/* The READ above, its thread gone at once, then a byte written: it ends
 * ECANCELED (no one to run it), EINTR (its worker ended with the thread)
 * or with the byte, never a kernel fault (the fallback arming a request
 * that was never armed looked its fd up in no files table). */
static void check_handoff(void)
{
	struct io_uring_cqe c;
	int bad = 0;

	for (int i = 0; i < 20; i++) {
		bool got = false;

		in_thread(async_read);
		write(pa[1], "x", 1);
		while (!got && !uring_wait(&r, &c))
			got = c.user_data == 7;
		if (!got || (c.res != -ECANCELED && c.res != -EINTR && c.res != 1))
			bad++;
		if (got && c.res != 1)
			read(pa[0], rbuf, 1);
	}
	is_int(bad, 0, "20 READs handed back after their thread exited: ECANCELED, EINTR or 1");
}

static void check_child(void)
{
	struct {
		int64_t sec, nsec;
	} ts = {0, 20000000};
	int32_t res[8];
	struct io_uring_cqe c;
	pid_t pid = fork();

	if (pid == 0) {
		poll_add(&r, pa[0], 7, 0);
		uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)&ts, 1, 0, 2);
		_exit(uring_submit_wait(&r, 0) == 2 ? 0 : 1);
	}
	ok(waitpid(pid, NULL, 0) == pid,
	   "a child polls a pipe on the ring it shares, starts a 20 ms TIMEOUT, exits");
	peek_all(res); /* its TIMEOUT may have gone off already */
	is_int(res[7], -9999, "its poll did not complete at its exit");
	write(pa[1], "x", 1);
	while ((res[7] == -9999 || res[2] == -9999) && !uring_wait(&r, &c))
		if (c.user_data < 8)
			res[c.user_data] = c.res;
	is_int(res[7], -ECANCELED, "its poll, woken, ends ECANCELED");
	is_int(res[2], -ETIME, "its TIMEOUT goes off: ETIME");
	read(pa[0], rbuf, 1);
}

enum order { CLOSE_AFTER, EXIT_WITH, WOKEN_AFTER, GRANDCHILD };

/* A child with its own ring: a thread arms requests and exits, then the
 * child ends in the order given. */
static void child(enum order how)
{
	if (uring_init(&r, 8, 0) || pipe(pa) || pipe(pb))
		_exit(2);
	if (how == GRANDCHILD) {
		if (fork() == 0) {
			in_thread(arm_pipes);
			_exit(0);
		}
		wait(NULL);
	} else if (in_thread(arm_pipes) != 4) {
		_exit(3);
	}
	if (how == WOKEN_AFTER) {
		struct io_uring_cqe c;
		write(pa[1], "x", 1);
		write(pb[1], "y", 1);
		for (int i = 0; i < 4; i++) /* the NOP and three ECANCELED */
			if (uring_wait(&r, &c))
				_exit(4);
	}
	if (how == CLOSE_AFTER || how == GRANDCHILD)
		uring_exit(&r);
	_exit(0);
}

static enum order order; /* the child's, set before child_status */

static void child_main(void)
{
	child(order);
}

int main(void)
{
	static const char *what[] = {
	    "a thread exits with requests armed, then the ring is closed",
	    "a thread exits with requests armed, then its process",
	    "they wake after the thread is gone, then the process exits",
	    "a grandchild's thread arms them on the shared ring, then the ring is closed"};
	struct kstat before;
	bool have;

	plan(20);
	if (uring_init(&r, 8, 0) || pipe(pa) || pipe(pb))
		require(false, "ring and pipes");
	check_thread();
	check_handoff();
	check_child();
	uring_exit(&r);
	order = CLOSE_AFTER;
	child_status(child_main); /* warm-up: slab pages */
	for (order = CLOSE_AFTER; order <= GRANDCHILD; order++) {
		have = kstat_read(&before);
		ok(exited_with(child_status(child_main), 0), "%s", what[order]);
		kstat_unchanged(&before, have, "and nothing of it is left");
	}
	return done();
}
