/* io_uring torn down with more in flight than the engine has workers:
 * a process exits (or closes its ring, or execs) with 16 READs of an
 * empty pipe in flight (8 on workers, 8 queued behind them), with a
 * flood of 128 reads on a CQ of 64, with reads a writer is completing
 * while it ends, with a second thread's requests, and with reads each
 * hard-linked to a write when a child's exit drops the ring's last
 * reference (its cancel of a read must not run the write there: not its
 * request, and its files are gone); afterwards the
 * kernel's counters (files, inodes: a ring is two) are where they were.
 * The counters are fdkernel's /proc/kstat: on Linux only the results. */
#define _GNU_SOURCE
#include "uring_raw.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "robust.h"
#include "testutil.h"

#define NREADS 16

static char bufs[NREADS][4];

/* n READs of fd p0 on ring r (offset -1: the pipe's), submitted. */
static long submit_reads(struct uring *r, int p0, int n)
{
	for (int i = 0; i < n; i++)
		if (!uring_prep(r, IORING_OP_READ, p0, (uint64_t)bufs[i % NREADS], 4, UINT64_MAX,
				(uint64_t)i))
			break;
	return uring_submit_wait(r, 0);
}

enum end { END_EXIT, END_CLOSE, END_EXEC, END_WRITER, END_FLOOD, END_THREAD, END_CHAIN };

/* n chains on ring r: a READ of the empty pipe p0, waiting,
 * IOSQE_IO_HARDLINK to a WRITE into p1; submitted. */
static long submit_chains(struct uring *r, int p0, int p1, int n)
{
	struct io_uring_sqe *sqe;

	for (int i = 0; i < n; i++) {
		if (!(sqe = uring_prep(r, IORING_OP_READ, p0, (uint64_t)bufs[i % NREADS], 4,
				       UINT64_MAX, (uint64_t)i)))
			break;
		sqe->flags |= IOSQE_IO_HARDLINK;
		if (!uring_prep(r, IORING_OP_WRITE, p1, (uint64_t) "abcd", 4, UINT64_MAX,
				(uint64_t)(100 + i)))
			break;
	}
	return uring_submit_wait(r, 0);
}

static const char *self_path;
static int tp[2];
static struct uring *tr; /* the child's ring, for its thread */

static void *thread_reads(void *arg)
{
	(void)arg;
	submit_reads(tr, tp[0], NREADS);
	return NULL;
}

/* The child: a ring, a pipe, reads in flight, then its end. */
static void child(enum end how)
{
	struct uring r;
	int p[2];
	long n;

	if (uring_init(&r, 2 * NREADS, 0) || pipe(p))
		_exit(2);
	switch (how) {
	case END_FLOOD: /* 128 reads in flight, a CQ of 2 * 32 */
		for (n = 0; n < 8 && submit_reads(&r, p[0], NREADS) > 0; n++)
			;
		break;
	case END_WRITER: /* reads complete while the process ends */
		if (submit_reads(&r, p[0], NREADS) != NREADS)
			_exit(3);
		if (fork() == 0) {
			for (int i = 0; i < 64; i++)
				write(p[1], "abcd", 4);
			_exit(0);
		}
		break;
	case END_THREAD: {
		pthread_t t;
		tr = &r;
		tp[0] = p[0];
		pthread_create(&t, NULL, thread_reads, NULL);
		pthread_join(t, NULL);
		if (submit_reads(&r, p[0], 4) != 4)
			_exit(3);
		break;
	}
	case END_CHAIN: { /* the last reference goes with a child's exit */
		int sync[2];
		char c;
		if (submit_chains(&r, p[0], p[1], NREADS / 2) != NREADS || pipe(sync))
			_exit(3);
		if (fork() == 0) {
			close(sync[1]);
			read(sync[0], &c, 1); /* until its parent closed its ring */
			_exit(0);
		}
		close(r.fd);
		close(sync[1]);
		while (wait(NULL) > 0)
			;
		break;
	}
	default:
		if (submit_reads(&r, p[0], NREADS) != NREADS)
			_exit(3);
	}
	if (how == END_CLOSE)
		close(r.fd);
	if (how == END_EXEC)
		execl(self_path, self_path, "exit0", (char *)NULL);
	_exit(0);
}

static int run(enum end how)
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		child(how);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	while (wait(NULL) > 0) /* END_WRITER's writer, orphaned to us */
		;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	static const char *what[] = {
	    "exit with 16 reads in flight (8 queued)",
	    "the ring closed with 16 reads in flight, then exit",
	    "exec with 16 reads in flight",
	    "exit while a writer completes the reads",
	    "exit with 128 reads in flight on a CQ of 64",
	    "exit with a finished thread's 16 reads and 4 of its own in flight",
	    "a child's exit drops the ring, 8 reads each hard-linked to a write in flight"};
	struct kstat before;
	bool have;

	if (argc > 1 && !strcmp(argv[1], "exit0"))
		return 0;
	self_path = argv[0];
	/* END_WRITER's writer outlives its parent: as a subreaper this
	 * process gets it, and run() reaps it before the counts are read. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	plan(14);
	run(END_EXIT); /* warm-up: the first ring's slab pages */
	for (int how = END_EXIT; how <= END_CHAIN; how++) {
		have = kstat_read(&before);
		is_int(run((enum end)how), 0, "%s", what[how]);
		kstat_unchanged(&before, have, "and nothing of it is left");
	}
	return done();
}
