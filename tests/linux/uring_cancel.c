/* io_uring's timeouts, polls and cancellation, and its teardown in
 * hostile orders: TIMEOUT (by time, by CQE count), TIMEOUT_REMOVE,
 * POLL_ADD/POLL_REMOVE, ASYNC_CANCEL of a waiting READ, a signal and a
 * sigmask in io_uring_enter's wait; a ring closed with reads in flight,
 * a process exiting or exec'ing with them, fork with a ring open, and the
 * ring's memory made read-only or unmapped under a running request. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdlib.h>

#include "testutil.h"
#include "uring_raw.h"

static struct uring r;

struct kts {
	int64_t sec, nsec;
};

static void check_timeouts(void)
{
	struct kts ts = {0, 10000000}, big = {100, 0};
	int32_t res[3];

	uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)&ts, 1, 0, 0);
	is_int(uring_run1(&r), -ETIME, "TIMEOUT of 10 ms: ETIME");
	uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)&ts, 2, 0, 0);
	is_int(uring_run1(&r), -EINVAL, "TIMEOUT with len 2: EINVAL");
	uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)&big, 1, 1, 0);
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	uring_submit_wait(&r, 2);
	memset(res, 0x55, sizeof(res));
	uring_wait_n(&r, 2, res);
	ok(res[0] == 0 && res[1] == 0, "TIMEOUT of count 1: ends with 0 after one CQE");
	uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)&big, 1, 0, 0);
	uring_submit_wait(&r, 0);
	uring_prep(&r, IORING_OP_TIMEOUT_REMOVE, -1, 0, 0, 0, 1);
	uring_submit_wait(&r, 2);
	uring_wait_n(&r, 2, res);
	ok(res[0] == -ECANCELED && res[1] == 0, "TIMEOUT_REMOVE: the timeout ECANCELED, remove 0");
	uring_prep(&r, IORING_OP_TIMEOUT_REMOVE, -1, 12345, 0, 0, 0);
	is_int(uring_run1(&r), -ENOENT, "TIMEOUT_REMOVE of nothing: ENOENT");
}

static void check_poll_cancel(void)
{
	int p[2];
	char buf[4];
	int32_t res[2];

	require(!pipe(p), "a pipe");
	uring_prep(&r, IORING_OP_POLL_ADD, p[0], 0, 0, 0, 0)->poll32_events = POLLIN;
	uring_submit_wait(&r, 0);
	is_int(write(p[1], "x", 1), 1, "a write");
	struct io_uring_cqe c;
	ok(!uring_wait(&r, &c) && (c.res & POLLIN), "POLL_ADD: POLLIN once readable");
	read(p[0], buf, 1);
	uring_prep(&r, IORING_OP_POLL_ADD, p[0], 0, 0, 0, 0)->poll32_events = POLLIN;
	uring_submit_wait(&r, 0);
	uring_prep(&r, IORING_OP_POLL_REMOVE, -1, 0, 0, 0, 1);
	uring_submit_wait(&r, 2);
	uring_wait_n(&r, 2, res);
	ok(res[0] == -ECANCELED && res[1] == 0, "POLL_REMOVE: the poll ECANCELED, remove 0");

	uring_prep(&r, IORING_OP_READ, p[0], (uint64_t)buf, 1, UINT64_MAX, 0);
	uring_submit_wait(&r, 0);
	sleep_ms(20);
	uring_prep(&r, IORING_OP_ASYNC_CANCEL, -1, 0, 0, 0, 1);
	uring_submit_wait(&r, 2);
	memset(res, 0x55, sizeof(res));
	uring_wait_n(&r, 2, res);
	/* Linux cancels a pipe read armed on poll (0, ECANCELED); a worker's
	 * read is interrupted (EALREADY, EINTR), as Linux's io-wq; a read
	 * still queued for a worker is taken off (0, ECANCELED). */
	ok((res[1] == 0 && res[0] == -ECANCELED) || (res[1] == -EALREADY && res[0] == -EINTR),
	   "ASYNC_CANCEL of a waiting READ (%d, %d)", res[1], res[0]);
	uring_prep(&r, IORING_OP_ASYNC_CANCEL, -1, 4242, 0, 0, 0);
	is_int(uring_run1(&r), -ENOENT, "ASYNC_CANCEL of nothing: ENOENT");
	close(p[0]);
	close(p[1]);
}

static volatile int got;
static void on_usr1(int s)
{
	(void)s;
	got++;
}

static void check_wait_signals(void)
{
	sigset_t block, none;

	signal(SIGUSR1, on_usr1);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, NULL);
	kill(getpid(), SIGUSR1);
	sigemptyset(&none);
	is_int(uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS, &none, 8), -EINTR,
	       "enter's sigmask lets a pending signal in: EINTR");
	is_int(got, 1, "and its handler ran");
	is_int(uring_enter_raw(r.fd, 0, 1, IORING_ENTER_GETEVENTS, &none, 4), -EINVAL,
	       "a sigmask of size 4: EINVAL");
	sigprocmask(SIG_UNBLOCK, &block, NULL);
}

/* In a child: reads of a pipe nobody writes are in flight, then the ring
 * is closed (close_ring) or not, then the child exits or execs. */
static void teardown_child(bool close_ring, const char *exec_self)
{
	struct uring c;
	static char buf[4][4];
	int p[2];

	if (uring_init(&c, 8, 0) || pipe(p))
		_exit(2);
	for (int i = 0; i < 4; i++)
		uring_prep(&c, IORING_OP_READ, p[0], (uint64_t)buf[i], 4, UINT64_MAX, (uint64_t)i);
	if (uring_submit_wait(&c, 0) != 4)
		_exit(3);
	if (close_ring)
		close(c.fd);
	if (exec_self)
		execl(exec_self, exec_self, "exit0", (char *)NULL);
	_exit(0);
}

static int run_child(bool close_ring, const char *exec_self)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		teardown_child(close_ring, exec_self);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_teardown(const char *self)
{
	is_int(run_child(true, NULL), 0, "a ring closed with 4 reads in flight, then exit");
	is_int(run_child(false, NULL), 0, "exit with 4 reads in flight on an open ring");
	is_int(run_child(false, self), 0, "exec with 4 reads in flight");

	/* fork: the child shares the ring and submits on it. */
	int st;
	pid_t pid = fork();
	if (pid == 0) {
		uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 77);
		_exit(uring_submit_wait(&r, 0) == 1 ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	struct io_uring_cqe c;
	ok(WIFEXITED(st) && !WEXITSTATUS(st) && !uring_wait(&r, &c) && c.user_data == 77,
	   "a forked child's NOP on the shared ring completes");
	r.sq_local = *r.sq_tail; /* the child took SQEs the parent did not */
}

static void check_hostile_memory(void)
{
	struct uring h;
	int p[2];
	char buf[4];
	uint32_t tail;

	require(!uring_init(&h, 4, 0) && !pipe(p), "a ring");
	uring_prep(&h, IORING_OP_READ, p[0], (uint64_t)buf, 1, UINT64_MAX, 5);
	uring_submit_wait(&h, 0);
	is_int(mprotect(h.rings, h.rings_size, PROT_READ), 0, "the rings made read-only");
	write(p[1], "y", 1);
	is_int(uring_enter_raw(h.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "the READ completes regardless");
	tail = __atomic_load_n(h.cq_tail, __ATOMIC_ACQUIRE);
	ok(tail == 1 && h.cqes[0].user_data == 5 && h.cqes[0].res == 1, "its CQE is there");
	is_int(mprotect(h.rings, h.rings_size, PROT_READ | PROT_WRITE), 0, "writable again");
	uring_prep(&h, IORING_OP_READ, p[0], (uint64_t)buf, 1, UINT64_MAX, 6);
	*h.cq_head = 1;
	uring_submit_wait(&h, 0);
	is_int(munmap(h.rings, h.rings_size), 0, "the rings unmapped with a READ in flight");
	write(p[1], "z", 1);
	is_int(uring_enter_raw(h.fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "the READ completes into the unmapped ring");
	munmap(h.sqes_map, h.sqes_size);
	close(h.fd);
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exit0"))
		return 0;
	plan(23);
	require(!uring_init(&r, 8, 0), "a ring");
	check_timeouts();
	check_poll_cancel();
	check_wait_signals();
	check_teardown(argv[0]);
	check_hostile_memory();
	uring_exit(&r);
	return done();
}
