/* io_uring link failures, as Linux posts them: IOSQE_CQE_SKIP_SUCCESS
 * skips a request's CQE only if it did not fail (an error, a short
 * READ); a failed request with it stands for its whole chain (the rest
 * cancelled without CQEs), one without it has every cancelled request
 * post -ECANCELED, their own flag regardless; a LINK_TIMEOUT with it
 * posts nothing.  A chain broken at submission (an SQE that fails its
 * checks): the batch goes on to the chain's end, its head posts
 * -ECANCELED (or its own error), and io_uring_enter counts every SQE
 * consumed; an unlinked failure ends the batch unless
 * IORING_SETUP_SUBMIT_ALL. */
#include <stdio.h>
#include <time.h>

#include "testutil.h"
#include "uring_raw.h"

#define SKIP IOSQE_CQE_SKIP_SUCCESS
#define LINK IOSQE_IO_LINK
#define MARK 99 /* a NOP after a case: its CQE must come next */

static struct uring r;
static int pfd[2];

/* Request i of a chain: a NOP, or (bad) a WRITE of a NULL buffer to the
 * pipe, which fails with EFAULT when it runs. */
static void prep(int i, bool bad, uint8_t flags)
{
	struct io_uring_sqe *s = bad ? uring_prep(&r, IORING_OP_WRITE, pfd[1], 0, 8, 0, i)
				     : uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, i);

	s->flags = flags;
}

/* The CQEs of what was submitted, up to the marker NOP submitted after
 * it, as "user_data:res" pairs by user_data (Linux may post the next
 * chain's before a failed one's cancellations): what the case posted. */
static const char *posted(char *buf, size_t size)
{
	struct io_uring_cqe c;
	int32_t res[MARK];
	bool seen[MARK] = {false};
	size_t n = 0;

	buf[0] = 0;
	uring_prep(&r, IORING_OP_NOP, -1, 0, 0, 0, MARK);
	if (uring_submit_wait(&r, 0) < 0)
		return "enter failed";
	while (!uring_wait(&r, &c) && c.user_data < MARK) {
		seen[c.user_data] = true;
		res[c.user_data] = c.res;
	}
	for (int i = 0; i < MARK && n < size - 16; i++)
		if (seen[i])
			n +=
			    (size_t)snprintf(buf + n, size - n, "%s%d:%d", n ? " " : "", i, res[i]);
	return buf;
}

#define is_posted(want, what)                                                                      \
	do {                                                                                       \
		char b_[256];                                                                      \
		const char *g_ = posted(b_, sizeof(b_));                                           \
		ok(!strcmp(g_, want), "%s: '%s' (want '%s')", what, g_, want);                     \
	} while (0)

static void check_run_failures(void)
{
	char buf[8];

	for (int i = 0; i < 4; i++)
		prep(i, i == 1, i < 3 ? LINK | SKIP : 0);
	is_int(uring_submit_wait(&r, 0), 4, "a chain of 4 submitted");
	is_posted("1:-14", "its 2nd fails with CQE_SKIP: its CQE alone stands for the chain");

	for (int i = 0; i < 4; i++)
		prep(i, i == 1, i == 1 ? LINK : i < 3 ? LINK | SKIP : SKIP);
	uring_submit_wait(&r, 0);
	is_posted("1:-14 2:-125 3:-125",
		  "it fails without CQE_SKIP: the rest post ECANCELED, skip flags regardless");

	prep(0, true, IOSQE_IO_HARDLINK | SKIP);
	prep(1, false, IOSQE_IO_HARDLINK | SKIP);
	prep(2, false, 0);
	uring_submit_wait(&r, 0);
	is_posted("0:-14 2:0", "HARDLINK: the failure posts, the chain goes on, skips skipped");

	is_int(write(pfd[1], "ab", 2), 2, "2 bytes in the pipe");
	uring_prep(&r, IORING_OP_READ, pfd[0], (uint64_t)buf, sizeof(buf), 0, 0)->flags =
	    LINK | SKIP;
	prep(1, false, 0);
	uring_submit_wait(&r, 0);
	is_posted("0:2", "a short READ with CQE_SKIP: a failure, it alone posts");
}

static void check_link_timeouts(void)
{
	struct timespec ts = {.tv_sec = 5}, soon = {.tv_nsec = 10000000};
	struct io_uring_cqe c;
	char buf[8];

	prep(0, false, LINK);
	uring_prep(&r, IORING_OP_LINK_TIMEOUT, -1, (uint64_t)&ts, 1, 0, 1)->flags = SKIP;
	uring_submit_wait(&r, 0);
	is_posted("0:0", "a LINK_TIMEOUT with CQE_SKIP, disarmed: no ECANCELED CQE");

	uring_prep(&r, IORING_OP_READ, pfd[0], (uint64_t)buf, sizeof(buf), 0, 0)->flags = LINK;
	uring_prep(&r, IORING_OP_LINK_TIMEOUT, -1, (uint64_t)&soon, 1, 0, 1)->flags = SKIP;
	uring_submit_wait(&r, 0);
	require(!uring_wait(&r, &c), "a CQE");
	ok(c.user_data == 0 && (c.res == -ECANCELED || c.res == -EINTR),
	   "one that goes off: the READ it cut short posts (%d)", c.res);
	is_posted("", "and the timeout's ETIME is skipped");

	prep(0, true, LINK | SKIP);
	uring_prep(&r, IORING_OP_LINK_TIMEOUT, -1, (uint64_t)&ts, 1, 0, 1)->flags = LINK | SKIP;
	prep(2, false, 0);
	uring_submit_wait(&r, 0);
	is_posted("0:-14", "a failure timed by one: neither its timeout nor the rest post");
}

/* An SQE that fails its checks: an opcode no kernel has. */
static void prep_bad(int i, uint8_t flags)
{
	uring_prep(&r, 250, -1, 0, 0, 0, i)->flags = flags;
}

static void check_submit_failures(void)
{
	struct uring all;

	prep(0, false, LINK);
	prep_bad(1, LINK);
	prep(2, false, 0);
	prep(3, false, 0);
	is_int(uring_submit_wait(&r, 0), 4, "a chain broken at submission: the batch goes on (4)");
	is_posted("0:-125 1:-22 2:-125 3:0", "the chain fails whole, the next SQE runs");

	prep(0, false, LINK | SKIP);
	prep_bad(1, LINK);
	prep(2, false, 0);
	uring_submit_wait(&r, 0);
	is_posted("0:-125", "its head with CQE_SKIP: the head's ECANCELED stands for it");

	prep_bad(0, LINK | SKIP);
	prep(1, false, 0);
	uring_submit_wait(&r, 0);
	is_posted("0:-22", "the head failing with CQE_SKIP: its own error alone");

	prep(0, false, 0);
	prep_bad(1, 0);
	prep(2, false, 0);
	is_int(uring_submit_wait(&r, 0), 2, "an unlinked failure ends the batch after itself");
	is_int(uring_submit_wait(&r, 0), 1, "the SQE after it is left for the next call");
	is_posted("0:0 1:-22 2:0", "their CQEs");

	require(!uring_init(&all, 8, IORING_SETUP_SUBMIT_ALL), "a SUBMIT_ALL ring");
	uring_prep(&all, IORING_OP_NOP, -1, 0, 0, 0, 0);
	uring_prep(&all, 250, -1, 0, 0, 0, 1);
	uring_prep(&all, IORING_OP_NOP, -1, 0, 0, 0, 2);
	is_int(uring_submit_wait(&all, 3), 3, "SUBMIT_ALL: the batch goes on past it");
	uring_exit(&all);
}

int main(void)
{
	plan(18);
	require(!pipe(pfd) && !uring_init(&r, 16, 0), "a pipe and a ring");
	check_run_failures();
	check_link_timeouts();
	check_submit_failures();
	uring_exit(&r);
	close(pfd[0]);
	close(pfd[1]);
	return done();
}
