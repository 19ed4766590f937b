/* io_uring requests armed on their files (docs/async.md, "Armed polls")
 * under threads.  A POLL_ADD of the ring's own fd completes at the next
 * CQE.  A RECV armed by a thread that then blocks in read() on a pipe
 * completes when another thread sends its data and waits for the CQE
 * (Linux interrupts the submitter's wait to run its task work).  And a
 * race: two threads submit RECVs on a few socket pairs, one sends data,
 * one cancels RECVs, two reap: each RECV gets exactly one CQE, a
 * cancelled one consumed no data (the bytes received and those left in
 * the sockets add up to those sent), and no buffer is written after its
 * CQE was reaped; nothing is left in the kernel after. */
#define _GNU_SOURCE
#include "uring_raw.h"

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include "robust.h"
#include "tap.h"
#include "testutil.h"

/* A one-shot POLL_ADD of the ring's own fd for POLLIN, with no CQE
 * pending, completes POLLIN once a NOP posts one. */
static void check_self_poll(void)
{
	struct uring r;
	int32_t res[2] = {-1, -1};
	int err;

	require(!uring_init(&r, 8, 0), "a ring");
	uring_prep(&r, IORING_OP_POLL_ADD, r.fd, 0, 0, 0, 0)->poll32_events = POLLIN;
	is_int(uring_submit_wait(&r, 0), 1, "a POLL_ADD of the ring's own fd submitted");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	is_int(uring_submit_wait(&r, 0), 1, "then a NOP");
	err = uring_wait_n(&r, 2, res);
	ok(!err && (res[0] & POLLIN) && res[1] == 0,
	   "the poll sees the NOP's CQE: POLLIN (0x%x), the NOP 0 (%d)", res[0], res[1]);
	uring_exit(&r);
}

static struct {
	struct uring r;
	int sv[2], pipe[2];
	char buf[8];
	long recv_submitted;
	ssize_t read_res;
} lv;

/* Thread A: a RECV that must wait (armed), then a read() of the pipe. */
static void *liveness_submitter(void *arg)
{
	char c;

	(void)arg;
	uring_prep(&lv.r, IORING_OP_RECV, lv.sv[0], (uint64_t)lv.buf, sizeof(lv.buf), 0, 7);
	__atomic_store_n(&lv.recv_submitted, uring_submit_wait(&lv.r, 0), __ATOMIC_RELEASE);
	lv.read_res = read(lv.pipe[0], &c, 1);
	return NULL;
}

/* Thread B (the caller): sends the RECV's data once it is submitted and
 * waits for its CQE (30 s at most: a failure, not a hang) while A
 * blocks in read(). */
static void check_liveness(void)
{
	struct io_uring_cqe c = {0};
	struct timespec ts = {.tv_sec = 30};
	struct io_uring_getevents_arg ea = {.ts = (uint64_t)&ts};
	pthread_t a;
	long got;
	int have;

	require(!uring_init(&lv.r, 8, 0) && !socketpair(AF_UNIX, SOCK_STREAM, 0, lv.sv) &&
		    !pipe(lv.pipe),
		"a ring, a socket pair, a pipe");
	require(!pthread_create(&a, NULL, liveness_submitter, NULL), "thread A");
	while (!__atomic_load_n(&lv.recv_submitted, __ATOMIC_ACQUIRE))
		sched_yield();
	is_int(lv.recv_submitted, 1, "A's RECV submitted");
	sleep_ms(50); /* A is in read() by now, or gets there later: the same answer */
	is_int(send(lv.sv[1], "hello", 5, 0), 5, "B sends the data");
	got = uring_enter_raw(lv.r.fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ea,
			      sizeof(ea));
	have = uring_peek(&lv.r, &c);
	ok(got == 0 && have && c.user_data == 7 && c.res == 5 && !memcmp(lv.buf, "hello", 5),
	   "B gets the RECV's CQE while A blocks in read() (%ld, res %d)", got, c.res);
	is_int(write(lv.pipe[1], "x", 1), 1, "A is let go");
	pthread_join(a, NULL);
	is_int(lv.read_res, 1, "A's read() was not disturbed: 1");
	uring_exit(&lv.r);
	close(lv.sv[0]), close(lv.sv[1]), close(lv.pipe[0]), close(lv.pipe[1]);
}

/* ---- the race ---- */

#define PAIRS	   8
#define SUBMITTERS 2
#define RECVS	   600 /* per submitter */
#define NRECV	   (SUBMITTERS * RECVS)
#define SENDS	   1500
#define CANCELS	   600
#define RBUF	   16
#define CANCEL_BIT (1ULL << 32)
#define UNTOUCHED  0xaa
#define REAPED	   0x55

static struct {
	struct uring r;
	pthread_mutex_t sq, cq; /* the SQ and the CQ are shared: one filler, one reaper at a time */
	int sv[PAIRS][2];
	char bufs[NRECV][RBUF];
	int pair_of[NRECV];
	int32_t res[NRECV];
	int cqes[NRECV];   /* CQEs seen per RECV (cq lock) */
	long submitted;	   /* RECVs submitted (atomic) */
	long reaped;	   /* RECV CQEs reaped (atomic) */
	long sent[PAIRS];  /* bytes (sender only) */
	long stray, wrong; /* CQEs of no request; buffers written where they should not be */
	long bad_cancel;   /* cancel results other than 0, EALREADY, ENOENT */
} rc;

static void sq_submit(uint8_t op, int fd, uint64_t addr, uint32_t len, uint64_t data)
{
	pthread_mutex_lock(&rc.sq);
	while (!uring_prep(&rc.r, op, fd, addr, len, 0, data))
		uring_submit_wait(&rc.r, 0); /* the SQ is full: make room */
	uring_submit_wait(&rc.r, 0);	     /* any number in flight (NODROP) */
	pthread_mutex_unlock(&rc.sq);
}

static void *submitter(void *arg)
{
	int base = (int)(long)arg * RECVS;

	for (int i = base; i < base + RECVS; i++) {
		rc.pair_of[i] = i % PAIRS;
		sq_submit(IORING_OP_RECV, rc.sv[i % PAIRS][0], (uint64_t)rc.bufs[i], RBUF,
			  (uint64_t)i);
		__atomic_add_fetch(&rc.submitted, 1, __ATOMIC_RELEASE);
		if (i % 16 == 0)
			sched_yield();
	}
	return NULL;
}

static void *sender(void *arg)
{
	(void)arg;
	for (int i = 0; i < SENDS; i++) {
		int p = (i * 7) % PAIRS;
		if (send(rc.sv[p][1], "abc", 3, MSG_DONTWAIT) == 3)
			rc.sent[p] += 3;
		if (i % 8 == 0)
			sched_yield();
	}
	return NULL;
}

static void *canceller(void *arg)
{
	(void)arg;
	for (int i = 0; i < CANCELS; i++) {
		long n = __atomic_load_n(&rc.submitted, __ATOMIC_ACQUIRE);
		sq_submit(IORING_OP_ASYNC_CANCEL, -1, n ? (uint64_t)((i * 37) % n) : 0, 0,
			  CANCEL_BIT | (uint64_t)i);
		if (i % 4 == 0)
			sched_yield();
	}
	return NULL;
}

/* One CQE (cq lock held): its RECV's buffer checked and marked reaped. */
static void reap_one(const struct io_uring_cqe *c)
{
	uint64_t i = c->user_data;

	if (i & CANCEL_BIT) {
		if (c->res != 0 && c->res != -EALREADY && c->res != -ENOENT)
			rc.bad_cancel++;
		return;
	}
	if (i >= NRECV) {
		rc.stray++;
		return;
	}
	rc.res[i] = c->res;
	rc.cqes[i]++;
	for (int k = c->res > 0 ? c->res : 0; k < RBUF; k++)
		rc.wrong += rc.bufs[i][k] != (char)UNTOUCHED;
	memset(rc.bufs[i], REAPED, RBUF);
	__atomic_add_fetch(&rc.reaped, 1, __ATOMIC_RELEASE);
}

static void *reaper(void *arg)
{
	struct timespec ts = {.tv_nsec = 20 * 1000 * 1000};
	struct io_uring_getevents_arg ea = {.ts = (uint64_t)&ts};
	struct io_uring_cqe c;

	(void)arg;
	while (__atomic_load_n(&rc.reaped, __ATOMIC_ACQUIRE) < NRECV) {
		pthread_mutex_lock(&rc.cq);
		while (uring_peek(&rc.r, &c))
			reap_one(&c);
		pthread_mutex_unlock(&rc.cq);
		uring_enter_raw(rc.r.fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ea,
				sizeof(ea));
	}
	return NULL;
}

static void check_race(void)
{
	pthread_t sub[SUBMITTERS], snd, can, rea[2];
	long got = 0, left = 0, sent = 0, once = 0;
	char drain[4096];
	ssize_t n;

	require(!uring_init(&rc.r, 4096, 0), "a ring");
	for (int p = 0; p < PAIRS; p++)
		require(!socketpair(AF_UNIX, SOCK_STREAM, 0, rc.sv[p]), "socket pairs");
	pthread_mutex_init(&rc.sq, NULL);
	pthread_mutex_init(&rc.cq, NULL);
	memset(rc.bufs, UNTOUCHED, sizeof(rc.bufs));
	for (int i = 0; i < 2; i++)
		require(!pthread_create(&rea[i], NULL, reaper, NULL), "reapers");
	for (int i = 0; i < SUBMITTERS; i++)
		require(!pthread_create(&sub[i], NULL, submitter, (void *)(long)i), "submitters");
	require(!pthread_create(&snd, NULL, sender, NULL) &&
		    !pthread_create(&can, NULL, canceller, NULL),
		"a sender and a canceller");
	for (int i = 0; i < SUBMITTERS; i++)
		pthread_join(sub[i], NULL);
	pthread_join(snd, NULL);
	pthread_join(can, NULL);
	/* The senders' ends shut: every RECV still waiting completes (0 or
	 * the data still there). */
	for (int p = 0; p < PAIRS; p++)
		shutdown(rc.sv[p][1], SHUT_WR);
	for (int i = 0; i < 2; i++)
		pthread_join(rea[i], NULL);
	for (int i = 0; i < NRECV; i++) {
		once += rc.cqes[i] == 1;
		got += rc.res[i] > 0 ? rc.res[i] : 0;
		for (int k = 0; k < RBUF; k++)
			rc.wrong += rc.bufs[i][k] != (char)REAPED;
	}
	for (int p = 0; p < PAIRS; p++) {
		sent += rc.sent[p];
		while ((n = recv(rc.sv[p][0], drain, sizeof(drain), MSG_DONTWAIT)) > 0)
			left += n;
	}
	is_int(once, NRECV, "each of %d RECVs got exactly one CQE", NRECV);
	is_int(rc.stray + rc.bad_cancel, 0, "no stray CQE, every cancel 0, EALREADY or ENOENT");
	is_int(got + left, sent, "the bytes received and those left add up to those sent (%ld)",
	       sent);
	is_int(rc.wrong, 0, "no buffer written past its result or after its CQE was reaped");
	uring_exit(&rc.r);
	for (int p = 0; p < PAIRS; p++)
		close(rc.sv[p][0]), close(rc.sv[p][1]);
}

int main(void)
{
	struct kstat before;
	bool have;

	plan(13);
	check_self_poll();
	check_liveness();
	have = kstat_read(&before);
	check_race();
	kstat_unchanged(&before, have, "and nothing of it is left in the kernel");
	return done();
}
