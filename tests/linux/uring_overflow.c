/* io_uring with more requests in flight than its CQ ring holds
 * (IORING_FEAT_NODROP): submissions are never refused for it, CQEs
 * without room wait in the kernel (IORING_SQ_CQ_OVERFLOW in the SQ
 * ring's flags) and reach the CQ ring as io_uring_enter's GETEVENTS
 * finds room, none lost (the overflow word stays 0); and a process
 * that exits with such CQEs and polls waiting leaves nothing behind. */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/wait.h>

#include "robust.h"
#include "testutil.h"
#include "uring_raw.h"

#define NPOLL 64 /* POLL_ADDs on a ring of 4 SQEs and 8 CQEs */
#define NNOP  1000

/* n POLL_ADDs (POLLIN) of fd, user_data base.., submitted by the SQ's 4:
 * how many io_uring_enter took (n unless one refused). */
static long submit_polls(struct uring *r, int fd, int n, int base)
{
	long got = 0, ret;

	for (int i = 0; i < n; i++) {
		struct io_uring_sqe *s =
		    uring_prep(r, IORING_OP_POLL_ADD, fd, 0, 0, 0, (uint64_t)(base + i));
		s->poll32_events = POLLIN;
		if (r->sq_local - *r->sq_head == r->p.sq_entries || i == n - 1) {
			if ((ret = uring_submit_wait(r, 0)) < 0)
				return ret;
			got += ret;
		}
	}
	return got;
}

static uint32_t cq_ready(struct uring *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *r->cq_head;
}

static bool overflowed(struct uring *r)
{
	return __atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_CQ_OVERFLOW;
}

/* Reaps n CQEs, io_uring_enter(GETEVENTS) whenever the CQ ring is empty:
 * each user_data below n seen once with res want (NOPs: 0).  0, or -1. */
static int reap(struct uring *r, int n, int32_t want)
{
	static char seen[NNOP];
	struct io_uring_cqe c;
	int bad = 0;

	memset(seen, 0, sizeof(seen));
	for (int i = 0; i < n; i++) {
		if (uring_wait(r, &c))
			return -1;
		if (c.user_data >= (uint64_t)n || seen[c.user_data]++ || c.res != want)
			bad++;
	}
	return bad ? -1 : 0;
}

static void check_polls(void)
{
	struct uring r;
	struct io_uring_cqe c;
	int p[2], n = 0;

	if (uring_init(&r, 4, 0) || pipe(p))
		require(false, "ring and pipe");
	is_int((int)r.p.cq_entries, 8, "a ring of 4 SQEs has 8 CQEs");
	ok(r.p.features & IORING_FEAT_NODROP, "IORING_FEAT_NODROP");
	is_int((int)submit_polls(&r, p[0], NPOLL, 0), NPOLL,
	       "64 POLL_ADDs in flight on a CQ of 8: all submitted (no EBUSY)");
	ok(cq_ready(&r) == 0 && !overflowed(&r), "none done yet, no overflow");
	write(p[1], "x", 1); /* every poll completes: 8 CQEs fit, 56 wait */
	is_int((int)uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "GETEVENTS returns");
	is_int((int)cq_ready(&r), 8, "the CQ ring is full: 8");
	ok(overflowed(&r), "IORING_SQ_CQ_OVERFLOW is set");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, NPOLL);
	is_int((int)uring_submit_wait(&r, 0), 1, "a NOP is submitted with CQEs overflowed");
	while (uring_peek(&r, &c)) /* without entering: nothing flushed */
		n++;
	is_int(n, 8, "8 reaped without entering the kernel");
	ok(overflowed(&r), "IORING_SQ_CQ_OVERFLOW stays set until the kernel flushes");
	is_int((int)uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "GETEVENTS with the CQ ring consumed");
	is_int((int)cq_ready(&r), 8, "it moved 8 queued CQEs into the ring");
	n = 8;
	while (n < NPOLL + 1 && !uring_wait(&r, &c))
		n++;
	is_int(n, NPOLL + 1, "every CQE arrives: 64 polls and the NOP");
	ok(!overflowed(&r), "IORING_SQ_CQ_OVERFLOW cleared once all are in");
	is_int((int)*r.cq_overflow, 0, "no CQE was dropped (overflow 0)");
	uring_exit(&r);
	close(p[0]);
	close(p[1]);
}

static void check_nops(void)
{
	struct uring r;
	long got = 0, ret = 0;

	if (uring_init(&r, 4, 0))
		require(false, "ring");
	for (int i = 0; i < NNOP && ret >= 0; i++) {
		uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, (uint64_t)i);
		if ((i + 1) % 4 == 0 && (ret = uring_submit_wait(&r, 0)) > 0)
			got += ret;
	}
	is_int((int)got, NNOP, "1000 NOPs submitted on a CQ of 8, none reaped: all taken");
	ok(overflowed(&r), "IORING_SQ_CQ_OVERFLOW is set");
	is_int(reap(&r, NNOP, 0), 0, "each of the 1000 CQEs reaped once");
	is_int((int)*r.cq_overflow, 0, "overflow 0");
	uring_exit(&r);
}

/* A child with 64 polls done (56 CQEs queued in the kernel) and 64 more
 * waiting exits, or closes its ring first. */
static int run_child(bool close_first)
{
	struct uring r;
	int p[2], q[2], st;
	pid_t pid = fork();

	if (pid == 0) {
		if (uring_init(&r, 4, 0) || pipe(p) || pipe(q) ||
		    submit_polls(&r, p[0], NPOLL, 0) != NPOLL ||
		    submit_polls(&r, q[0], NPOLL, NPOLL) != NPOLL)
			_exit(2);
		write(p[1], "x", 1);
		uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
		if (!overflowed(&r))
			_exit(3);
		if (close_first)
			uring_exit(&r);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(void)
{
	struct kstat before;
	bool have;

	plan(23);
	check_polls();
	check_nops();
	run_child(false); /* warm-up: slab pages */
	have = kstat_read(&before);
	is_int(run_child(false), 0, "exit with 56 CQEs overflowed and 64 polls waiting");
	kstat_unchanged(&before, have, "and nothing of it is left");
	have = kstat_read(&before);
	is_int(run_child(true), 0, "the same, the ring closed first");
	kstat_unchanged(&before, have, "and nothing of it is left");
	return done();
}
