/* The fuzzer's scenarios and workers: the class table, a scenario
 * process's life (play) and a worker's loop of calls and scenarios.
 * Included by fuzz.c only, after fuzz_setup.h. */
#ifndef FUZZ_WORKER_H
#define FUZZ_WORKER_H

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
 * (the worker's stdout is /dev/null); and what its first argument names
 * if that is an open fd (/proc/<pid>/fd/N), as a number drawn at random
 * may no longer be the file the scenario opened. */
static void show_threads(pid_t pid)
{
	char path[64], line[200], out[400], link[80];
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
		long nr;
		unsigned long arg0;
		ssize_t k = -1;
		if (sscanf(line, "%ld %lx", &nr, &arg0) == 2 && arg0 < 1024) {
			snprintf(path, sizeof path, "/proc/%d/fd/%lu", (int)pid, arg0);
			k = readlink(path, link, sizeof link - 1);
		}
		link[k > 0 ? k : 0] = '\0';
		int len = snprintf(out, sizeof out, "# fuzz: overrun: process %d thread %s: %.*s%s%s\n",
				   (int)pid, de->d_name, (int)strcspn(line, "\n"), line,
				   k > 0 ? " fd: " : "", link);
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

#endif
