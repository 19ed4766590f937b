/* The fuzzer's parent: keeps the workers running, reads their reports,
 * kills the stalled, retires the exited and checks the counters after
 * each.  Included by fuzz.c only, after fuzz_worker.h. */
#ifndef FUZZ_PARENT_H
#define FUZZ_PARENT_H

enum slot_state { FREE, RUNNING, EXITED };

struct slot {
	enum slot_state state;
	pid_t pid;
	uint64_t seed;
	long budget, reported, progress_ms, exited_ms;
};

static struct run {
	uint64_t seed;
	long calls, done, workers, killed, lost_groups, attempts, bad_bytes;
	bool escalation_named[NESCALATIONS + 1]; /* [NESCALATIONS]: raised ids */
	long findings[NFINDINGS];
	long played[NCLASSES]; /* scenarios that ended, by class */
	/* Deaths by a fault's signal (by number) of the processes the parent
	 * reaps: the workers and the orphans of the args fuzzing, which jumps
	 * through what it draws (rt_sigreturn of a frame of stack words,
	 * rt_sigaction of a handler below 64).  A scenario's are findings. */
	long args_faults[65];
	int setup_failures; /* in a row */
	int report_fd, report_read_fd;
	int nworkers;
	char classes[256]; /* as given: "all" or names */
	bool have_before;
	struct kstat before, last; /* at the start; after the last worker */
	struct slot slot[MAX_WORKERS];
} run;

/* The calls still owed to the total by running workers. */
static long calls_pending(void)
{
	long n = 0;
	for (int i = 0; i < run.nworkers; i++)
		if (run.slot[i].state == RUNNING && run.slot[i].budget > run.slot[i].reported)
			n += run.slot[i].budget - run.slot[i].reported;
	return n;
}

static void start_worker(int i)
{
	struct slot *s = &run.slot[i];
	long budget = run.calls - run.done - calls_pending();
	uint64_t seed = run.seed + (uint64_t)run.workers; /* replay: fuzz SEED N 1 */
	budget = budget < WORKER_CALLS ? budget : WORKER_CALLS;
	if (budget <= 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(run.report_fd, REPORT_FD);
		close(run.report_fd);
		close(run.report_read_fd);
		run_worker(i, seed, budget);
	}
	if (pid < 0)
		return; /* out of processes or memory for now: try again later */
	raw_call(__NR_setpgid, pid, pid, 0); /* also done by the child: whichever runs first */
	*s = (struct slot){RUNNING, pid, seed, budget, 0, now_ms(), 0};
	run.workers++;
}

/* A finding is named once, with its class and the seed that replays it;
 * all are counted. */
static void count_finding(const struct report *r, const struct slot *s)
{
	if (run.findings[r->finding]++ == 0)
		diag("finding: %s (class %s, worker seed %llu)", finding_text[r->finding],
		     classes[r->playing].name, (unsigned long long)s->seed);
}

/* An escalation that was not refused as on Linux, named once. */
static void name_escalation(const struct report *r)
{
	size_t i = r->which < 0 ? NESCALATIONS : (size_t)r->which;

	if ((r->finding != F_ESCALATED && r->finding != F_ESCALATION_ERRNO) || i > NESCALATIONS ||
	    run.escalation_named[i])
		return;
	run.escalation_named[i] = true;
	diag("escalation: %s: %s (result %d)",
	     i < NESCALATIONS ? escalations[i].what : "ids raised", finding_text[r->finding],
	     r->result);
}

/* Whether a report holds what a worker can send: the args fuzzing may
 * write anything to REPORT_FD now and then, and the parent indexes its
 * tables with these fields. */
static bool report_valid(const struct report *r)
{
	return r->magic == REPORT_MAGIC && r->worker >= 0 && r->worker < run.nworkers &&
	       r->calls >= 0 && r->calls <= REPORT_EVERY && r->finding >= 0 &&
	       r->finding < NFINDINGS && r->playing >= 0 && r->playing < (int)NCLASSES &&
	       (r->played == 0 || r->played == 1) && r->attempts >= 0 &&
	       r->attempts <= (int)NESCALATIONS && r->which >= -1 && r->which < (int)NESCALATIONS;
}

static void take_report(const struct report *r)
{
	struct slot *s = &run.slot[r->worker];

	run.done += r->calls;
	run.attempts += r->attempts;
	name_escalation(r);
	s->reported += r->calls;
	s->progress_ms = now_ms();
	if (r->finding != F_NONE)
		count_finding(r, s);
	run.played[r->playing] += r->played == 1;
}

/* Calls made, findings, and (calls 0) a scenario's keep-alive.  A read may
 * end inside a report (a write the reader met half done): the rest is kept
 * for the next read.  Bytes the args fuzzing wrote to the pipe are skipped
 * one at a time until a valid report starts again. */
static void read_reports(void)
{
	static char buf[64 * sizeof(struct report)];
	static size_t have;
	struct report r;
	ssize_t n;

	while ((n = read(run.report_read_fd, buf + have, sizeof buf - have)) > 0) {
		size_t used = 0;
		for (have += (size_t)n; have - used >= sizeof r;) {
			memcpy(&r, buf + used, sizeof r);
			if (!report_valid(&r)) {
				run.bad_bytes++, used++;
				continue;
			}
			take_report(&r);
			used += sizeof r;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
	}
}

/* Workers that cannot even set up mean the system is broken: the run ends
 * after SETUP_RETRIES of them in a row. */
static void count_setup_failure(int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) < SETUP_FAILED) {
		run.setup_failures = 0;
		return;
	}
	if (++run.setup_failures == SETUP_RETRIES)
		diag("%d workers in a row failed to set up (exit status %d): giving up",
		     SETUP_RETRIES, WEXITSTATUS(status));
}

/* Reap whatever has exited: workers, and orphans when we are init. */
static void reap(void)
{
	pid_t pid;
	int status;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (fault_death(status))
			run.args_faults[WTERMSIG(status)]++;
		for (int i = 0; i < run.nworkers; i++)
			if (run.slot[i].state == RUNNING && run.slot[i].pid == pid) {
				run.slot[i].state = EXITED;
				run.slot[i].exited_ms = now_ms();
				count_setup_failure(status);
			}
	}
}

/* The AF_UNIX garbage collector runs when a unix socket closes, as Linux's;
 * cycles that became garbage while it ran wait for the next close: make
 * one before the counters are read. */
static void collect_unix_garbage(void)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0)
		close(sv[0]), close(sv[1]);
}

/* With one worker at a time the counters must be back after each worker,
 * so a leak is pinned to its seed. */
static void check_worker_leaks(const struct slot *s)
{
	char who[64];
	struct kstat now;
	if (run.nworkers != 1 || !run.have_before)
		return;
	collect_unix_garbage();
	if (!kstat_read(&now))
		return;
	snprintf(who, sizeof who, "worker seed %llu leaked: ", (unsigned long long)s->seed);
	kstat_same(&run.last, &now, who);
	run.last = now; /* report each leak once */
}

/* A worker that exited has its group killed; once the group is gone its
 * directory goes and the slot is free again. */
static void retire(struct slot *s)
{
	char dir[32];
	kill(-s->pid, SIGKILL);
	if (kill(-s->pid, 0) == 0 && now_ms() - s->exited_ms < GROUP_WAIT_MS)
		return;
	if (kill(-s->pid, 0) == 0) {
		diag("worker %d: its process group survived SIGKILL", (int)s->pid);
		run.lost_groups++;
	}
	worker_dir(s->pid, dir, sizeof dir);
	remove_tree(dir);
	ipc_sweep(); /* System V objects outlive their makers */
	s->state = FREE;
	check_worker_leaks(s);
}

/* One pass over the slots: kill the stalled, retire the exited, refill. */
static bool supervise(void)
{
	bool busy = false;
	for (int i = 0; i < run.nworkers; i++) {
		struct slot *s = &run.slot[i];
		if (s->state == RUNNING && now_ms() - s->progress_ms > STALL_MS) {
			kill(-s->pid, SIGKILL);
			s->progress_ms = now_ms(); /* once per stall */
			run.killed++;
		}
		if (s->state == EXITED)
			retire(s);
		if (s->state == FREE && run.setup_failures < SETUP_RETRIES)
			start_worker(i);
		busy |= s->state != FREE;
	}
	return busy;
}

/* A line every PROGRESS_MS, so a long run shows it is alive. */
static void show_progress(long *next)
{
	if (now_ms() < *next)
		return;
	*next = now_ms() + PROGRESS_MS;
	struct kstat ks = {{0}};
	kstat_read(&ks);
	diag("progress: %ld calls, %ld workers started, %ld killed by the watchdog; "
	     "frames_free %ld tasks %ld files %ld inodes %ld",
	     run.done, run.workers, run.killed, ks.v[KS_FRAMES_FREE], ks.v[KS_TASKS],
	     ks.v[KS_FILES], ks.v[KS_INODES]);
}

static void fuzz_all(void)
{
	long next_progress = now_ms() + PROGRESS_MS;
	int fds[2];
	require(pipe(fds) == 0, "the report pipe");
	require(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0, "a non-blocking report pipe");
	kstat_read(&run.last); /* the pipe's files count from now on */
	run.report_read_fd = fds[0];
	run.report_fd = fds[1];
	do {
		sleep_ms(5);
		read_reports();
		reap();
		show_progress(&next_progress);
	} while (supervise());
	read_reports();
	close(fds[0]);
	close(fds[1]);
}

#endif
