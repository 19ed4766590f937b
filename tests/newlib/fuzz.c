/* The in-guest syscall fuzzer: worker processes issue random system calls with
 * hostile arguments and play scenarios that build object graphs and tear them
 * down (fuzz_scenario.h); the kernel must not panic, hang or leak.
 * docs/robustness.md.  usage: fuzz [SEED [CALLS [WORKERS [CLASSES [unpriv]]]]];
 * as init, the same from /etc/fuzz.conf.  "unpriv": the workers drop to
 * uid 1000 after their set-up (fuzz_unpriv.h).  On Linux only the
 * scenarios play. */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fdkernel.h>

#include "robust.h"

#define DEFAULT_SEED	1
#define DEFAULT_CALLS	20000
#define CONFIG_FILE	"/etc/fuzz.conf"
#define DEFAULT_WORKERS 8 /* fuzzing at once */
#define MAX_WORKERS	16
#define WORKER_CALLS	2000		 /* budget of one worker (and all it forks) */
#define CHILD_CALLS	300		 /* budget of a process a worker forks */
#define MAX_DEPTH	2		 /* worker -> child -> grandchild */
#define MAX_CHILDREN	3		 /* live children per fuzzing process */
#define STALL_MS	300		 /* no progress for this long: killed */
#define GROUP_WAIT_MS	5000		 /* a killed group must be gone by then */
#define REPORT_FD	1000		 /* workers' progress reports, out of the fuzz's way */
#define REPORT_EVERY	32		 /* calls per progress report */
#define BUF_SIZE	65536		 /* the writable buffer; an unmapped page follows */
#define STRUCT_WORDS	64		 /* its head, refilled with pointers and sizes each call */
#define PLAYGROUND	0x200000000000UL /* mmap/munmap/brk target area */
#define TERMINAL_ODDS	64		 /* exit, exec, sigreturn...: 1 in this when picked */
#define SETUP_FAILED	200		 /* worker exit codes from here: its set-up failed */
#define SETUP_RETRIES	20		 /* set-up failures in a row that end the run */
#define PROGRESS_MS	1000		 /* progress line interval */
#define SCENARIO_CALLS	16		 /* a scenario counts as this many calls */
#define HOST_ROUNDS	8		 /* plays of each scenario on the host */
#define SCENARIO_MS	3000		 /* a scenario's time (all its waits are shorter) */
#define HUNG_FACTOR	10		 /* a scenario is hung past this many times its time */

#include "fuzz_values.h"
#include "fuzz_scenario.h"
#include "fuzz_graph.h"
#include "fuzz_cases.h"
#include "fuzz_threads.h"
#include "fuzz_uring.h"
#include "fuzz_fdnew.h"
#include "fuzz_ipc.h"
#include "fuzz_mount.h"
#include "fuzz_unpriv.h"
#include "fuzz_calls.h"
#include "fuzz_setup.h"

/* --- Scenarios: the classes, and a scenario process's life. --- */

struct fuzz_class {
	const char *name;
	void (*run)(void); /* NULL: the call-by-call fuzzing above */
	long ms;	   /* the scenario process must be done by then: else it hung */
	int odds;	   /* picked 1 time in this when drawn (costly ones) */
	bool root_only;	   /* needs root: off in the unprivileged mode */
};

/* What a class provokes (issue 13 names the bugs) is in docs/robustness.md. */
static const struct fuzz_class classes[] = {
    {"args", NULL, 0, 1, false},
    {"graph", scenario_graph, SCENARIO_MS, 1, false},
    {"cycle", scenario_cycle, SCENARIO_MS, 1, false},
    {"peerpoll", scenario_peer_poll, SCENARIO_MS, 1, false},
    {"dgramq", scenario_dgram_queue, SCENARIO_MS, 1, false},
    {"signals", scenario_signals, SCENARIO_MS, 1, false},
    {"ac", scenario_ac, SCENARIO_MS, 1, false},
    {"iov", scenario_iov, SCENARIO_MS, 1, false},
    {"ports", scenario_ports, PORT_MS + SCENARIO_MS, 32, false},
    {"listener", scenario_listener, SCENARIO_MS, 1, false},
    {"scmlimit", scenario_scm_limit, SCENARIO_MS, 1, false},
    {"wait", scenario_wait, SCENARIO_MS, 1, false},
    {"mem", scenario_mem, SCENARIO_MS, 1, false},
    {"tmpfs", scenario_tmpfs, SCENARIO_MS, 1, false},
    {"nonseq", scenario_nonseq, SCENARIO_MS, 1, false},
    {"timers", scenario_timers, SCENARIO_MS, 1, false},
    {"threads", scenario_threads, SCENARIO_MS, 1, false},
    {"memfd", scenario_memfd, SCENARIO_MS, 1, false},
    {"sysv", scenario_sysv, SCENARIO_MS, 1, false},
    {"locks", scenario_locks, SCENARIO_MS, 1, false},
    {"pidfd", scenario_pidfd, SCENARIO_MS, 1, false},
    {"inotify", scenario_inotify, SCENARIO_MS, 1, false},
    {"mounts", scenario_mounts, SCENARIO_MS, 1, true},
    {"uring", scenario_uring, SCENARIO_MS, 4, false},
    {"escalate", scenario_escalate, SCENARIO_MS, 1, false},
};

#define NCLASSES      (sizeof classes / sizeof classes[0])
#define ALL_CLASSES   ((1U << NCLASSES) - 1)
#define ARGS_CLASS    1U		     /* classes[0] */
#define SCENARIO_ODDS 8			     /* with args on: a scenario instead of a call */
#define ESCALATE_BIT  (1U << (NCLASSES - 1)) /* classes[]' last */

static unsigned enabled = ALL_CLASSES; /* bit i: classes[i]; inherited by the workers */

/* A class to play, by its odds; only one class on: always that one.  The
 * unprivileged mode plays escalate every other time. */
static const struct fuzz_class *pick_class(void)
{
	unsigned scenarios = enabled & ~ARGS_CLASS;
	if (unpriv.on && (scenarios & ESCALATE_BIT) && one_in(2))
		return &classes[NCLASSES - 1];
	for (;;) {
		size_t i = 1 + below(NCLASSES - 1);
		if (scenarios & (1U << i) &&
		    (scenarios == 1U << i || one_in((uint64_t)classes[i].odds)))
			return &classes[i];
	}
}

/* For the log: the call each thread of an overrunning scenario process
 * sleeps in, or "running" (/proc/<pid>/task/<tid>/syscall), on the console
 * (the worker's stdout is /dev/null). */
static void show_threads(pid_t pid)
{
	char path[64], line[200], out[300];
	struct dirent *de;
	int con = open("/dev/console", O_WRONLY | O_NOCTTY);
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%.12s/syscall", (int)pid, de->d_name);
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
		close(fd);
		line[n > 0 ? n : 0] = '\0';
		int len = snprintf(out, sizeof out, "# fuzz: overrun: process %d thread %s: %.*s\n",
				   (int)pid, de->d_name, (int)strcspn(line, "\n"), line);
		if (write(con, out, (size_t)len) < 0)
			break;
	}
	if (d)
		closedir(d);
	close(con);
}

/* The scenario process and its helpers are "fz-CLASS" (the workers and
 * what the args fuzzing forks stay "fuzz"): the kernel's report of a
 * fault names the class whose process took it. */
static void name_process(const char *class)
{
	char name[16];
	snprintf(name, sizeof name, "fz-%s", class);
	raw_call(__NR_prctl, 15 /* PR_SET_NAME */, (long)name, 0);
}

/* Play scenario C in a process of its own (whatever it changes, fds, limits,
 * signal dispositions, dies with it); while waiting, tell the watchdog we
 * are alive.  False if it overran HUNG_FACTOR times its time: it is killed,
 * its helpers are left to the caller.  Its time is what its waits add up
 * to on an idle machine; on a loaded one (a shared CI host running QEMU
 * without KVM, four guest CPUs on two host cores) a scenario that works
 * took over 3 s, while a hung one is caught at any limit. */
static bool play(const struct fuzz_class *c)
{
	int status;
	char dir[64];
	fz.playing = (int)(c - classes);
	pid_t pid = fork();
	if (pid == 0) {
		scenario_reset();
		name_process(c->name);
		if (enter_scenario_dir(dir, sizeof dir)) {
			c->run();
			kill_helpers();
			if (chdir(own_dir) == 0) /* an overrun leaves it to the worker's removal */
				remove_tree(dir);
		}
		_exit(0);
	}
	for (long end = now_ms() + c->ms * HUNG_FACTOR; pid > 0; sleep_ms(2)) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD)) { /* ECHILD: SIGCHLD ignored */
			send_report_of(0, r == pid && fault_death(status) ? F_FAULT_DEATH : F_NONE,
				       1);
			break;
		}
		send_report(0, F_NONE);
		if (now_ms() > end) {
			finding(F_OVERRUN);
			show_threads(pid);
			kill(pid, SIGKILL);
			return false;
		}
	}
	fz.playing = 0;
	return true;
}

/* A worker that saw a scenario overrun ends: the parent kills its group,
 * orphaned helpers included. */
static void run_scenario(void)
{
	report();
	if (!play(pick_class()))
		finish(0);
}

/* Calls from the table, or (SCENARIO_ODDS) a scenario worth SCENARIO_CALLS. */
static void one_step(void)
{
	if (enabled == ARGS_CLASS || ((enabled & ARGS_CLASS) && !one_in(SCENARIO_ODDS))) {
		one_call();
		fz.budget--, fz.unreported++;
		return;
	}
	run_scenario();
	long n = fz.budget < SCENARIO_CALLS ? fz.budget : SCENARIO_CALLS;
	fz.budget -= n, fz.unreported += n;
}

static _Noreturn void run_worker(int index, uint64_t seed, long budget)
{
	fz = (struct fuzzer){.rng = seed, .worker = index, .budget = budget};
	worker_dir(getpid(), own_dir, sizeof own_dir);
	raw_call(__NR_setpgid, 0, 0, 0);
	private_dev();
	make_long_paths();
	if (mkdir(own_dir, 0700) < 0 || chdir(own_dir) < 0)
		finish(SETUP_FAILED);
	if (!(fz.buf = map_buffer()))
		finish(SETUP_FAILED + 1);
	open_playthings();
	/* The unprivileged mode: the worker's directory and file become the
	 * user's, then the worker becomes the user for good. */
	if (unpriv.on && (raw_call(__NR_chown, (long)own_dir, UNPRIV_ID, UNPRIV_ID) ||
			  raw_call(__NR_chown, (long)"f", UNPRIV_ID, UNPRIV_ID) || !drop_to_user()))
		finish(SETUP_FAILED + 3);
	while (fz.budget > 0) {
		one_step();
		if (fz.unreported >= REPORT_EVERY)
			report();
	}
	finish(0);
}

/* --- The parent: keeps the workers running, watches them, cleans up. --- */

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

/* CLASSES: "all" or names separated by commas; unknown names are skipped. */
static void select_classes(const char *list)
{
	char buf[256], *save, *name;
	if (strcmp(list, "all") == 0)
		return;
	snprintf(buf, sizeof buf, "%s", list);
	enabled = 0;
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < NCLASSES; i++)
			if (strcmp(name, classes[i].name) == 0)
				enabled |= 1U << i;
	if (enabled == 0) {
		diag("no known class in '%s': all of them", list);
		enabled = ALL_CLASSES;
	}
}

/* Seed, call count, workers and classes at once: from argv, or from
 * CONFIG_FILE when started as init (the kernel passes only "test"); defaults
 * for the rest. */
static void configure(int argc, char **argv)
{
	unsigned long long seed = DEFAULT_SEED;
	char list[256] = "all", mode[16] = "";
	FILE *f;
	run.calls = DEFAULT_CALLS;
	run.nworkers = DEFAULT_WORKERS;
	if (argc > 1 && strcmp(argv[1], "test") == 0 && (f = fopen(CONFIG_FILE, "r"))) {
		if (fscanf(f, "%llu %ld %d %255s %15s", &seed, &run.calls, &run.nworkers, list,
			   mode) < 1)
			diag("%s: expected 'SEED [CALLS [WORKERS [CLASSES [unpriv]]]]'",
			     CONFIG_FILE);
		fclose(f);
	} else if (argc > 1) {
		seed = strtoull(argv[1], NULL, 0);
		run.calls = argc > 2 ? strtol(argv[2], NULL, 0) : run.calls;
		run.nworkers = argc > 3 ? atoi(argv[3]) : run.nworkers;
		snprintf(list, sizeof list, "%s", argc > 4 ? argv[4] : "all");
		snprintf(mode, sizeof mode, "%s", argc > 5 ? argv[5] : "");
	}
	if (run.nworkers < 1 || run.nworkers > MAX_WORKERS)
		run.nworkers = DEFAULT_WORKERS;
	run.seed = seed;
	select_classes(list);
	snprintf(run.classes, sizeof run.classes, "%s", list);
	unpriv.on = !strcmp(mode, "unpriv");
	for (size_t i = 0; i < NCLASSES && unpriv.on; i++)
		if (classes[i].root_only && (enabled & (1U << i))) {
			enabled &= ~(1U << i);
			diag("unprivileged: class %s needs root, left out", classes[i].name);
		}
}

static long total_findings(void)
{
	long n = 0;
	for (int f = F_NONE + 1; f < NFINDINGS; f++)
		n += run.findings[f];
	return n;
}

/* How often each class played, so a short run shows it covered them. */
static void show_played(void)
{
	char line[512] = "";
	size_t n = 0;
	for (size_t i = 1; i < NCLASSES && n < sizeof line; i++)
		if (enabled & (1U << i))
			n += (size_t)snprintf(line + n, sizeof line - n, " %s %ld", classes[i].name,
					      run.played[i]);
	if (n)
		diag("scenarios played:%s", line);
}

#define SIG_NAME(name, value) [value] = #name,
static const char *const sig_names[65] = {UAPI_SIGNAL_LIST(SIG_NAME)};
#undef SIG_NAME

static void show_args_faults(void)
{
	char line[256] = "";
	size_t n = 0;
	long total = 0;
	for (int sig = 1; sig < 65 && n < sizeof line; sig++)
		if (run.args_faults[sig]) {
			total += run.args_faults[sig];
			n += (size_t)snprintf(line + n, sizeof line - n, " %s %ld",
					      sig_names[sig] ? sig_names[sig] : "?",
					      run.args_faults[sig]);
		}
	diag("args processes dead of a fault: %ld%s%s", total, n ? ":" : "", line);
}

static void show_findings(void)
{
	for (int f = F_NONE + 1; f < NFINDINGS; f++)
		if (run.findings[f])
			diag("%ld x %s", run.findings[f], finding_text[f]);
}

/* The parent's heap and stack grow to what the run will need, so the kernel's
 * counters before and after differ only by what the kernel leaked. */
static void warm_up(const char *argv0)
{
	volatile char stack[32768];
	stack[0] = stack[sizeof stack - 1] = 0;
	mkdir("/tmp/fuzz-warm-up", 0700);
	remove_tree("/tmp/fuzz-warm-up");
	can_run_true(argv0);
	pipe_round_trip();
	kstat_show("warm-up");
}

/* On Linux the scenarios (not the call fuzzing, not the port range) play a
 * few times each and must see nothing wrong: what they expect is Linux's
 * behaviour, and this checks it. */
static int check_scenarios_on_host(void)
{
	int fds[2];
	struct report r;
	plan(2);
	unpriv_setup();
	require(pipe(fds) == 0 && dup2(fds[1], REPORT_FD) == REPORT_FD, "the report pipe");
	require(fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0, "a non-blocking report pipe");
	worker_dir(getpid(), own_dir, sizeof own_dir);
	require(mkdir(own_dir, 0700) == 0, "a directory for the scenarios");
	require((fz.buf = map_buffer()) != NULL, "the buffer");
	for (size_t i = 1; i < NCLASSES; i++)
		for (int k = 0; k < HOST_ROUNDS && classes[i].run != scenario_ports; k++) {
			fz.rng = run.seed + (uint64_t)k;
			play(&classes[i]);
			while (read(fds[0], &r, sizeof r) == sizeof r) {
				name_escalation(&r);
				if (r.finding > F_NONE && r.finding < NFINDINGS &&
				    !run.findings[r.finding]++)
					diag("class %s: %s", classes[i].name,
					     finding_text[r.finding]);
			}
		}
	remove_tree(own_dir);
	close(REPORT_FD), close(fds[0]), close(fds[1]);
	ok(total_findings() == 0, "the scenarios see Linux's results on Linux");
	ok(unpriv_teardown(), "the root file and the root process came through untouched");
	return done();
}

int main(int argc, char **argv)
{
	configure(argc, argv);
	if (!on_fdkernel()) /* fuzzing the host's kernel could damage it */
		return check_scenarios_on_host();
	plan(9);
	diag("seed %llu, %ld calls, %d workers, classes %s%s (replay: fuzz %llu %ld %d %s%s)",
	     (unsigned long long)run.seed, run.calls, run.nworkers, run.classes,
	     unpriv.on ? ", workers as uid 1000" : "", (unsigned long long)run.seed, run.calls,
	     run.nworkers, run.classes, unpriv.on ? " unpriv" : "");
	warm_up(argv[0]);
	run.have_before = kstat_read(&run.before);
	kstat_show("counters before");
	unpriv_setup(); /* after the reading: gone again before the last one */
	long start = now_ms();
	fuzz_all();
	long ms = now_ms() - start;
	diag("%ld calls in %ld.%03ld s by %ld workers (%ld killed by the watchdog)", run.done,
	     ms / 1000, ms % 1000, run.workers, run.killed);
	diag("%ld escalation attempts, %ld succeeded, %ld refused with another errno than "
	     "Linux's",
	     run.attempts, run.findings[F_ESCALATED], run.findings[F_ESCALATION_ERRNO]);
	if (run.bad_bytes)
		diag("%ld bytes in the report pipe skipped (the args fuzzing wrote them)",
		     run.bad_bytes);
	ok(!(enabled & ESCALATE_BIT) || (run.attempts > 0 && !run.findings[F_ESCALATED] &&
					 !run.findings[F_ESCALATION_ERRNO]),
	   "escalation attempts made (%ld), every one refused", run.attempts);
	ok(unpriv_teardown(), "the root file and the root process came through untouched");
	ok(run.done >= run.calls, "%ld calls made", run.calls);
	ok(run.lost_groups == 0, "every worker's process group ended");
	show_played();
	show_args_faults();
	show_findings();
	ok(total_findings() == 0, "no scenario saw a wrong result");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "all children reaped");
	system_usable(argv[0], "fuzzing");
	collect_unix_garbage();
	kstat_show("counters after");
	kstat_unchanged(&run.before, run.have_before,
			"the kernel's counters are back where they were");
	return done();
}
