/* The in-guest syscall fuzzer: worker processes issue random system calls with
 * hostile arguments and play scenarios that build object graphs and tear them
 * down (fuzz_scenario.h); the kernel must not panic, hang or leak.
 * docs/robustness.md.  usage: fuzz [SEED [CALLS [WORKERS [CLASSES [unpriv]]]]];
 * as init, the same from /etc/fuzz.conf.  "unpriv": the workers drop to
 * uid 1000 after their set-up (fuzz_unpriv.h).  On Linux only the
 * scenarios play.  A worker's life is fuzz_worker.h's, the parent's that
 * runs them fuzz_parent.h's. */
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
#include "fuzz_worker.h"
#include "fuzz_parent.h"

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
