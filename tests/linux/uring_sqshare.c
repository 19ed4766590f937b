/* io_uring SQ threads as Linux has them: the thread of an SQPOLL ring
 * belongs to the process, not to the thread that set the ring up (that
 * thread exits, the ring goes on working); a ring set up with
 * IORING_SETUP_ATTACH_WQ naming an SQPOLL ring of the same process
 * shares its thread (no new task; its SQEs consumed; the first ring
 * closed, the second goes on; the thread ends with the last ring), and
 * one of another process (a fork's child) gets a thread of its own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>

#include "robust.h"
#include "testutil.h"
#include "uring_raw.h"

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The tasks there are: the process's threads on Linux (its SQ threads
 * among them, in /proc/self/task), the system's in fdkernel (its leak
 * counter; nothing else runs meanwhile). */
static long tasks(void)
{
	struct kstat ks;
	struct dirent *d;
	DIR *dir;
	long n = 0;

	if (on_fdkernel())
		return kstat_read(&ks) ? ks.v[KS_TASKS] : -1;
	if (!(dir = opendir("/proc/self/task")))
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

/* An SQPOLL ring idle after 20 ms, attached to wq_fd's thread if >= 0:
 * 0 or -errno. */
static int sqpoll_init(struct uring *r, int wq_fd)
{
	long fd;

	memset(r, 0, sizeof(*r));
	r->p.flags = IORING_SETUP_SQPOLL | (wq_fd >= 0 ? IORING_SETUP_ATTACH_WQ : 0);
	r->p.wq_fd = wq_fd >= 0 ? (uint32_t)wq_fd : 0;
	r->p.sq_thread_idle = 20;
	if ((fd = uring_setup_raw(8, &r->p)) < 0)
		return (int)fd;
	r->fd = (int)fd;
	return uring_map(r);
}

/* A NOP published with no submission (the thread wakes if it said it
 * sleeps): its CQE's res, -errno if io_uring_enter failed, -9999 for a
 * CQE that is not its. */
static int sq_nop(struct uring *r, uint64_t data)
{
	struct io_uring_cqe c;
	long err;

	uring_prep(r, IORING_OP_NOP, -1, 0, 0, 0, data);
	__atomic_store_n(r->sq_tail, r->sq_local, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* liburing's io_uring_smp_mb */
	if ((load(r->sq_flags) & IORING_SQ_NEED_WAKEUP) &&
	    (err = uring_enter_raw(r->fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0)) < 0)
		return (int)err;
	if ((err = uring_wait(r, &c)))
		return (int)err;
	return c.user_data == data ? c.res : -9999;
}

static struct uring made;

static void *make_ring(void *arg)
{
	(void)arg;
	return (void *)(long)sqpoll_init(&made, -1);
}

/* The thread that set the ring up exits: its SQ thread stays, the ring
 * works (Linux's SQ thread is the process's). */
static void check_creator_exit(void)
{
	long base = tasks();
	pthread_t t;
	void *ret;

	require(!pthread_create(&t, NULL, make_ring, NULL) && !pthread_join(t, &ret) && !ret,
		"a thread sets up an SQPOLL ring and exits");
	ok(WAIT_UNTIL(tasks() == base + 1), "its SQ thread outlives it: one task more");
	is_int(sq_nop(&made, 1), 0, "a NOP published afterwards is submitted by the SQ thread: 0");
	is_int(load(made.sq_head), 1, "the SQ head moved (1)");
	uring_exit(&made);
	ok(WAIT_UNTIL(tasks() == base), "the ring closed, its SQ thread ends");
}

/* ATTACH_WQ in a child process to a ring of its parent's: a thread of
 * its own, which submits. */
static void child_attach(int parent_fd)
{
	struct uring r;
	long base = tasks();

	if (sqpoll_init(&r, parent_fd) || sq_nop(&r, 9) != 0 || tasks() != base + 1)
		_exit(1);
	uring_exit(&r);
	_exit(0);
}

static void check_attach(void)
{
	long base = tasks();
	struct uring a, b;
	int status;
	pid_t pid;

	require(!sqpoll_init(&a, -1), "an SQPOLL ring A");
	ok(WAIT_UNTIL(tasks() == base + 1), "A's SQ thread: one task more");
	is_int(sqpoll_init(&b, a.fd), 0, "ring B with SQPOLL and ATTACH_WQ naming A");
	is_int(tasks(), base + 1, "B shares A's SQ thread: no task more");
	is_int(sq_nop(&b, 2), 0, "a NOP published on B: submitted (0)");
	is_int(load(b.sq_head), 1, "B's SQ head moved (1)");
	is_int(sq_nop(&a, 3), 0, "and one on A (0)");

	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0)
		child_attach(a.fd);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0),
	   "a child attaching a ring to A (another process) gets its own SQ thread, which "
	   "submits");

	uring_exit(&a);
	is_int(sq_nop(&b, 4), 0, "A closed: B's NOP still submitted (0)");
	is_int(tasks(), base + 1, "the SQ thread serves B still");
	uring_exit(&b);
	ok(WAIT_UNTIL(tasks() == base), "B closed too: the thread ends");
}

int main(void)
{
	plan(4 + 10);
	require(tasks() > 0, "a count of tasks");
	check_creator_exit();
	check_attach();
	return done();
}
