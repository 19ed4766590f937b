/*
 * runtests: run every executable of each folder (sorted), each in its own
 * process with a time limit, read its TAP through a pipe and total it: one
 * line per folder ("/linux: N passed, ..."), then the grand total.
 * usage: runtests [-t SECONDS] [-s SUMMARY_FILE] DIR...
 * Run as root, it runs every perm_* program a second time as an ordinary
 * user (uid and gid 1000, no groups): the permission suite as both
 * (docs/security.md, "Tests").
 * The time limit (300 s unless -t) catches a hang; it is no speed check: a
 * race test of 2,000 fork+exec took over 60 s on a loaded CI host under
 * the LOCKDEP kernel on four CPUs.
 */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <fdkernel.h> /* syscall */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS    512
#define LINE_MAX_LEN 1024
#define USER_PASS    "perm_" /* programs run again as USER_ID */
#define USER_ID	     1000

struct totals {
	int passed, failed, skipped;
};

/* What one program reported, parsed from its TAP lines. */
struct report {
	int planned; /* -1 until a plan line is seen */
	int results, passed, failed, skipped;
	char line[LINE_MAX_LEN];
	size_t len;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the executable regular files in dir, sorted; returns the count. */
static int list_tests(const char *dir, char **names)
{
	char path[512];
	struct dirent *de;
	struct stat st;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((de = readdir(d)) && n < MAX_TESTS) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (de->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & S_IXUSR))
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	return n;
}

/* Count one TAP line: a plan, or an ok / not ok result (SKIP directive). */
static void parse_line(struct report *r, const char *line)
{
	int n;

	if (sscanf(line, "1..%d", &n) == 1 && r->planned < 0) {
		r->planned = n;
		if (n == 0 && strstr(line, "# SKIP"))
			r->skipped++;
		return;
	}
	int bad = strncmp(line, "not ok", 6) == 0;
	if (!bad && strncmp(line, "ok", 2) != 0)
		return;
	const char *rest = line + (bad ? 6 : 2);
	if (*rest != ' ' && *rest != '\0')
		return;
	r->results++;
	if (strstr(rest, "# SKIP") || strstr(rest, "# skip"))
		r->skipped++;
	else if (bad)
		r->failed++;
	else
		r->passed++;
}

/* Echo and parse a chunk of output, line by line. */
static void feed(struct report *r, const char *buf, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n' && r->len < sizeof(r->line) - 1) {
			r->line[r->len++] = buf[i];
			continue;
		}
		if (buf[i] != '\n')
			continue; /* overlong line: truncated */
		r->line[r->len] = '\0';
		printf("    %s\n", r->line);
		parse_line(r, r->line);
		r->len = 0;
	}
}

/* Read the child's output until EOF or the deadline; 0 on timeout. */
static int collect(int fd, struct report *r, long deadline)
{
	char buf[4096];
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	for (;;) {
		long left = deadline - now_ms();
		if (left <= 0 || poll(&pfd, 1, left) == 0)
			return 0;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 1;
		feed(r, buf, n);
	}
}

/* Reap pid, killing it at the deadline; returns its wait status. */
static int reap(pid_t pid, long deadline, int *timed_out)
{
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ms() >= deadline) {
			*timed_out = 1;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		usleep(10000);
	}
	return status;
}

/* The caller becomes USER_ID with no supplementary group; false if not. */
static bool become_user(void)
{
	return syscall(__NR_setgroups, 0, 0) == 0 &&
	       syscall(__NR_setresgid, USER_ID, USER_ID, USER_ID) == 0 &&
	       syscall(__NR_setresuid, USER_ID, USER_ID, USER_ID) == 0;
}

static pid_t start(const char *path, int out, bool as_user)
{
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = {(char *)path, NULL};
		dup2(out, 1);
		if (as_user && !become_user()) {
			fprintf(stderr, "runtests: %s: cannot become uid %d: %s\n", path, USER_ID,
				strerror(errno));
			_exit(127);
		}
		/* Each program starts at nice 0: a fuzzer's setpriority(PRIO_USER,
		 * 0, ...) nices every process of root, this runner included. */
		syscall(__NR_setpriority, 0 /* PRIO_PROCESS */, 0, 0);
		execve(path, argv, environ);
		fprintf(stderr, "runtests: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Why a finished program counts as failed, or NULL if it does not. */
static const char *verdict(const struct report *r, int status, int timed_out, char *why,
			   size_t size)
{
	if (timed_out)
		return "timed out";
	if (WIFSIGNALED(status))
		snprintf(why, size, "killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		snprintf(why, size, "exit status %d", WEXITSTATUS(status));
	else if (r->planned < 0)
		snprintf(why, size, "no TAP plan");
	else if (r->results != r->planned)
		snprintf(why, size, "%d results for a plan of %d", r->results, r->planned);
	else
		return NULL;
	return why;
}

/*
 * The ordinary user may not reach the folder the tests live in (a clone
 * under /root, a 0700 temporary directory): it runs a copy of the program
 * in a directory of its own under /tmp (0755), which run_one removes
 * after.  The copy's path into copy; false if it could not be made.
 */
static bool user_copy(const char *path, const char *name, char *copy, size_t size)
{
	char buf[65536], dir[64];
	int in, out = -1;
	ssize_t n = -1;

	snprintf(dir, sizeof(dir), "/tmp/runtests-%d", (int)getpid());
	snprintf(copy, size, "%s/%s", dir, name);
	if ((mkdir(dir, 0755) && errno != EEXIST) || chmod(dir, 0755))
		return false;
	if ((in = open(path, O_RDONLY)) >= 0 &&
	    (out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0755)) >= 0)
		while ((n = read(in, buf, sizeof(buf))) > 0 && write(out, buf, n) == n)
			;
	if (in >= 0)
		close(in);
	if (out >= 0 && (close(out) || fchmodat(AT_FDCWD, copy, 0755, 0)))
		n = -1;
	return n == 0;
}

static void user_copy_remove(const char *copy)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/runtests-%d", (int)getpid());
	unlink(copy);
	rmdir(dir);
}

static void run_one(const char *dir, const char *name, bool as_user, int timeout, struct totals *t)
{
	char path[512], copy[512], why[64], title[300];
	struct report r = {.planned = -1};
	int fds[2], timed_out = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (as_user && !user_copy(path, name, copy, sizeof(copy))) {
		printf("not ok %s - a copy for uid %d: %s\n", name, USER_ID, strerror(errno));
		t->failed++;
		return;
	}
	snprintf(title, sizeof(title), "%s%s", name, as_user ? " (as uid 1000)" : "");
	name = title;
	printf("# %s\n", name);
	fflush(stdout);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		printf("not ok %s - pipe: %s\n", name, strerror(errno));
		if (as_user)
			user_copy_remove(copy);
		t->failed++;
		return;
	}
	long deadline = now_ms() + timeout * 1000L;
	pid_t pid = start(as_user ? copy : path, fds[1], as_user);
	close(fds[1]);
	if (pid > 0 && !collect(fds[0], &r, deadline))
		deadline = now_ms(); /* stuck: kill it now */
	close(fds[0]);
	int status = pid > 0 ? reap(pid, deadline, &timed_out) : 127 << 8;
	const char *bad = verdict(&r, status, timed_out, why, sizeof(why));

	if (as_user)
		user_copy_remove(copy);

	t->passed += r.passed;
	t->failed += r.failed + (bad != NULL);
	t->skipped += r.skipped;
	printf("%s %s (%d passed, %d failed, %d skipped)%s%s\n", bad || r.failed ? "FAIL" : "PASS",
	       name, r.passed, r.failed, r.skipped, bad ? ": " : "", bad ? bad : "");
	fflush(stdout);
}

/* Run every test of DIR, adding to T; -1 if DIR cannot be read. */
static int run_dir(const char *dir, int timeout, struct totals *t)
{
	static char *names[MAX_TESTS];
	struct totals mine = {0, 0, 0};
	int n = list_tests(dir, names);

	if (n < 0) {
		fprintf(stderr, "runtests: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		run_one(dir, names[i], false, timeout, &mine);
		if (getuid() == 0 && !strncmp(names[i], USER_PASS, strlen(USER_PASS)))
			run_one(dir, names[i], true, timeout, &mine);
		free(names[i]);
	}
	printf("%s: %d passed, %d failed, %d skipped\n", dir, mine.passed, mine.failed,
	       mine.skipped);
	t->passed += mine.passed;
	t->failed += mine.failed;
	t->skipped += mine.skipped;
	return 0;
}

static int write_summary(const char *path, const struct totals *t)
{
	FILE *f = fopen(path, "w");

	if (!f ||
	    fprintf(f, "%d passed, %d failed, %d skipped\n", t->passed, t->failed, t->skipped) <
		0 ||
	    fclose(f) != 0) {
		fprintf(stderr, "runtests: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct totals t = {0, 0, 0};
	const char *summary = NULL;
	int timeout = 300, opt;

	while ((opt = getopt(argc, argv, "t:s:")) != -1) {
		if (opt == 't')
			timeout = atoi(optarg);
		else if (opt == 's')
			summary = optarg;
		else
			timeout = 0; /* unknown option: usage */
	}
	if (optind >= argc || timeout <= 0) {
		fprintf(stderr, "usage: runtests [-t SECONDS] [-s SUMMARY_FILE] DIR...\n");
		return 2;
	}
	for (int i = optind; i < argc; i++)
		if (run_dir(argv[i], timeout, &t) < 0)
			return 2;
	printf("%d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
	if (summary && write_summary(summary, &t) < 0)
		return 2;
	return t.failed ? 1 : 0;
}
