/* The fuzzer's thread scenario (issue 19): threads of one process issue
 * random fd calls on the files table they share, so that on several CPUs
 * lookups race with close, dup2 over the same number, non-sequential
 * allocation, close_range and table growth; now and then the process ends
 * (exit_group) while they run.  The kernel must not panic, hang (the
 * scenario's time limit) or leak (the fuzz run's counters).  Thread bodies
 * call libc's thin wrappers, which translate newlib's O_ and SOCK_ flags to
 * the kernel's (raw calls would pass newlib's values); the errno they may
 * set is shared and racy, and never read here.  Every fd they make is
 * non-blocking, so no call may block.  Included by fuzz.c only, after
 * fuzz_scenario.h. */
#ifndef FUZZ_THREADS_H
#define FUZZ_THREADS_H

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "thread.h"

#define FD_THREADS    3	  /* besides the scenario's own thread */
#define FD_THREAD_OPS 300 /* calls per thread */
#define FD_RANGE      40  /* the fd numbers they aim at: a growing table's edge */
#define FD_EXIT_ODDS  6	  /* the process exits under its threads 1 time in this */

struct fd_thread {
	uint64_t rng; /* its own stream: fz's is not shared between threads */
	bool running;
	struct thread t;
};

static uint64_t fd_thread_rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL); /* splitmix64, as rnd() */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Calls that make fds; each fd is non-blocking. */
static void fd_thread_create(uint64_t *s, int fd)
{
	int pair[2], nonseq = fd_thread_rnd(s) % 2 ? O_NONSEQFD : 0;
	struct epoll_event ev = {.events = EPOLLIN};

	switch (fd_thread_rnd(s) % 5) {
	case 0:
		pipe2(pair, O_NONBLOCK | nonseq);
		break;
	case 1:
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair);
		break;
	case 2:
		eventfd((unsigned)(fd_thread_rnd(s) % 3), EFD_NONBLOCK);
		break;
	case 3:
		epoll_ctl(epoll_create1(0), EPOLL_CTL_ADD, fd, &ev);
		break;
	default:
		open("/dev/null", O_RDWR | O_NONBLOCK | nonseq);
	}
}

/* One random call on the shared table. */
static void fd_thread_op(uint64_t *s)
{
	int fd = (int)(fd_thread_rnd(s) % FD_RANGE), other = (int)(fd_thread_rnd(s) % FD_RANGE);
	char buf[256];
	struct stat st;
	struct pollfd pfd[3] = {{fd, POLLIN | POLLOUT, 0}, {other, POLLIN, 0}, {0, POLLIN, 0}};

	switch (fd_thread_rnd(s) % 12) {
	case 0:
	case 1:
		close(fd);
		break;
	case 2:
		dup(fd);
		break;
	case 3:
		dup2(fd, other);
		break;
	case 4:
		dup3(fd, fd_thread_rnd(s) % 2 ? -1 : other,
		     O_NONSEQFD | (fd_thread_rnd(s) % 2 ? O_CLOEXEC : 0));
		break;
	case 5:
		fstat(fd, &st);
		read(fd, buf, 0);
		break;
	case 6:
		read(fd, buf, sizeof buf); /* non-blocking: never sleeps */
		write(other, "x", 1);
		break;
	case 7:
		fcntl(fd, F_DUPFD, other);
		fcntl(other, F_SETFD, fd_thread_rnd(s) % 2 ? FD_CLOEXEC : 0);
		break;
	case 8:
		poll(pfd, 3, 0);
		break;
	case 9:
		close_range((unsigned)fd, (unsigned)(fd + fd_thread_rnd(s) % 4),
			    fd_thread_rnd(s) % 3 ? 0 : CLOSE_RANGE_CLOEXEC);
		break;
	default:
		fd_thread_create(s, fd);
	}
}

static int fd_thread_body(void *arg)
{
	struct fd_thread *ft = arg;

	for (int i = 0; i < FD_THREAD_OPS; i++)
		fd_thread_op(&ft->rng);
	return 0;
}

static void scenario_threads(void)
{
	static struct fd_thread ft[FD_THREADS];
	uint64_t own = rnd();

	for (int i = 0; i < FD_THREADS; i++) {
		ft[i].rng = rnd();
		ft[i].running = thread_start(&ft[i].t, fd_thread_body, &ft[i]) > 0;
	}
	if (one_in(FD_EXIT_ODDS)) /* teardown while they hold files mid-call */
		thread_sys(__NR_exit_group, 0, 0, 0);
	for (int i = 0; i < FD_THREAD_OPS; i++)
		fd_thread_op(&own);
	for (int i = 0; i < FD_THREADS; i++)
		if (ft[i].running)
			thread_join(&ft[i].t);
}

#endif
