/* io_uring_enter's wait for min_complete CQEs, as Linux's: a TIMEOUT
 * that goes off (by time or by its count) ends it whatever the count
 * (liburing's timeout test waits for 4 with one TIMEOUT); a wait that
 * its EXT_ARG timeout or a signal ends with CQEs ready returns 0, with
 * none -ETIME or -EINTR (liburing's io_uring_wait_cqes counts on it). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "testutil.h"
#include "threads.h"
#include "uring_raw.h"

/* The kernel's timespec (struct kts). */
struct kts {
	int64_t tv_sec, tv_nsec;
};

static struct uring r;
static volatile sig_atomic_t alarms;
static pid_t waiter;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* io_uring_enter with EXT_ARG: the timeout ts and the signal mask set
 * while it waits (NULL: neither). */
static long enter_wait(uint32_t min, const struct kts *ts, const sigset_t *mask)
{
	struct io_uring_getevents_arg arg = {
	    .ts = (uint64_t)(uintptr_t)ts, .sigmask = (uint64_t)(uintptr_t)mask, .sigmask_sz = 8};

	return uring_enter_raw(r.fd, 0, min, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &arg,
			       sizeof(arg));
}

/* Reaps every CQE ready: how many; *res the last one's. */
static int reap(int32_t *res)
{
	struct io_uring_cqe c;
	int n = 0;

	while (uring_peek(&r, &c)) {
		*res = c.res;
		n++;
	}
	return n;
}

/* Once the main thread sleeps in its wait, submits the NOP it prepared. */
static void *submit_later(void *arg)
{
	(void)arg;
	while (!thread_sleeping(waiter))
		sleep_ms(5);
	return (void *)uring_submit_wait(&r, 0);
}

/* A TIMEOUT counting 1 CQE, met by a NOP another thread submits while
 * this one waits for 4: the wait ends with the 2 CQEs, the TIMEOUT's 0. */
static void check_timeout_ends_wait(void)
{
	struct kts big = {.tv_sec = 30};
	pthread_t t;
	void *sub = NULL;
	int32_t res[2] = {1, 1};
	struct io_uring_cqe c;

	uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)(uintptr_t)&big, 1, 1, 0);
	is_int(uring_submit_wait(&r, 0), 1, "a TIMEOUT counting 1 CQE submitted");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1); /* published by the thread */
	waiter = (pid_t)syscall(SYS_gettid);
	require(!pthread_create(&t, NULL, submit_later, NULL), "a thread");
	is_int(uring_enter_raw(r.fd, 0, 4, IORING_ENTER_GETEVENTS, NULL, 0), 0,
	       "a wait for 4 CQEs returns once the TIMEOUT's count is met");
	pthread_join(t, &sub);
	is_int((long)sub, 1, "the thread submitted the NOP");
	while (*r.cq_tail - *r.cq_head < 2 && !uring_wait(&r, &c))
		res[c.user_data & 1] = c.res; /* the TIMEOUT's CQE may follow */
	for (int n = 0; uring_peek(&r, &c) && n < 2; n++)
		res[c.user_data & 1] = c.res;
	ok(res[0] == 0 && res[1] == 0, "the TIMEOUT and the NOP: 0 and 0 (%d %d)", res[0], res[1]);
}

static void check_ready_at_the_end(void)
{
	struct kts ts = {.tv_nsec = 20 * 1000 * 1000};
	struct sigaction sa = {.sa_handler = on_alarm};
	sigset_t none, alrm;
	int32_t res = 1;

	sigemptyset(&none);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	is_int(enter_wait(1, &ts, NULL), -ETIME, "EXT_ARG's timeout with no CQE: ETIME");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 1);
	is_int(uring_submit_wait(&r, 0), 1, "a NOP submitted");
	is_int(enter_wait(2, &ts, NULL), 0, "the timeout with 1 CQE of 2 ready: 0");
	ok(reap(&res) == 1 && res == 0, "the NOP's CQE is there");
	/* SIGALRM pending and blocked, unblocked by the wait's mask. */
	require(!sigaction(SIGALRM, &sa, NULL) && !sigprocmask(SIG_BLOCK, &alrm, NULL),
		"SIGALRM handled and blocked");
	raise(SIGALRM);
	is_int(enter_wait(1, NULL, &none), -EINTR, "a signal with no CQE: EINTR");
	is_int(alarms, 1, "its handler ran");
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, 2);
	is_int(uring_submit_wait(&r, 0), 1, "another NOP submitted");
	raise(SIGALRM);
	is_int(enter_wait(2, NULL, &none), 0, "a signal with 1 CQE of 2 ready: 0");
	ok(alarms == 2 && reap(&res) == 1, "its handler ran, the CQE is there");
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
}

int main(void)
{
	plan(13);
	require(!uring_init(&r, 8, 0), "a ring");
	check_timeout_ends_wait();
	check_ready_at_the_end();
	uring_exit(&r);
	return done();
}
