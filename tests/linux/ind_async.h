/* What the SYSIND_ASYNC tests share: a queue, one asynchronous call, the
 * next record of a queue, and whether a record waits.
 *
 * On Linux, which has no SYSIND_ASYNC, the same calls run through a
 * stand-in, so that every record's value is Linux's own: a queue is a
 * pipe, and each call runs on a thread of its own (every signal blocked,
 * as a worker) that writes its (token, result) record into the pipe when
 * the call returns.  The per-call flags are fdkernel's alone: on Linux a
 * test asks for the same effect through the call's own flags
 * (SOCK_NONBLOCK, MSG_CMSG_CLOEXEC, O_NOFOLLOW), and the stand-in
 * refuses any SYSIND flag but SIGMASK (EINVAL), which its thread takes
 * as its blocked set while the call runs. */
#ifndef LINUX_IND_ASYNC_H
#define LINUX_IND_ASYNC_H

#include "fdkernel_abi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "testutil.h"

/* The stand-in's calls: each owns its copy of the arguments. */
struct host_call {
	long nr, args[6];
	int wfd; /* the queue pipe's write end */
	uint64_t token;
	bool masked; /* SYSIND_SIGMASK: the thread blocks mask while it runs */
	sigset_t mask;
};

static int host_wfd[1024]; /* a queue's write end, by its read end */

static void *host_call_run(void *arg)
{
	struct host_call *c = arg;
	sigset_t all;
	long r;
	int e;

	if (c->masked)
		pthread_sigmask(SIG_SETMASK, &c->mask, &all);
	r = syscall(c->nr, c->args[0], c->args[1], c->args[2], c->args[3], c->args[4], c->args[5]);
	e = errno;
	if (c->masked)
		pthread_sigmask(SIG_SETMASK, &all, NULL); /* all blocked again */
	struct sysind_completion rec = {c->token, r < 0 ? -e : r};
	/* A closed queue's record is lost (EPIPE, SIGPIPE blocked), as
	 * fdkernel drops it; the write end stays open, so its number is
	 * never another file's. */
	ssize_t n = write(c->wfd, &rec, sizeof(rec));

	(void)n;
	free(c);
	return NULL;
}

/* The stand-in accepts SYSIND_SIGMASK alone: its thread runs the call
 * with sigmask (fdkernel's bits: 1 << (sig - 1)) as its blocked set, so
 * a process-directed signal the mask leaves unblocked may land on it,
 * and interrupt the call, as it may interrupt the synchronous one. */
static long host_async(unsigned long flags, uint64_t sigmask, int q, long nr,
		       const unsigned long *args)
{
	static uint64_t next_token;
	struct host_call *c;
	pthread_attr_t a;
	pthread_t t;
	sigset_t all, old;
	int err;

	if ((flags & ~SYSIND_SIGMASK) || q < 0 || q >= 1024 || !host_wfd[q] ||
	    !(c = calloc(1, sizeof(*c))))
		return -EINVAL;
	*c = (struct host_call){
	    .nr = nr, .wfd = host_wfd[q], .token = ++next_token, .masked = flags != 0};
	sigemptyset(&c->mask);
	for (int sig = 1; sig <= 64; sig++)
		if (sigmask & (1ULL << (sig - 1)))
			sigaddset(&c->mask, sig);
	for (int i = 0; i < 6; i++)
		c->args[i] = (long)args[i];
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread starts with all blocked */
	err = pthread_create(&t, &a, host_call_run, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (err) {
		free(c);
		return -err;
	}
	return (long)next_token; /* c is the thread's, maybe freed already */
}

/* sysind_queue(flags) (O_CLOEXEC, O_NONBLOCK), or the stand-in's pipe. */
static inline int async_queue(int flags)
{
	int p[2];

	if (on_fdkernel())
		return (int)syscall(__NR_sysind_queue, flags);
	if (pipe2(p, O_CLOEXEC) || p[0] >= 1024) /* O_NONBLOCK: on the read end only */
		return -1;
	if (flags & O_NONBLOCK)
		fcntl(p[0], F_SETFL, O_NONBLOCK);
	host_wfd[p[0]] = p[1];
	return p[0];
}

/* syscall_indirect(SYSIND_ASYNC | FLAGS, SIGMASK, nr, args, queue Q): the
 * token, or -errno of the submission. */
static inline long async_submit(unsigned long flags, uint64_t sigmask, int q, long nr,
				const unsigned long *args)
{
	long r;

	if (!on_fdkernel())
		return host_async(flags, sigmask, q, nr, args);
	r = syscall(__NR_syscall_indirect, SYSIND_ASYNC | flags, sigmask, nr, args, q);
	return r < 0 ? -errno : r;
}

static inline long async_call(unsigned long flags, int q, long nr, const unsigned long *args)
{
	return async_submit(flags, 0, q, nr, args);
}

#define ASYNC(flags, q, nr, ...) async_call(flags, q, nr, (const unsigned long[6]){__VA_ARGS__})
/* With SYSIND_SIGMASK: the call blocks exactly MASK (bits 1 << (sig - 1)). */
#define ASYNC_MASKED(mask, q, nr, ...)                                                     \
	async_submit(SYSIND_SIGMASK, mask, q, nr, (const unsigned long[6]){__VA_ARGS__})

/* The next record of q (waiting for it); result -99998 if none could be read. */
static inline struct sysind_completion next_rec(int q)
{
	struct sysind_completion c = {0, -99999};

	if (read(q, &c, sizeof(c)) != sizeof(c))
		c.result = -99998;
	return c;
}

/* Whether a record waits in q within ms milliseconds. */
static inline bool readable(int q, int ms)
{
	struct pollfd p = {.fd = q, .events = POLLIN};
	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

#endif
