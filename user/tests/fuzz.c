/* The in-guest syscall fuzzer: worker processes issue random system calls with
 * hostile arguments; the kernel must not panic, hang or leak.  docs/robustness.md
 * usage: fuzz [SEED [CALLS [WORKERS]]]; as init, the same from /etc/fuzz.conf. */
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

#include "fuzz_values.h"

/* --- Progress reports and the end of a fuzzing process. --- */

struct report {
	int worker, calls;
};

static void report(void)
{
	struct report r = {fz.worker, (int)fz.unreported};
	if (fz.unreported)
		raw_call(__NR_write, REPORT_FD, (long)&r, sizeof r);
	fz.unreported = 0;
}

static void forget_child(long pid)
{
	for (int i = 0; i < fz.nchildren; i++)
		if (fz.children[i] == pid)
			fz.children[i] = fz.children[--fz.nchildren];
}

static _Noreturn void finish(int code)
{
	report();
	for (int i = 0; i < fz.nchildren; i++)
		raw_call(__NR_kill, fz.children[i], SIGKILL, 0);
	while (raw_call(__NR_wait4, -1, 0, 0) != -ECHILD)
		;
	for (;;)
		raw_call(__NR_exit_group, code, 0, 0);
}

/* --- Calls that get their own treatment. --- */

static void fuzz_fork(void)
{
	long pid;
	if (fz.depth >= MAX_DEPTH || fz.nchildren >= MAX_CHILDREN || !one_in(4))
		return;
	report();
	pid = raw_call(__NR_fork, 0, 0, 0);
	if (pid == 0) {
		fz.depth++;
		fz.nchildren = 0;
		fz.budget = fz.budget < CHILD_CALLS ? fz.budget : CHILD_CALLS;
		fz.rng ^= (uint64_t)raw_call(__NR_getpid, 0, 0, 0) << 32;
	} else if (pid > 0) {
		fz.children[fz.nchildren++] = pid;
	}
}

static void fuzz_exit(void)
{
	if (one_in(TERMINAL_ODDS))
		finish((int)below(SETUP_FAILED));
}

/* A bad execve: bad pointers, a directory, a non-ELF file; in a forked child
 * now and then a real one (/bin/true ends it). */
static void fuzz_execve(void)
{
	char *argv[] = {"true", NULL};
	long path = arg_value('o');
	if (fz.depth > 0 && one_in(TERMINAL_ODDS)) {
		report();
		path = (long)"/bin/true";
	}
	long r = raw_call(__NR_execve, path, one_in(2) ? (long)argv : any_pointer(), any_pointer());
	remember(r);
}

static void fuzz_sigreturn(void)
{
	if (one_in(TERMINAL_ODDS)) {
		report();
		raw_call(__NR_rt_sigreturn, 0, 0, 0);
	}
}

/* kill: own children, a pid that does not exist, rarely itself. */
static void fuzz_kill(void)
{
	long sig = arg_value('S'), pid = fz.nchildren ? fz.children[below(fz.nchildren)] : 99999;
	if (one_in(TERMINAL_ODDS)) {
		report();
		pid = raw_call(__NR_getpid, 0, 0, 0);
	}
	if (raw_call(__NR_kill, pid, sig, 0) == 0 && (sig == SIGKILL || sig == SIGTERM))
		forget_child(pid);
}

/* setpgid/setsid would let a process leave its worker's group, which the
 * parent kills as a whole: only calls that must fail (not a child, not self;
 * setsid in a group leader). */
static void fuzz_setpgid(void)
{
	static const long others[] = {1, 99999, INT_MAX, -1};
	raw_call(__NR_setpgid, PICK(others), arg_value('P'), 0);
}

static void fuzz_setsid(void)
{
	if (fz.depth == 0)
		raw_call(__NR_setsid, 0, 0, 0);
}

/* pause and sigsuspend sleep until a signal: the stall watchdog ends them. */
static void fuzz_sleep_for_signal(void)
{
	if (!one_in(TERMINAL_ODDS))
		return;
	report();
	if (one_in(2))
		raw_call(__NR_pause, 0, 0, 0);
	else
		raw_call(__NR_rt_sigsuspend, any_pointer(), 8, 0);
}

static void fuzz_indirect(void);

/* Calls that would end the whole system if fdkernel ever implements them. */
static void never(void)
{
}

struct call {
	long nr;
	const char *kinds; /* one letter per argument, see arg_value */
	void (*special)(void);
};

/* Every call fdkernel implements (kernel/sys/syscall_list.h) and the
 * dangerous ones it may implement later. */
static const struct call calls[] = {
    {__NR_read, "fbl", 0},
    {__NR_write, "fbl", 0},
    {__NR_open, "oFm", 0},
    {__NR_close, "f", 0},
    {__NR_stat, "ob", 0},
    {__NR_fstat, "fb", 0},
    {__NR_lstat, "ob", 0},
    {__NR_poll, "bst", 0},
    {__NR_lseek, "fis", 0},
    {__NR_mmap, "alsFfi", 0},
    {__NR_mprotect, "als", 0},
    {__NR_munmap, "al", 0},
    {__NR_brk, "a", 0},
    {__NR_rt_sigaction, "Sbbs", 0},
    {__NR_rt_sigprocmask, "sbbs", 0},
    {__NR_rt_sigreturn, "", fuzz_sigreturn},
    {__NR_ioctl, "fib", 0},
    {__NR_pread64, "fbli", 0},
    {__NR_pwrite64, "fbli", 0},
    {__NR_readv, "fbs", 0},
    {__NR_writev, "fbs", 0},
    {__NR_access, "os", 0},
    {__NR_pipe, "b", 0},
    {__NR_sched_yield, "", 0},
    {__NR_dup, "f", 0},
    {__NR_dup2, "ff", 0},
    {__NR_pause, "", fuzz_sleep_for_signal},
    {__NR_nanosleep, "bb", 0},
    {__NR_getpid, "", 0},
    {__NR_socket, "sFs", 0},
    {__NR_connect, "fbl", 0},
    {__NR_accept, "fbb", 0},
    {__NR_sendto, "fblFbl", 0},
    {__NR_recvfrom, "fblFbb", 0},
    {__NR_sendmsg, "fbF", 0},
    {__NR_recvmsg, "fbF", 0},
    {__NR_shutdown, "fs", 0},
    {__NR_bind, "fbl", 0},
    {__NR_listen, "fi", 0},
    {__NR_getsockname, "fbb", 0},
    {__NR_getpeername, "fbb", 0},
    {__NR_socketpair, "sFsb", 0},
    {__NR_setsockopt, "fssbl", 0},
    {__NR_getsockopt, "fssbb", 0},
    {__NR_clone, "", fuzz_fork},
    {__NR_fork, "", fuzz_fork},
    {__NR_vfork, "", fuzz_fork},
    {__NR_execve, "", fuzz_execve},
    {__NR_exit, "", fuzz_exit},
    {__NR_wait4, "PbFb", 0},
    {__NR_kill, "", fuzz_kill},
    {__NR_uname, "b", 0},
    {__NR_fcntl, "fsi", 0},
    {__NR_truncate, "pl", 0},
    {__NR_ftruncate, "fl", 0},
    {__NR_getcwd, "bl", 0},
    {__NR_chdir, "p", 0},
    {__NR_fchdir, "f", 0},
    {__NR_mkdir, "pm", 0},
    {__NR_rmdir, "p", 0},
    {__NR_unlink, "p", 0},
    {__NR_gettimeofday, "bb", 0},
    {__NR_getrlimit, "sb", 0},
    {__NR_times, "b", 0},
    {__NR_getuid, "", 0},
    {__NR_setpgid, "", fuzz_setpgid},
    {__NR_getppid, "", 0},
    {__NR_getpgrp, "", 0},
    {__NR_setsid, "", fuzz_setsid},
    {__NR_getpgid, "P", 0},
    {__NR_getsid, "P", 0},
    {__NR_rt_sigpending, "bs", 0},
    {__NR_rt_sigsuspend, "", fuzz_sleep_for_signal},
    {__NR_setrlimit, "sb", 0},
    {169 /* reboot */, "", never},
    {__NR_gettid, "", 0},
    {__NR_tkill, "", fuzz_kill},
    {__NR_getdents64, "fbl", 0},
    {__NR_clock_gettime, "sb", 0},
    {__NR_clock_getres, "sb", 0},
    {__NR_exit_group, "", fuzz_exit},
    {__NR_tgkill, "", fuzz_kill},
    {246 /* kexec_load */, "", never},
    {__NR_openat, "foFm", 0},
    {__NR_mkdirat, "fpm", 0},
    {__NR_newfstatat, "fobF", 0},
    {__NR_unlinkat, "fpF", 0},
    {__NR_faccessat, "fosF", 0},
    {320 /* kexec_file_load */, "", never},
    {322 /* execveat */, "", fuzz_execve},
    {__NR_accept4, "fbbF", 0},
    {__NR_dup3, "ffF", 0},
    {__NR_pipe2, "bF", 0},
    {__NR_preadv, "fbsis", 0},
    {__NR_pwritev, "fbsis", 0},
    {__NR_prlimit64, "Psbb", 0},
    {__NR_preadv2, "fbsisF", 0},
    {__NR_pwritev2, "fbsisF", 0},
    {435 /* clone3 */, "", fuzz_fork},
    {__NR_close_range, "ffF", 0},
    {__NR_socket2, "sFsF", 0},
    {__NR_syscall_indirect, "", fuzz_indirect},
};

#define NCALLS (sizeof(calls) / sizeof(calls[0]))

static const struct call *lookup(long nr)
{
	for (size_t i = 0; i < NCALLS; i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

/* A call number: mostly from the table, else anything from Linux's range,
 * fdkernel's, x32-flagged, negative or huge. */
static long pick_number(void)
{
	switch (below(16)) {
	case 0:
	case 1:
		return (long)below(341);
	case 2:
		return (long)(1000 + below(4));
	case 3:
		return one_in(2) ? (long)(below(341) | 0x40000000) : (long)(rnd() >> below(64));
	default:
		return calls[below(NCALLS)].nr;
	}
}

/* A call with generated arguments, NR and A; NULL kinds: all arguments any. */
static long typed_call(long *nr, long a[6])
{
	const struct call *c;
	do {
		*nr = pick_number();
		c = lookup(*nr);
	} while (c && c->special);
	const char *k = c ? c->kinds : "iiiiii";
	for (int i = 0; i < 6; i++, k += !!*k)
		a[i] = *k ? arg_value(*k) : (long)(one_in(8) ? rnd() : 0);
	return *nr;
}

/* syscall_indirect of a generated call (never a special one, never nested). */
static void fuzz_indirect(void)
{
	long nr, *args = (long *)(fz.buf + STRUCT_WORDS * sizeof(long));
	long flags = one_in(4) ? flags_value() : (long)below(SYSIND_ALL + 1);
	typed_call(&nr, args);
	const long a[6] = {flags, (long)rnd(), nr, one_in(8) ? any_pointer() : (long)args, 0, 0};
	remember(raw_syscall(__NR_syscall_indirect, a));
}

static void one_call(void)
{
	long nr, a[6], ret;
	const struct call *c;
	refill_struct_area();
	nr = pick_number();
	c = lookup(nr);
	if (c && c->special) {
		c->special();
		return;
	}
	typed_call(&nr, a);
	ret = raw_syscall(nr, a);
	remember(ret);
	if (nr == __NR_wait4 && ret > 0)
		forget_child(ret);
}

/* --- A worker: set-up, then the calls. --- */

/* Most reads would block on an empty pipe or socket: the watchdog would
 * end the worker soon; non-blocking fds keep it busy (fcntl may change it). */
static void remember_nonblocking(int fd)
{
	fcntl(fd, F_SETFL, O_NONBLOCK);
	remember(fd);
}

/* fds to play with: the standard ones on /dev/null, a file and a directory
 * in the worker's own directory, a pipe, a socket pair, /dev/zero. */
static void open_playthings(void)
{
	int null = open("/dev/null", O_RDWR), fds[2];
	for (int fd = 0; fd < 3; fd++)
		if (dup2(null, fd) != fd)
			finish(SETUP_FAILED + 2); /* never fuzz with the console or TAP open */
	close(null);
	remember(open("f", O_RDWR | O_CREAT, 0600));
	remember(open(".", O_RDONLY));
	remember(open("/dev/zero", O_RDONLY));
	if (pipe(fds) == 0)
		remember_nonblocking(fds[0]), remember_nonblocking(fds[1]);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0)
		remember_nonblocking(fds[0]), remember(fds[1]);
}

/* The writable buffer, with an unmapped page right after it. */
static char *map_buffer(void)
{
	char *p =
	    mmap(NULL, BUF_SIZE + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	munmap(p + BUF_SIZE, 4096);
	return p;
}

static void worker_dir(pid_t pid, char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/fuzz-%d", (int)pid);
}

/* Path arguments: a 299-byte name, a 4999-byte path of 99-byte names. */
static void make_long_paths(void)
{
	memset(long_name, 'n', sizeof long_name - 1);
	for (size_t i = 0; i < sizeof long_path - 1; i++)
		long_path[i] = i % 100 == 99 ? '/' : 'p';
}

static _Noreturn void run_worker(int index, uint64_t seed, long budget)
{
	fz = (struct fuzzer){.rng = seed, .worker = index, .budget = budget};
	worker_dir(getpid(), own_dir, sizeof own_dir);
	raw_call(__NR_setpgid, 0, 0, 0);
	make_long_paths();
	if (mkdir(own_dir, 0700) < 0 || chdir(own_dir) < 0)
		finish(SETUP_FAILED);
	if (!(fz.buf = map_buffer()))
		finish(SETUP_FAILED + 1);
	open_playthings();
	while (fz.budget-- > 0) {
		one_call();
		if (++fz.unreported == REPORT_EVERY)
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
	long calls, done, workers, killed, lost_groups;
	int setup_failures; /* in a row */
	int report_fd, report_read_fd;
	int nworkers;
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

static void read_reports(void)
{
	struct report r[64];
	ssize_t n;
	while ((n = read(run.report_read_fd, r, sizeof r)) > 0)
		for (size_t i = 0; i < (size_t)n / sizeof r[0]; i++)
			if (r[i].worker >= 0 && r[i].worker < run.nworkers && r[i].calls > 0 &&
			    r[i].calls <= REPORT_EVERY) {
				run.done += r[i].calls;
				run.slot[r[i].worker].reported += r[i].calls;
				run.slot[r[i].worker].progress_ms = now_ms();
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
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (int i = 0; i < run.nworkers; i++)
			if (run.slot[i].state == RUNNING && run.slot[i].pid == pid) {
				run.slot[i].state = EXITED;
				run.slot[i].exited_ms = now_ms();
				count_setup_failure(status);
			}
}

static void remove_tree(const char *path)
{
	char child[512];
	struct dirent *de;
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(child, sizeof child, "%s/%s", path, de->d_name);
			remove_tree(child);
		}
	closedir(d);
	rmdir(path);
}

/* With one worker at a time the counters must be back after each worker,
 * so a leak is pinned to its seed. */
static void check_worker_leaks(const struct slot *s)
{
	char who[64];
	struct kstat now;
	if (run.nworkers != 1 || !run.have_before || !kstat_read(&now))
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

/* Seed, call count and workers at once: from argv, or from CONFIG_FILE when
 * started as init (the kernel passes only "test"); defaults for the rest. */
static void configure(int argc, char **argv)
{
	unsigned long long seed = DEFAULT_SEED;
	FILE *f;
	run.calls = DEFAULT_CALLS;
	run.nworkers = DEFAULT_WORKERS;
	if (argc > 1 && strcmp(argv[1], "test") == 0 && (f = fopen(CONFIG_FILE, "r"))) {
		if (fscanf(f, "%llu %ld %d", &seed, &run.calls, &run.nworkers) < 1)
			diag("%s: expected 'SEED [CALLS [WORKERS]]'", CONFIG_FILE);
		fclose(f);
	} else if (argc > 1) {
		seed = strtoull(argv[1], NULL, 0);
		run.calls = argc > 2 ? strtol(argv[2], NULL, 0) : run.calls;
		run.nworkers = argc > 3 ? atoi(argv[3]) : run.nworkers;
	}
	if (run.nworkers < 1 || run.nworkers > MAX_WORKERS)
		run.nworkers = DEFAULT_WORKERS;
	run.seed = seed;
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

int main(int argc, char **argv)
{
	if (!on_fdkernel())
		skip_all("fuzzing the host kernel could damage it");
	configure(argc, argv);
	plan(6);
	diag("seed %llu, %ld calls, %d workers (replay: fuzz %llu %ld %d)",
	     (unsigned long long)run.seed, run.calls, run.nworkers, (unsigned long long)run.seed,
	     run.calls, run.nworkers);
	warm_up(argv[0]);
	run.have_before = kstat_read(&run.before);
	kstat_show("counters before");
	long start = now_ms();
	fuzz_all();
	long ms = now_ms() - start;
	diag("%ld calls in %ld.%03ld s by %ld workers (%ld killed by the watchdog)", run.done,
	     ms / 1000, ms % 1000, run.workers, run.killed);
	ok(run.done >= run.calls, "%ld calls made", run.calls);
	ok(run.lost_groups == 0, "every worker's process group ended");
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "all children reaped");
	system_usable(argv[0], "fuzzing");
	kstat_show("counters after");
	kstat_unchanged(&run.before, run.have_before,
			"the kernel's counters are back where they were");
	return done();
}
