/* io_uring requests that wait on sockets: 64 RECVs on 64 AF_UNIX stream
 * pairs wait (armed on the sockets: fdkernel holds no worker for them,
 * as Linux) and each completes with its peer's bytes; a peer's close
 * ends its RECV with 0; ASYNC_CANCEL ends a waiting RECV with ECANCELED;
 * a forked child with the ring leaves the parent's RECVs to the parent;
 * the ring closed, the process exiting or exec'ing with 64 RECVs waiting
 * leaves nothing behind (fdkernel's /proc/kstat: on Linux the results
 * only); a FILES_UPDATE linked after a waiting POLL_ADD updates the slot
 * when the poll's wake-up is retried. */
#define _GNU_SOURCE
#include "uring_raw.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "robust.h"
#include "testutil.h"

#define CONNS 64

static int sv[CONNS][2];
static char bufs[CONNS][8];
static const char *self_path;

static int pairs_open(void)
{
	for (int i = 0; i < CONNS; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]))
			return -1;
	return 0;
}

static void pairs_close(void)
{
	for (int i = 0; i < CONNS; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
}

/* A RECV on each of n connections, user_data its index, submitted. */
static long recvs_submit(struct uring *r, int n)
{
	for (int i = 0; i < n; i++)
		uring_prep(r, IORING_OP_RECV, sv[i][0], (uint64_t)bufs[i], sizeof(bufs[i]), 0,
			   (uint64_t)i);
	return uring_submit_wait(r, 0);
}

/* CQEs until n have come: how many had res want and the data "m<i>". */
static int recvs_reap(struct uring *r, int n, int32_t want)
{
	struct io_uring_cqe c;
	int good = 0;

	for (int k = 0; k < n && !uring_wait(r, &c); k++) {
		char expect[8];
		int i = (int)c.user_data;
		snprintf(expect, sizeof(expect), "m%d", i);
		if (c.res == want && i < CONNS &&
		    (want <= 0 || !memcmp(bufs[i], expect, (size_t)want)))
			good++;
	}
	return good;
}

static int send_all(int n)
{
	int sent = 0;

	for (int i = 0; i < n; i++) {
		char m[8];
		snprintf(m, sizeof(m), "m%d", i);
		sent += send(sv[i][1], m, 3, 0) == 3;
	}
	return sent;
}

static void check_recvs(void)
{
	struct uring r;
	struct io_uring_cqe c;
	struct kstat before, armed;
	bool have;

	require(!uring_init(&r, 2 * CONNS, 0) && !pairs_open(), "a ring and 64 socket pairs");
	have = kstat_read(&before);
	is_int(recvs_submit(&r, CONNS), CONNS, "64 RECVs submitted");
	sleep_ms(20);
	ok(!uring_peek(&r, &c), "they wait");
	if (have && kstat_read(&armed))
		is_int(armed.v[KS_TASKS], before.v[KS_TASKS], "and no task waits for them");
	else
		skip("no " KSTAT_PATH, "and no task waits for them");
	is_int(send_all(CONNS), CONNS, "the peers send");
	is_int(recvs_reap(&r, CONNS, 3), CONNS, "each RECV has its peer's bytes");

	recvs_submit(&r, 2);
	close(sv[0][1]);
	ok(!uring_wait(&r, &c) && c.user_data == 0 && c.res == 0, "a peer's close: its RECV 0");
	uring_prep(&r, IORING_OP_ASYNC_CANCEL, -1, 1, 0, 0, 100);
	uring_submit_wait(&r, 0);
	int32_t res[2] = {1, 1};
	for (int k = 0; k < 2 && !uring_wait(&r, &c); k++)
		res[c.user_data == 100] = c.res;
	ok(res[0] == -ECANCELED && res[1] == 0, "ASYNC_CANCEL of a waiting RECV: ECANCELED, 0");
	uring_exit(&r);
	pairs_close();
}

/* The parent's RECVs wait in a forked child's copy too; the child ends
 * (closing its copy of the ring), the parent's complete in the parent. */
static void check_fork(void)
{
	struct uring r;
	int st;
	pid_t pid;

	require(!uring_init(&r, 2 * CONNS, 0) && !pairs_open(), "a ring and 64 socket pairs");
	recvs_submit(&r, 8);
	pid = fork();
	if (pid == 0) {
		uring_exit(&r);
		_exit(0);
	}
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	   "fork with 8 RECVs waiting: the child ends");
	is_int(send_all(8), 8, "the peers send");
	is_int(recvs_reap(&r, 8, 3), 8, "the parent's RECVs complete in the parent");
	uring_exit(&r);
	pairs_close();
}

/*
 * A FILES_UPDATE linked after a POLL_ADD that waits runs after the poll's
 * wake-up: in fdkernel, in this thread on its way back from the write
 * that woke the poll, with no lock held; the update takes the lock
 * that keeps the registered files' table (it once did not: a race with
 * UNREGISTER_FILES, which the kernel now asserts).
 */
static void check_link_after_armed(void)
{
	struct io_uring_sqe *s;
	struct io_uring_cqe c;
	struct uring r;
	int32_t res[2] = {1, 1};
	int p[2], slot = -1;

	require(!uring_init(&r, 8, 0) && !pipe(p), "a ring and a pipe");
	is_int(uring_register_raw(r.fd, IORING_REGISTER_FILES, &slot, 1), 0,
	       "one empty slot registered");
	s = uring_prep(&r, IORING_OP_POLL_ADD, p[0], 0, 0, 0, 0);
	s->poll32_events = POLLIN;
	s->flags = IOSQE_IO_LINK;
	slot = p[1];
	uring_prep(&r, IORING_OP_FILES_UPDATE, -1, (uint64_t)&slot, 1, 0, 1);
	is_int(uring_submit_wait(&r, 0), 2, "a POLL_ADD linked to a FILES_UPDATE submitted");
	ok(!uring_peek(&r, &c), "the poll waits");
	is_int(write(p[1], "x", 1), 1, "a write wakes it");
	ok(!uring_wait_n(&r, 2, res) && res[0] == POLLIN && res[1] == 1,
	   "POLLIN, then the update of one slot (%d, %d)", res[0], res[1]);
	s = uring_prep(&r, IORING_OP_WRITE, 0, (uint64_t) "y", 1, 0, 2);
	s->flags = IOSQE_FIXED_FILE;
	is_int(uring_run1(&r), 1, "the slot holds the pipe's write end");
	uring_exit(&r);
	close(p[0]);
	close(p[1]);
}

enum end { END_CLOSE, END_EXIT, END_EXEC, END_PEERS };

/* A child with 64 RECVs waiting, then its end. */
static int run(enum end how)
{
	struct uring r;
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		if (uring_init(&r, 2 * CONNS, 0) || pairs_open() ||
		    recvs_submit(&r, CONNS) != CONNS)
			_exit(2);
		if (how == END_CLOSE) {
			uring_exit(&r); /* every RECV completes (cancelled) */
			if (send_all(CONNS) != CONNS)
				_exit(3); /* the sockets still work */
		}
		if (how == END_PEERS)
			for (int i = 0; i < CONNS; i++)
				close(sv[i][1]);
		if (how == END_EXEC)
			execl(self_path, self_path, "exit0", (char *)NULL);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	static const char *what[] = {"the ring closed with 64 RECVs waiting, then exit",
				     "exit with 64 RECVs waiting", "exec with 64 RECVs waiting",
				     "the peers closed with 64 RECVs waiting, then exit"};
	struct kstat before;
	bool have;

	if (argc > 1 && !strcmp(argv[1], "exit0"))
		return 0;
	self_path = argv[0];
	plan(24);
	check_recvs();
	check_fork();
	check_link_after_armed();
	run(END_EXIT); /* warm-up: slab pages */
	for (int how = END_CLOSE; how <= END_PEERS; how++) {
		have = kstat_read(&before);
		is_int(run((enum end)how), 0, "%s", what[how]);
		kstat_unchanged(&before, have, "and nothing of it is left");
	}
	return done();
}
