/* Two threads, each waiting on one io_uring ring while it retries a
 * woken request of the other (docs/async.md, "Woken requests"): thread
 * 0 submits on ring B a POLL_ADD of a pipe linked to a FILES_UPDATE of
 * B's registered files and waits on ring A; thread 1 the same on A,
 * waiting on B.  With both asleep, both pipes are written: each thread
 * retries its poll, and so runs its update, inside its wait on the other
 * ring, at the same time as the other thread does the reverse.  Every
 * round ends (a kernel that held the waited ring's lock across a retry
 * that takes the other's could deadlock here), each poll POLLIN and each
 * update 1, and the slots hold what the last updates put there. */
#define _GNU_SOURCE
#include "uring_raw.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>

#include "tap.h"
#include "testutil.h"
#include "threads.h"

#define ROUNDS 200

struct side {
	struct uring *submit_on, *wait_on;
	int pipe[2];	/* its POLL_ADD's */
	int data[2];	/* what its last update installs in slot 0 */
	int32_t fds[1]; /* the update's array, read when the update runs */
	pid_t tid;
	int submitted; /* atomic: the round whose chain is submitted */
	int bad;       /* rounds with a wrong CQE, or a failed call */
	char what[96];
};

static struct uring ring[2];
static struct side side[2];
static pthread_barrier_t round_start, round_end;

/* One round: the chain on its ring (slot 0 emptied in even rounds, the
 * data pipe installed in odd ones), then the other thread's two CQEs
 * from the ring it waits on.  False, with what went wrong, on error. */
static bool side_round(struct side *s, int k)
{
	struct io_uring_cqe c[2];
	struct io_uring_sqe *sqe;

	s->fds[0] = k & 1 ? s->data[0] : -1;
	sqe = uring_prep(s->submit_on, IORING_OP_POLL_ADD, s->pipe[0], 0, 0, 0, 1);
	sqe->poll32_events = POLLIN;
	sqe->flags = IOSQE_IO_LINK;
	uring_prep(s->submit_on, IORING_OP_FILES_UPDATE, -1, (uint64_t)s->fds, 1, 0, 2);
	if (uring_submit_wait(s->submit_on, 0) != 2) {
		snprintf(s->what, sizeof(s->what), "round %d: the chain not submitted", k);
		return false;
	}
	__atomic_store_n(&s->submitted, k + 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		if (uring_wait(s->wait_on, &c[i])) {
			snprintf(s->what, sizeof(s->what), "round %d: the wait failed", k);
			return false;
		}
	if (c[0].user_data != 1 || !(c[0].res & POLLIN) || c[1].user_data != 2 || c[1].res != 1) {
		snprintf(s->what, sizeof(s->what),
			 "round %d: CQEs %llu:%d %llu:%d, not 1:POLLIN 2:1", k,
			 (unsigned long long)c[0].user_data, c[0].res,
			 (unsigned long long)c[1].user_data, c[1].res);
		return false;
	}
	return true;
}

static void *side_thread(void *arg)
{
	struct side *s = arg;

	s->tid = gettid();
	for (int k = 0; k < ROUNDS; k++) {
		pthread_barrier_wait(&round_start);
		if (!s->bad && !side_round(s, k))
			s->bad = 1;
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

/* Once both threads sleep with their chains in (or one failed), both
 * pipes written; after the round, drained. */
static void main_round(int k)
{
	char c;

	pthread_barrier_wait(&round_start);
	for (int i = 0; i < 2; i++)
		while (!side[i].bad &&
		       (__atomic_load_n(&side[i].submitted, __ATOMIC_ACQUIRE) != k + 1 ||
			!thread_sleeping(side[i].tid)))
			sleep_ms(1);
	for (int i = 0; i < 2; i++)
		require(write(side[i].pipe[1], "p", 1) == 1, "a pipe written");
	pthread_barrier_wait(&round_end);
	for (int i = 0; i < 2; i++)
		require(read(side[i].pipe[0], &c, 1) == 1, "a pipe drained");
}

/* Slot 0 of ring i, read through a READ with IOSQE_FIXED_FILE: the last
 * update's pipe, which holds its letter. */
static void check_slot(int i)
{
	char buf[4] = {0}, want = i ? 'A' : 'B';
	struct io_uring_sqe *sqe;
	struct side *s = &side[i];

	require(write(s->data[1], &want, 1) == 1, "a data pipe written");
	sqe = uring_prep(s->submit_on, IORING_OP_READ, 0, (uint64_t)buf, sizeof(buf), 0, 3);
	sqe->flags = IOSQE_FIXED_FILE;
	is_int(uring_run1(s->submit_on), 1, "ring %c's slot 0 after %d updates: a READ of 1 byte",
	       want, ROUNDS);
	ok(buf[0] == want, "ring %c's slot 0 holds the pipe its last update put ('%c')", want,
	   buf[0]);
}

int main(void)
{
	int32_t none[2] = {-1, -1};
	pthread_t t[2];

	plan(2 + 2 * 2);
	for (int i = 0; i < 2; i++) {
		require(!uring_init(&ring[i], 8, 0), "a ring");
		require(!uring_register_raw(ring[i].fd, IORING_REGISTER_FILES, none, 2),
			"two empty registered-file slots");
	}
	pthread_barrier_init(&round_start, NULL, 3);
	pthread_barrier_init(&round_end, NULL, 3);
	for (int i = 0; i < 2; i++) {
		side[i].submit_on = &ring[!i]; /* thread 0 on B (ring 1) */
		side[i].wait_on = &ring[i];
		require(!pipe(side[i].pipe) && !pipe(side[i].data), "pipes");
		require(!pthread_create(&t[i], NULL, side_thread, &side[i]), "a thread");
	}
	for (int k = 0; k < ROUNDS; k++)
		main_round(k);
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		ok(!side[i].bad,
		   "thread %d: %d rounds of a poll of ring %c linked to its update, retried while "
		   "waiting on ring %c: POLLIN and 1 each%s%s",
		   i, ROUNDS, i ? 'A' : 'B', i ? 'B' : 'A', side[i].bad ? ": " : "", side[i].what);
	}
	for (int i = 0; i < 2; i++)
		check_slot(i);
	for (int i = 0; i < 2; i++)
		uring_exit(&ring[i]);
	return done();
}
