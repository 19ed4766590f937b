/* syscall_indirect(SYSIND_ASYNC): a token at once, the (token, result)
 * record in the sysind_queue fd once a worker has run the call: read,
 * write, accept (with NONSEQFD and CLOEXEC applied to its fd), nanosleep,
 * wait4, futex; the queue under poll and epoll; the errors; a full queue
 * (EAGAIN), a process's calls over all its queues bounded (EAGAIN), a
 * child's calls on a shared queue cancelled by its exit, whole records
 * to a read, a thread's calls ended by its exit, a queue closed (by
 * itself too, through one of its calls) and an exec with calls
 * outstanding.  On Linux the calls (not the queue's own errors, bound
 * and exec) run through ind_async.h's stand-in, SOCK_CLOEXEC for the
 * per-call CLOEXEC: the same results, Linux's. */
#define _GNU_SOURCE
#include "ind_async.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "testutil.h"

#define FUTEX_WAIT_PRIVATE 128 /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG (musl has no linux/futex.h) */
#define FUTEX_WAKE_PRIVATE 129

static void check_basics(int q)
{
	int p[2];
	char buf[8] = {0};
	long tok;
	struct sysind_completion c;

	require(!pipe(p), "a pipe");
	tok = ASYNC(0, q, SYS_read, (unsigned long)p[0], (unsigned long)buf, 5);
	ok(tok > 0, "async read of an empty pipe: a token at once (%ld)", tok);
	ok(!readable(q, 20), "no record while it waits");
	is_int(write(p[1], "hello", 5), 5, "a writer comes");
	c = next_rec(q);
	ok((long)c.token == tok && c.result == 5 && !memcmp(buf, "hello", 5),
	   "its record: the token, 5, the bytes in the buffer");
	tok = ASYNC(0, q, SYS_write, (unsigned long)p[1], (unsigned long)"abc", 3);
	c = next_rec(q);
	ok((long)c.token == tok && c.result == 3 && read(p[0], buf, 3) == 3, "async write: 3");
	tok = ASYNC(0, q, SYS_nanosleep, (unsigned long)&(struct timespec){0, 10000000}, 0);
	c = next_rec(q);
	ok((long)c.token == tok && c.result == 0, "async nanosleep of 10 ms: 0");
	tok = ASYNC(0, q, SYS_read, 999, (unsigned long)buf, 1);
	c = next_rec(q);
	ok((long)c.token == tok && c.result == -EBADF,
	   "async read of a closed fd: EBADF in its record");
	close(p[0]);
	close(p[1]);
}

static void check_accept(int q)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = socket(AF_INET, SOCK_STREAM, 0);
	long tok;
	struct sysind_completion c;

	require(!bind(lfd, (struct sockaddr *)&a, sizeof(a)) && !listen(lfd, 1) &&
		    !getsockname(lfd, (struct sockaddr *)&a, &alen),
		"a listener");
	tok = on_fdkernel() ? ASYNC(SYSIND_NONSEQFD | SYSIND_CLOEXEC, q, SYS_accept4,
				    (unsigned long)lfd, 0, 0, 0)
			    : ASYNC(0, q, SYS_accept4, (unsigned long)lfd, 0, 0, SOCK_CLOEXEC);
	ok(tok > 0 && !readable(q, 20), "async accept waits for a client");
	require(!connect(cfd, (struct sockaddr *)&a, sizeof(a)), "connect");
	c = next_rec(q);
	ok((long)c.token == tok && c.result >= 0 && (c.result >= NONSEQ_FD_BASE || !on_fdkernel()),
	   "the record: the connection's fd, in the non-sequential area (NONSEQFD, fdkernel)");
	ok(c.result >= 0 && fcntl((int)c.result, F_GETFD) == FD_CLOEXEC,
	   "and close-on-exec (CLOEXEC)");
	close((int)c.result);
	close(cfd);
	close(lfd);
}

static void check_wait_futex(int q)
{
	static int word;
	int status = 0;
	long tok;
	struct sysind_completion c;
	pid_t pid = fork();

	if (pid == 0) {
		sleep_ms(10);
		_exit(7);
	}
	tok = ASYNC(0, q, SYS_wait4, (unsigned long)pid, (unsigned long)&status, 0, 0);
	c = next_rec(q);
	ok((long)c.token == tok && c.result == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7,
	   "async wait4: the child's pid and exit status");
	tok = ASYNC(0, q, SYS_futex, (unsigned long)&word, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
	ok(!readable(q, 20), "async FUTEX_WAIT waits");
	while (!readable(q, 10))
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
	c = next_rec(q);
	ok((long)c.token == tok && c.result == 0, "FUTEX_WAKE ends it: 0");
}

static void check_epoll(int q)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	long tok;

	require(ep >= 0 && !epoll_ctl(ep, EPOLL_CTL_ADD, q, &ev), "epoll");
	tok = ASYNC(0, q, SYS_nanosleep, (unsigned long)&(struct timespec){0, 1000000}, 0);
	ok(epoll_wait(ep, &out, 1, -1) == 1 && (out.events & EPOLLIN),
	   "epoll sees the record come");
	ok((long)next_rec(q).token == tok, "which is the call's");
	close(ep);
}

static void check_errors(int q)
{
	int p[2];
	char small[8];

	require(!pipe(p), "a pipe");
	is_int(syscall(__NR_sysind_queue, 1) < 0 ? -errno : 0, -EINVAL, "sysind_queue(1): EINVAL");
	is_int(ASYNC(0, -1, SYS_read, 0, 0, 0), -EBADF, "queue fd -1: EBADF");
	is_int(ASYNC(0, p[0], SYS_read, 0, 0, 0), -EINVAL, "a pipe as the queue: EINVAL");
	is_int(ASYNC(0, q, SYS_getpid), -EINVAL, "a call that cannot run on a worker: EINVAL");
	is_int(ASYNC(0, q, SYS_exit_group, 0), -EINVAL, "exit_group: EINVAL");
	is_int(ASYNC(0, q, 5000), -ENOSYS, "an unknown call: ENOSYS");
	is_int(async_call(0, q, SYS_read, (const unsigned long *)8), -EFAULT,
	       "unreadable arguments: EFAULT");
	is_int(syscall(__NR_syscall_indirect, SYSIND_ASYNC, (uint64_t)1, SYS_read,
		       (const unsigned long[6]){0}, q) < 0
		   ? -errno
		   : 0,
	       -EINVAL, "a mask without SYSIND_SIGMASK: EINVAL");
	is_int(read(q, small, 8) < 0 ? -errno : 0, -EINVAL, "reading less than a record: EINVAL");
	int nq = (int)syscall(__NR_sysind_queue, O_NONBLOCK | O_CLOEXEC);
	is_int(read(nq, small, 16) < 0 ? -errno : 0, -EAGAIN, "an empty O_NONBLOCK queue: EAGAIN");

	/* 256 reads of an empty pipe fill a queue; the next is EAGAIN. */
	long last = 0;
	int n = 0;
	while ((last = ASYNC(0, nq, SYS_read, (unsigned long)p[0], (unsigned long)small, 1)) > 0)
		n++;
	ok(n == 256 && last == -EAGAIN, "a queue holds 256 calls, then EAGAIN (%d)", n);
	is_int(close(nq), 0, "closing it with 256 calls outstanding cancels them");
	close(p[0]);
	close(p[1]);
}

/* The bound is per process, over all its queues: four full queues hold
 * its 1024 calls (check_errors's closed queue gave back its calls, the
 * running ones too, when it closed), a fifth takes none; another process (a child) still
 * can, on the same queue, and its exit cancels its own call only; a
 * closed queue gives its calls back. */
static void check_flood(void)
{
	static char b[1];
	int p[2], q[5], n = 0, st;
	long tok, last = 0;
	pid_t pid;

	require(!pipe(p), "a pipe");
	for (int i = 0; i < 5; i++) {
		require((q[i] = (int)syscall(__NR_sysind_queue, O_CLOEXEC)) >= 0, "a queue");
		while ((last = ASYNC(0, q[i], SYS_read, (unsigned long)p[0], (unsigned long)b, 1)) >
		       0)
			n++;
	}
	ok(n == 1024 && last == -EAGAIN,
	   "1024 calls outstanding over 4 queues, then EAGAIN on an empty fifth (%d)", n);
	tok = ASYNC(0, q[0], SYS_nanosleep, (unsigned long)&(struct timespec){0, 1000}, 0);
	is_int(tok, -EAGAIN, "and on a queue with room left");
	tok = ASYNC(0, q[4], SYS_read, (unsigned long)p[0], (unsigned long)b, 1);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		long t = ASYNC(0, q[4], SYS_read, (unsigned long)p[0], (unsigned long)b, 1);
		_exit(t > 0 ? 0 : 1);
	}
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	   "a child (another process) submits on the fifth queue");
	struct sysind_completion c = next_rec(q[4]);
	ok((c.result == -ECANCELED || c.result == -EINTR) && (long)c.token != tok,
	   "its exit ends its call: ECANCELED or EINTR in the shared queue (%ld)", (long)c.result);
	ok(!readable(q[4], 20), "the parent's calls go on waiting");
	close(q[0]);
	tok = ASYNC(0, q[4], SYS_read, (unsigned long)p[0], (unsigned long)b, 1);
	ok(tok > 0, "a closed queue gives its 256 calls back: a token");
	for (int i = 1; i < 5; i++)
		close(q[i]);
	close(p[0]);
	close(p[1]);
}

static int thread_q, thread_p;

/* A thread's call on its way out: read of an empty pipe. */
static void *submit_and_exit(void *arg)
{
	static char b[1];

	*(long *)arg = ASYNC(0, thread_q, SYS_read, (unsigned long)thread_p, (unsigned long)b, 1);
	return NULL;
}

/* A read returns whole records only, as many as fit; a thread's calls
 * end with the thread (they are its engine's), the process going on. */
static void check_records_threads(int q)
{
	struct sysind_completion r[2];
	long tok[3], seen = 0, got = 0;
	int p[2];
	pthread_t t;

	for (int i = 0; i < 3; i++)
		tok[i] = ASYNC(0, q, SYS_read, 999, 0, 0);
	while (got < 3 && readable(q, -1)) {
		ssize_t n = read(q, r, 40); /* room for 2.5 records */
		if (n <= 0 || n % 16 || n > 32)
			break;
		for (int i = 0; i < n / 16; i++, got++)
			for (int j = 0; j < 3; j++)
				seen |= ((long)r[i].token == tok[j] && r[i].result == -EBADF) << j;
	}
	ok(got == 3 && seen == 7,
	   "three records read 40 bytes at a time: whole ones only, each call's once");
	require(!pipe(p), "a pipe");
	thread_q = q;
	thread_p = p[0];
	ok(!pthread_create(&t, NULL, submit_and_exit, &tok[2]) && !pthread_join(t, NULL) &&
	       tok[2] > 0,
	   "a thread submits a read of an empty pipe and exits");
	struct sysind_completion c = next_rec(q);
	ok((long)c.token == tok[2] && (c.result == -ECANCELED || c.result == -EINTR),
	   "its exit ended its call: ECANCELED or EINTR (%ld)", (long)c.result);
	close(p[0]);
	close(p[1]);
}

/* A hostile order: a queue closed by its own asynchronous call (the
 * worker runs the queue's release inside that call, which the release
 * then cancels: its record is dropped). */
static void check_self_close(void)
{
	int q = async_queue(0);
	long tok = ASYNC(0, q, SYS_close, (unsigned long)q);

	while (tok > 0 && fcntl(q, F_GETFD) >= 0) /* until its worker ran it */
		sleep_ms(5);
	ok(tok > 0 && fcntl(q, F_GETFD) < 0 && errno == EBADF,
	   "a queue's async close of itself: the fd goes, the record with it");
}

/* A child's thread submits reads of an empty pipe, each spawning a
 * worker, while its main thread ends the process (exit_group) after the
 * first few: the engine dies, its workers exiting, while the thread
 * spawns the next.  A worker's exit moved the slot reserved for the one
 * being spawned, which then took a live worker's: the exit faulted on
 * the slot left empty (fdkernel's; on Linux the stand-in's threads).
 * Every child must simply exit with its status. */
static volatile long nsubmitted;

static void *submit_reads(void *arg)
{
	static char b[1];
	int *pq = arg;

	for (int i = 0; i < 12; i++) {
		ASYNC(0, pq[2], SYS_read, (unsigned long)pq[0], (unsigned long)b, 1);
		__atomic_add_fetch(&nsubmitted, 1, __ATOMIC_RELEASE);
	}
	while (pause() < 0) /* until the exit_group */
		;
	return NULL;
}

static void check_exit_while_spawning(void)
{
	int rounds = 40, exited = 0, st;

	for (int r = 0; r < rounds; r++) {
		pid_t pid;

		fflush(stdout);
		if ((pid = fork()) == 0) {
			int pq[3];
			pthread_t t;

			if (pipe(pq) || (pq[2] = async_queue(0)) < 0 ||
			    pthread_create(&t, NULL, submit_reads, pq))
				_exit(1);
			while (__atomic_load_n(&nsubmitted, __ATOMIC_ACQUIRE) < 1 + r % 6)
				;
			syscall(SYS_exit_group, 7);
		}
		exited += waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7;
	}
	ok(exited == rounds,
	   "exit_group while another thread's calls spawn workers: %d of %d exited", exited,
	   rounds);
}

static void check_exec(const char *self)
{
	int st, p[2];
	pid_t pid;

	require(!pipe(p), "a pipe");
	if ((pid = fork()) == 0) {
		int q = (int)syscall(__NR_sysind_queue, 0);
		static char b[4];
		for (int i = 0; i < 4; i++)
			ASYNC(0, q, SYS_read, (unsigned long)p[0], (unsigned long)b, 1);
		execl(self, self, "exit0", (char *)NULL);
		_exit(3);
	}
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	   "exec with 4 async reads outstanding");
	close(p[0]);
	close(p[1]);
}

int main(int argc, char **argv)
{
	int q;

	if (argc > 1 && !strcmp(argv[1], "exit0"))
		return 0;
	plan(on_fdkernel() ? 40 : 17);
	q = async_queue(O_CLOEXEC);
	ok(q >= 0 && fcntl(q, F_GETFD) == FD_CLOEXEC,
	   "sysind_queue(O_CLOEXEC): a close-on-exec fd");
	check_basics(q);
	check_accept(q);
	check_wait_futex(q);
	check_epoll(q);
	check_exit_while_spawning();
	if (on_fdkernel()) { /* the queue's own ABI */
		check_errors(q);
		check_flood();
		check_records_threads(q);
		check_self_close();
		check_exec(argv[0]);
	}
	close(q);
	return done();
}
