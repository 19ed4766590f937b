/* A multishot POLL_ADD armed on a signalfd while the same engine's
 * worker is interrupted: interrupting a worker queues SIGKILL for it,
 * and a signal queued for a thread of the process wakes the process's
 * signalfd pollers, the armed poll among them, whose wake-up takes the
 * engine's lock.  A TIMEOUT removed, an OPENAT of a FIFO blocked on a
 * worker cancelled (its worker interrupted), a SYSIND_ASYNC queue closed
 * under its running call: each ends, the poll stays armed and still
 * reports a signal sent to the process. */
#define _GNU_SOURCE
#include "fdkernel_abi.h"

#include <poll.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include "testutil.h"
#include "uring_raw.h"

static int32_t res[8];
static uint32_t cflags[8];

/* Takes one CQE: its res and flags stored by its user_data (< 8). */
static bool take_cqe(struct uring *r)
{
	struct io_uring_cqe c;

	if (uring_wait(r, &c))
		return false;
	if (c.user_data < 8) {
		res[c.user_data] = c.res;
		cflags[c.user_data] = c.flags;
	}
	return true;
}

static void wait_cqes(struct uring *r, int n)
{
	while (n-- > 0 && take_cqe(r))
		;
}

/* Waits until user_data ud's CQE came (res[ud] no longer PENDING). */
#define PENDING 1
static void wait_for(struct uring *r, int ud)
{
	while (res[ud] == PENDING && take_cqe(r))
		;
}

int main(void)
{
	struct uring r;
	sigset_t set;
	int sfd;
	struct {
		int64_t s, ns;
	} ten = {10, 0};

	plan(8);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	require(!sigprocmask(SIG_BLOCK, &set, NULL) &&
		    (sfd = signalfd(-1, &set, SFD_NONBLOCK)) >= 0 && !uring_init(&r, 8, 0),
		"a signalfd, a ring");
	uring_prep(&r, IORING_OP_POLL_ADD, sfd, 0, IORING_POLL_ADD_MULTI, 0, 1)->poll32_events =
	    POLLIN;
	is_int(uring_submit_wait(&r, 0), 1, "a multishot POLL_ADD of the signalfd");

	uring_prep(&r, IORING_OP_TIMEOUT, -1, (uint64_t)&ten, 1, 0, 2);
	uring_submit_wait(&r, 0);
	uring_prep(&r, IORING_OP_TIMEOUT_REMOVE, -1, 2, 0, 0, 3);
	uring_submit_wait(&r, 0);
	wait_cqes(&r, 2);
	ok(res[2] == -ECANCELED && res[3] == 0,
	   "a 10 s TIMEOUT removed: ECANCELED, its remove 0 (%d %d)", res[2], res[3]);

	/* An open of a FIFO with no writer waits on its worker. */
	unlink("/tmp/uring_sigfd.fifo");
	require(!mkfifo("/tmp/uring_sigfd.fifo", 0600), "a FIFO");
	uring_prep(&r, IORING_OP_OPENAT, AT_FDCWD, (uint64_t) "/tmp/uring_sigfd.fifo", 0, 0, 4)
	    ->open_flags = O_WRONLY | O_CREAT; /* forced to a worker on Linux too */
	uring_submit_wait(&r, 0);
	/* Linux's io-wq takes a request off its list a moment before it
	 * names it its worker's: a cancel in between finds nothing (ENOENT)
	 * and the open goes on waiting, so a cancel that found nothing is
	 * made again. */
	res[4] = res[5] = PENDING;
	for (int tries = 0; tries < 100 && (res[5] == PENDING || res[5] == -ENOENT); tries++) {
		sleep_ms(50); /* its worker blocks in open (if not, the cancel finds it queued) */
		res[5] = PENDING;
		uring_prep(&r, IORING_OP_ASYNC_CANCEL, -1, 4, 0, 0, 5);
		uring_submit_wait(&r, 0);
		wait_for(&r, 5);
	}
	wait_for(&r, 4);
	/* Linux 6.18 leaks its worker's -ERESTARTSYS (512) into the CQE */
	ok(res[4] == -EINTR || res[4] == -ECANCELED || res[4] == -512,
	   "an OPENAT on a worker cancelled: %d", res[4]);
	ok(res[5] == -EALREADY || res[5] == 0, "its cancel: EALREADY or 0 (%d)", res[5]);
	unlink("/tmp/uring_sigfd.fifo");

	/* The same interrupt from a SYSIND_ASYNC queue's close. */
	if (on_fdkernel()) {
		int q = (int)syscall(__NR_sysind_queue, 0);
		long tok = syscall(__NR_syscall_indirect, SYSIND_ASYNC, (uint64_t)0, SYS_nanosleep,
				   (const unsigned long[6]){(unsigned long)&ten, 0}, q);
		sleep_ms(50); /* its worker sleeps (if not, the close finds it queued) */
		ok(tok > 0 && !close(q), "a SYSIND_ASYNC queue closed under its running nanosleep");
	} else {
		skip("SYSIND_ASYNC is fdkernel's", "a SYSIND_ASYNC queue closed under its call");
	}
	is_int(kill(getpid(), SIGUSR1), 0, "SIGUSR1 to the process");
	wait_cqes(&r, 1);
	is_int(res[1], POLLIN, "the poll reports it");
	ok(cflags[1] & IORING_CQE_F_MORE, "and stays armed (F_MORE)");
	uring_exit(&r);
	close(sfd);
	return done();
}
