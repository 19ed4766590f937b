/* Lifetimes under fire: several processes each fork many children and kill
 * and reap them in hostile orders (killed while others exit, reaped by pid
 * out of order and by -1, zombie leaders whose last thread exits later,
 * zombies orphaned to init), while another process looks the same pids up
 * (kill 0, getpgid, getpriority, sched_getaffinity, /proc/<pid>/stat) as
 * they exit and are freed.  Every child must be reaped once with its own
 * status, every lookup answer a live task or ESRCH, nothing leak. */
#include "robust.h"
#include "thread.h"

#define MANAGERS 3
#define ROUNDS	 4
#define KIDS	 24 /* per round: four kinds, six of each */

enum kind {
	EXITS,	       /* _exit(code) at once */
	BLOCKS,	       /* sleeps until SIGKILL */
	LEADER_FIRST,  /* the leader thread exits; a second thread exit_groups */
	ORPHANS_ZOMBIE /* leaves an exited child of its own, then sleeps until SIGKILL */
};

static int code_of(int i)
{
	return 1 + i % 100;
}

static int late_exit(void *arg)
{
	for (int i = 0; i < 20; i++)
		thread_sys(__NR_sched_yield, 0, 0, 0);
	thread_sys(__NR_exit_group, (long)arg, 0, 0);
	return 0;
}

/* The child's life; never returns. */
static void child(enum kind k, int i, int block_fd)
{
	static struct thread t;
	char c;

	switch (k) {
	case EXITS:
		_exit(code_of(i));
	case LEADER_FIRST:
		if (thread_start(&t, late_exit, (void *)(long)code_of(i)) < 0)
			_exit(code_of(i));
		thread_sys(__NR_exit, 0, 0, 0); /* this thread only */
		_exit(127);			/* not reached */
	case ORPHANS_ZOMBIE:
		if (fork() == 0)
			_exit(0);
		/* fall through */
	case BLOCKS:
		read(block_fd, &c, 1); /* no writer ever writes */
		_exit(126);
	}
	_exit(125);
}

/* One round: true if each child was reaped once with the status its kind
 * gives.  Order: kill the blocking ones from the last down while the
 * others exit, reap half by pid from the end, the rest with -1. */
static bool round_of_kids(int block_fd)
{
	pid_t pids[KIDS];
	bool seen[KIDS] = {false};
	int good = 0, status;

	fflush(stdout);
	for (int i = 0; i < KIDS; i++) {
		if ((pids[i] = fork()) == 0)
			child((enum kind)(i % 4), i, block_fd);
		if (pids[i] < 0)
			return false;
	}
	for (int i = KIDS - 1; i >= 0; i--)
		if (i % 4 == BLOCKS || i % 4 == ORPHANS_ZOMBIE)
			kill(pids[i], SIGKILL);
	for (int n = 0; n < KIDS; n++) {
		pid_t want = n < KIDS / 2 ? pids[KIDS - 1 - n] : -1;
		pid_t pid = waitpid(want, &status, 0);
		for (int i = 0; i < KIDS; i++) {
			bool killed = i % 4 == BLOCKS || i % 4 == ORPHANS_ZOMBIE;
			if (pid != pids[i] || seen[i])
				continue;
			seen[i] = true;
			good +=
			    killed ? killed_by(status, SIGKILL) : exited_with(status, code_of(i));
		}
	}
	return good == KIDS;
}

static void manager(int block_fd)
{
	bool all = true;
	for (int r = 0; r < ROUNDS; r++)
		all &= round_of_kids(block_fd);
	_exit(all && waitpid(-1, NULL, WNOHANG) < 0 ? 0 : 1);
}

/* A lookup's answer is a task (0 or a value) or "no such one". */
static bool fine(long ret)
{
	return ret >= 0 || ret == -ESRCH || ret == -EPERM; /* EPERM: the host's other users */
}

/* One pass of lookups over pids [lo, hi): true if each answered fine. */
static bool probe_pass(int lo, int hi)
{
	bool good = true;
	char path[64], buf[512];
	uint64_t mask[16];

	for (int pid = lo; pid < hi; pid++) {
		good &= fine(thread_sys(__NR_kill, pid, 0, 0));
		good &= fine(thread_sys(__NR_getpgid, pid, 0, 0));
		good &= fine(thread_sys(__NR_getpriority, 0 /* PRIO_PROCESS */, pid, 0));
		good &= fine(thread_sys(__NR_sched_getaffinity, pid, sizeof mask, mask));
		snprintf(path, sizeof path, "/proc/%d/stat", pid);
		int fd = open(path, O_RDONLY);
		if (fd < 0) {
			good &= errno == ENOENT || errno == ESRCH;
			continue;
		}
		good &= read(fd, buf, sizeof buf) >= 0 || errno == ESRCH;
		close(fd);
	}
	return good;
}

/* Probes the pids near its own until stop_fd reads EOF; exits 0 if every
 * answer was fine and it made at least one pass while children lived. */
static void prober(int stop_fd, int base)
{
	bool good = true;
	int passes = 0;
	char c;

	fcntl(stop_fd, F_SETFL, O_NONBLOCK);
	while (read(stop_fd, &c, 1) < 0 && errno == EAGAIN) {
		good &= probe_pass(base, base + MANAGERS * KIDS * 2 + 16);
		passes++;
	}
	_exit(good && passes > 0 ? 0 : 1);
}

int main(int argc, char **argv)
{
	struct kstat before;
	int block[2], stop[2], status, managers_ok = 0;
	pid_t m[MANAGERS], probe;
	(void)argc;

	bool have_before = kstat_read(&before);
	plan(6);
	require(pipe(block) == 0 && pipe(stop) == 0, "pipes");
	fflush(stdout);
	if ((probe = fork()) == 0) {
		close(stop[1]);
		prober(stop[0], getpid());
	}
	require(probe > 0, "fork the prober");
	close(stop[0]);
	for (int i = 0; i < MANAGERS; i++) {
		if ((m[i] = fork()) == 0) {
			close(stop[1]);
			manager(block[0]);
		}
		require(m[i] > 0, "fork a manager");
	}
	for (int i = 0; i < MANAGERS; i++)
		managers_ok += waitpid(m[i], &status, 0) == m[i] && exited_with(status, 0);
	ok(managers_ok == MANAGERS,
	   "%d processes x %d rounds x %d children killed, exiting and reaped in hostile "
	   "orders: each reaped once, with its status",
	   MANAGERS, ROUNDS, KIDS);
	close(stop[1]);
	ok(waitpid(probe, &status, 0) == probe && exited_with(status, 0),
	   "another process's lookups of the same pids meanwhile: a task or ESRCH, every time");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left");
	close(block[0]);
	close(block[1]);
	sleep_ms(200); /* init reaps the orphaned zombies */
	system_usable(argv[0], "the races");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
