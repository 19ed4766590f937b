/* Blocking calls interrupted by a handler: read on a pipe and wait4 restart
 * under SA_RESTART and fail with EINTR without it; poll, nanosleep and pause
 * always fail with EINTR.  A child sends the signals every few ms. */
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "sigutil.h"

#define INTERVAL_MS 40

static volatile sig_atomic_t hits;

static void count_handler(int sig)
{
	(void)sig;
	hits++;
}

/* A child that writes one byte to FD after DELAY ms, then exits. */
static pid_t late_writer(int fd, long delay)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		sleep_ms(delay);
		_exit(write(fd, "x", 1) == 1 ? 0 : 1);
	}
	return pid;
}

static void test_read(void)
{
	int fds[2];
	char c = 0;
	ssize_t n;
	pid_t sender, writer;

	require(pipe(fds) == 0, "pipe");
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	hits = 0;
	writer = late_writer(fds[1], 5 * INTERVAL_MS);
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	n = read(fds[0], &c, 1);
	ok(n == 1 && c == 'x' && hits > 0,
	   "SA_RESTART: read on a pipe restarts after %d handlers and gets the data", (int)hits);
	lsig_stop_sender(sender);
	waitpid(writer, NULL, 0);

	lsig_handle(LSIGUSR1, count_handler, 0);
	hits = 0;
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	is_errno(read(fds[0], &c, 1), EINTR, "without SA_RESTART the read fails with EINTR");
	lsig_stop_sender(sender);
	ok(hits >= 1, "after the handler ran");
	close(fds[0]);
	close(fds[1]);
}

static void test_wait(void)
{
	int fds[2], status;
	pid_t sender, child;

	require(pipe(fds) == 0, "pipe");
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	hits = 0;
	child = late_writer(fds[1], 5 * INTERVAL_MS);
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	ok(waitpid(child, &status, 0) == child && exited_with(status, 0) && hits > 0,
	   "SA_RESTART: wait4 restarts after handlers and reaps the child");
	lsig_handle(LSIGUSR1, count_handler, 0);
	child = late_writer(fds[1], 1000);
	is_errno(waitpid(child, &status, 0), EINTR, "without SA_RESTART wait4 fails with EINTR");
	lsig_stop_sender(sender);
	waitpid(child, NULL, 0);
	close(fds[0]);
	close(fds[1]);
}

static void test_always_eintr(void)
{
	struct timespec long_time = {10, 0};
	struct pollfd pfd;
	int fds[2];
	pid_t sender;

	require(pipe(fds) == 0, "pipe");
	pfd = (struct pollfd){.fd = fds[0], .events = POLLIN};
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESTART);
	sender = lsig_sender(LSIGUSR1, INTERVAL_MS);
	is_errno(poll(&pfd, 1, 10000), EINTR, "poll: EINTR even with SA_RESTART");
	is_errno(nanosleep(&long_time, &long_time), EINTR, "nanosleep: EINTR even with SA_RESTART");
	ok(long_time.tv_sec >= 8, "and it reports the time left (%lds)", (long)long_time.tv_sec);
	is_errno(pause(), EINTR, "pause: EINTR after the handler");
	lsig_stop_sender(sender);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	plan(9);
	test_read();
	test_wait();
	test_always_eintr();
	return done();
}
