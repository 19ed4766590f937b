/* PID 1 of fdkernel: runs the shell on the console and respawns it, or with
 * argv[1] "test" the in-guest test suite, or with "bench" the benchmarks.
 * The console shell is busybox's ash as a login shell (it reads
 * /etc/profile) when /bin/busybox is there, else the project's /bin/sh. */
#include <dirent.h>
#include <errno.h>
#include <fdkernel.h> /* syscall: newlib has no setsid or ioctl */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define RUNTESTS "/bin/runtests"
#define SHELL	 "/bin/sh"
#define BUSYBOX	 "/bin/busybox"
#define MOTD	 "/etc/motd"
#define BENCHDIR "/bench"

#define TIOCSCTTY 0x540E

/* Start PATH with ARGV in a child; -1 if fork failed.  The child exits 127
 * after reporting a failed execve.  With SESSION, the child leads a new
 * session with the console (its stdin) as controlling terminal, as getty
 * would make it: a shell's job control needs one. */
static pid_t spawn(const char *path, char *const argv[], bool session)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (session &&
		    (syscall(__NR_setsid) < 0 || syscall(__NR_ioctl, 0, TIOCSCTTY, 0) < 0))
			fprintf(stderr, "init: no controlling terminal: %s\n", strerror(errno));
		execve(path, argv, environ);
		fprintf(stderr, "init: %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "init: fork: %s\n", strerror(errno));
	return pid;
}

/* Wait for PID, reaping every other child (orphans included) meanwhile.
 * Returns PID's exit code, or 128 + signal number if a signal killed it. */
static int wait_for(pid_t pid)
{
	int status;
	pid_t got;
	do {
		got = waitpid(-1, &status, 0);
	} while (got != pid && !(got < 0 && errno == ECHILD));
	if (got < 0)
		return 127;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

static int run(const char *path, char *const argv[], bool session)
{
	pid_t pid = spawn(path, argv, session);
	return pid < 0 ? 127 : wait_for(pid);
}

static void print_motd(void)
{
	FILE *f = fopen(MOTD, "r");
	char line[256];
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		fputs(line, stdout);
	fclose(f);
	fflush(stdout);
}

static time_t monotonic_seconds(void)
{
	struct timespec ts = {0, 0};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* The console session: the shell forever, respawned whenever it exits; one
 * that ends at once (no shell, a console at EOF) is restarted after 1 s. */
static _Noreturn void run_console(void)
{
	/* busybox runs the applet its argv[0] names; a leading '-' makes a
	 * login shell. */
	char *ash[] = {"-sh", NULL}, *sh[] = {SHELL, NULL};
	bool busybox = access(BUSYBOX, X_OK) == 0;
	print_motd();
	for (;;) {
		time_t start = monotonic_seconds();
		run(busybox ? BUSYBOX : SHELL, busybox ? ash : sh, true);
		if (monotonic_seconds() - start < 1)
			sleep(1);
	}
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every program of BENCHDIR in name order; a missing directory is no error. */
static int run_benchmarks(void)
{
	char *names[256], path[512];
	size_t n = 0;
	DIR *dir = opendir(BENCHDIR);
	struct dirent *de;
	if (!dir)
		return 0;
	while ((de = readdir(dir)) && n < sizeof names / sizeof names[0])
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(dir);
	qsort(names, n, sizeof names[0], compare_names);
	for (size_t i = 0; i < n; i++) {
		char *argv[] = {path, NULL};
		snprintf(path, sizeof path, "%s/%s", BENCHDIR, names[i]);
		run(path, argv, false);
		free(names[i]);
	}
	return 0;
}

/* The environment programs see unless the kernel passed one. */
static void default_environment(void)
{
	setenv("PATH", "/bin", 0);
	setenv("HOME", "/", 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	default_environment();
	if (strcmp(mode, "test") == 0) {
		char *args[] = {RUNTESTS, "/tests", "/linux", NULL};
		return run(RUNTESTS, args, false);
	}
	if (strcmp(mode, "bench") == 0)
		return run_benchmarks();
	run_console();
}
