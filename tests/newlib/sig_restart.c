/* Blocking calls interrupted by a handler: read on a pipe and wait4 restart
 * under SA_RESTART and fail with EINTR without it; poll, nanosleep and pause
 * always fail with EINTR.  A child sends the signals every few ms.  Nothing
 * here waits a fixed time for the sender: the children that end a call
 * wait for the handler's count (or for the parent), so a loaded machine
 * only makes the test slower. */
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sigutil.h"

#define INTERVAL_MS 40
#define HANDLERS    3	  /* handler runs before a child ends the parent's call */
#define PATIENCE_MS 60000 /* a bound for a kernel that never delivers, not a speed */

/* The handler's count, in a MAP_SHARED page so that the children see it;
 * only the parent's handler writes it. */
static volatile int *hits;

static void count_handler(int sig)
{
	(void)sig;
	(*hits)++;
}

/* A child that waits until the parent's handler has run HANDLERS times
 * since *hits was reset (some of them, then, while the parent blocked in
 * its call, however slow the machine), then writes a byte to FD if FD >= 0
 * and exits. */
static pid_t child_after_handlers(int fd)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		WAIT_UNTIL(*hits >= HANDLERS);
		_exit(fd < 0 || write(fd, "x", 1) == 1 ? 0 : 1);
	}
	return pid;
}

/* A child that exits once a byte arrives on FD: it cannot end the
 * parent's wait4 before the parent lets it. */
static pid_t child_held(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(poll(&pfd, 1, PATIENCE_MS) == 1 ? 0 : 1);
	return pid;
}

static int64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void test_read(void)
{
	int fds[2];
	char c = 0;
	ssize_t n;
	pid_t sender, writer;

	require(pipe(fds) == 0, "pipe");
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	*hits = 0;
	writer = child_after_handlers(fds[1]);
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	n = read(fds[0], &c, 1);
	ok(n == 1 && c == 'x' && *hits >= HANDLERS,
	   "SA_RESTART: read on a pipe restarts after %d handlers and gets the data", *hits);
	lsig_stop_sender(sender);
	waitpid(writer, NULL, 0);

	lsig_handle(LSIGUSR1, count_handler, 0);
	*hits = 0;
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	is_errno(read(fds[0], &c, 1), EINTR, "without SA_RESTART the read fails with EINTR");
	lsig_stop_sender(sender);
	ok(*hits >= 1, "after the handler ran");
	close(fds[0]);
	close(fds[1]);
}

static void test_wait(void)
{
	int fds[2], status;
	pid_t sender, child;

	require(pipe(fds) == 0, "pipe");
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	*hits = 0;
	child = child_after_handlers(-1);
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	ok(waitpid(child, &status, 0) == child && exited_with(status, 0) && *hits >= HANDLERS,
	   "SA_RESTART: wait4 restarts after handlers and reaps the child");
	lsig_handle(LSIGUSR1, count_handler, 0);
	child = child_held(fds[0]);
	is_errno(waitpid(child, &status, 0), EINTR, "without SA_RESTART wait4 fails with EINTR");
	lsig_stop_sender(sender);
	require(write(fds[1], "x", 1) == 1, "release the child");
	waitpid(child, NULL, 0);
	close(fds[0]);
	close(fds[1]);
}

static void test_always_eintr(void)
{
	const int64_t asked = PATIENCE_MS * 1000000LL, slack = 1000000;
	struct timespec left = {PATIENCE_MS / 1000, 0};
	struct pollfd pfd;
	int64_t left_ns, slept;
	int fds[2];
	pid_t sender;

	require(pipe(fds) == 0, "pipe");
	pfd = (struct pollfd){.fd = fds[0], .events = POLLIN};
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	is_errno(poll(&pfd, 1, PATIENCE_MS), EINTR, "poll: EINTR even with SA_RESTART");
	slept = monotonic_ns();
	is_errno(nanosleep(&left, &left), EINTR, "nanosleep: EINTR even with SA_RESTART");
	slept = monotonic_ns() - slept;
	/* What was asked less what was slept (at most the time measured
	 * around the call), within Linux's 50 us timer slack. */
	left_ns = left.tv_sec * 1000000000LL + left.tv_nsec;
	ok(left_ns <= asked + slack && left_ns + slept + slack >= asked,
	   "and it reports the time left (%lld ms of %d, %lld ms slept)",
	   (long long)(left_ns / 1000000), PATIENCE_MS, (long long)(slept / 1000000));
	is_errno(pause(), EINTR, "pause: EINTR after the handler");
	lsig_stop_sender(sender);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	hits = mmap(NULL, sizeof(*hits), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	require(hits != MAP_FAILED, "mmap");
	plan(9);
	test_read();
	test_wait();
	test_always_eintr();
	return done();
}
