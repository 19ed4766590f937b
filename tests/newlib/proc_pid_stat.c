/* /proc/<pid>: a child's stat (pid, comm, state, ppid, Linux's 52
 * fields), status and cmdline, its directory in the listing of /proc,
 * then the child exiting under an open directory and file: zombie state
 * Z, then ENOENT and ESRCH once reaped, nothing left behind. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* The whole file at PATH into buf (NUL added): its length, or -1. */
static long slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n, len = 0;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -1;
	buf[len] = '\0';
	return len;
}

static long pid_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
	return slurp(path, buf, size);
}

/* The state letter of /proc/<pid>/stat, or '?'. */
static char state_of(pid_t pid)
{
	char buf[1024], *paren;
	if (pid_file(pid, "stat", buf, sizeof buf) < 0 || !(paren = strrchr(buf, ')')))
		return '?';
	return paren[2];
}

/* A child that runs this program again as `proc_pid_stat wait "a b"` and
 * blocks reading the pipe until killed.  Returns once it has exec'd. */
static pid_t start_waiter(const char *self, int *wfd)
{
	int in[2], ready[2];
	char c;
	pid_t pid;
	require(pipe(in) == 0 && pipe(ready) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(ready[1], 3);
		char *argv[] = {(char *)self, "wait", "a b", NULL}, *envp[] = {NULL};
		execve(self, argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(ready[1]);
	require(read(ready[0], &c, 1) == 1, "child ready");
	close(ready[0]);
	*wfd = in[1];
	return pid;
}

static void test_stat(pid_t child)
{
	char buf[1024], comm[64], state;
	int pid = 0, ppid = 0, fields = 0;
	long rss = 0;
	unsigned long vsize = 0;
	int got;
	char *p;

	ok(pid_file(child, "stat", buf, sizeof buf) > 0, "read /proc/<child>/stat");
	ok(sscanf(buf, "%d (%63[^)]) %c %d", &pid, comm, &state, &ppid) == 4, "stat parses: %s",
	   one_line(buf));
	is_int(pid, child, "stat: pid");
	ok(!strcmp(comm, "proc_pid_stat"), "stat: comm %s", comm);
	ok(state == 'S', "stat: state S (blocked in read), got %c", state);
	is_int(ppid, getpid(), "stat: ppid is ours");
	for (p = strrchr(buf, ')') + 1; *p; fields++) {
		p += strspn(p, " \n");
		if (*p)
			p += strcspn(p, " \n");
		else
			fields--;
	}
	is_int(fields + 2, 52, "stat: Linux's 52 fields");
	got = sscanf(strrchr(buf, ')') + 2,
		     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
		     "%*d %*d %*d %*d %*u %lu %ld",
		     &vsize, &rss) == 2;
	ok(got && rss > 0, "stat: rss %ld pages", rss);
	ok(got && vsize >= (unsigned long)rss * 4096, "stat: vsize %lu bytes, at least rss", vsize);
}

static void test_status(pid_t child)
{
	char buf[2048], line[64], *p;
	unsigned long kb = 0, size_kb = 0;
	int got;

	ok(pid_file(child, "status", buf, sizeof buf) > 0, "read /proc/<child>/status");
	ok(strstr(buf, "Name:\tproc_pid_stat\n") != NULL, "status: Name");
	ok(strstr(buf, "State:\tS (sleeping)\n") != NULL, "status: State");
	snprintf(line, sizeof line, "\nTgid:\t%d\n", (int)child);
	ok(strstr(buf, line) != NULL, "status: Tgid");
	snprintf(line, sizeof line, "\nPid:\t%d\n", (int)child);
	ok(strstr(buf, line) != NULL, "status: Pid");
	snprintf(line, sizeof line, "\nPPid:\t%d\n", (int)getpid());
	ok(strstr(buf, line) != NULL, "status: PPid");
	ok(strstr(buf, "\nUid:\t0\t0\t0\t0\n") != NULL || !on_fdkernel(), "status: Uid (root)");
	ok(strstr(buf, "\nThreads:\t1\n") != NULL, "status: Threads");
	got = (p = strstr(buf, "\nVmRSS:")) && sscanf(p, "\nVmRSS: %lu kB", &kb) == 1;
	ok(got && kb > 0, "status: VmRSS %lu kB", kb);
	got = (p = strstr(buf, "\nVmSize:")) && sscanf(p, "\nVmSize: %lu kB", &size_kb) == 1;
	ok(got && size_kb >= kb, "status: VmSize %lu kB, at least VmRSS", size_kb);
	/* getrusage03 reads it; fdkernel has no swap, Linux may. */
	got = (p = strstr(buf, "\nVmSwap:")) && sscanf(p, "\nVmSwap: %lu kB", &kb) == 1;
	ok(got && (kb == 0 || !on_fdkernel()), "status: VmSwap %lu kB", kb);
}

static void test_cmdline(pid_t child, const char *self)
{
	char buf[512], expect[512];
	size_t n = strlen(self) + 1;

	memcpy(expect, self, n);
	memcpy(expect + n, "wait\0a b\0", 9);
	ok(pid_file(child, "cmdline", buf, sizeof buf) == (long)n + 9 &&
	       !memcmp(buf, expect, n + 9),
	   "cmdline: argv NUL-separated");
	ok(slurp("/proc/self/cmdline", buf, sizeof buf) == (long)n && !strcmp(buf, self),
	   "our own cmdline");
}

/* /proc/self links to our pid; the child's exe is our program too. */
static void test_links(pid_t child)
{
	char path[64], want[64], got[512], mine[512];
	struct stat st;
	ssize_t n;

	snprintf(want, sizeof want, "%d", (int)getpid());
	n = readlink("/proc/self", got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	ok(!strcmp(got, want), "/proc/self -> %s", got);
	ok(lstat("/proc/self", &st) == 0 && S_ISLNK(st.st_mode), "/proc/self is a link");
	snprintf(path, sizeof path, "/proc/%d/exe", (int)child);
	n = readlink(path, got, sizeof got - 1);
	got[n > 0 ? n : 0] = '\0';
	n = readlink("/proc/self/exe", mine, sizeof mine - 1);
	mine[n > 0 ? n : 0] = '\0';
	ok(n > 0 && !strcmp(got, mine), "/proc/<child>/exe -> %s", got);
}

/* Whether readdir of /proc lists pid as a directory. */
static bool listed(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;
	if (!d)
		return false;
	while ((e = readdir(d)))
		if (atoi(e->d_name) == pid)
			found = true;
	closedir(d);
	return found;
}

static void test_listing(pid_t child)
{
	char path[64];
	struct stat st;

	ok(listed(getpid()), "readdir /proc lists our pid");
	ok(listed(child), "readdir /proc lists the child");
	snprintf(path, sizeof path, "/proc/%d", (int)child);
	ok(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "/proc/<child> is a directory");
	is_errno(stat("/proc/0", &st), ENOENT, "/proc/0: ENOENT");
	is_errno(stat("/proc/01", &st), ENOENT, "/proc/01: ENOENT");
	is_errno(stat("/proc/99999999", &st), ENOENT, "/proc/99999999: ENOENT");
	snprintf(path, sizeof path, "/proc/%d/nothing", (int)child);
	is_errno(stat(path, &st), ENOENT, "/proc/<child>/nothing: ENOENT");
	snprintf(path, sizeof path, "/proc/%d/new", (int)child);
	is_errno(open(path, O_CREAT | O_WRONLY, 0644), ENOENT, "creating in /proc/<pid>: ENOENT");
	is_errno(mkdir("/proc/new", 0755), ENOENT, "mkdir in /proc: ENOENT");
	snprintf(path, sizeof path, "/proc/%d", (int)getpid() + 100000);
	is_errno(open(path, O_CREAT | O_WRONLY, 0644), ENOENT, "creating /proc/<number>: ENOENT");
}

/* The child is killed with its directory and stat file open. */
static void test_exit(pid_t child, int wfd)
{
	char path[64], buf[64];
	int dfd, sfd, status;

	snprintf(path, sizeof path, "/proc/%d", (int)child);
	require((dfd = open(path, O_RDONLY | O_DIRECTORY)) >= 0, "open /proc/<child>");
	require((sfd = openat(dfd, "stat", O_RDONLY)) >= 0, "open /proc/<child>/stat");
	kill(child, SIGKILL);
	require(await_zombie(child), "the child dies");
	ok(state_of(child) == 'Z', "a killed, unreaped child shows state Z");
	ok(waitpid(child, &status, 0) == child && killed_by(status, SIGKILL), "reaped");
	is_errno(read(sfd, buf, sizeof buf), ESRCH, "an open stat file of a reaped process: ESRCH");
	is_errno(openat(dfd, "stat", O_RDONLY), ESRCH, "openat in its open directory: ESRCH");
	is_errno(access(path, F_OK), ENOENT, "/proc/<reaped>: ENOENT");
	ok(!listed(child), "it is no longer listed");
	close(sfd);
	close(dfd);
	close(wfd);
}

int main(int argc, char **argv)
{
	int wfd;
	char c;
	pid_t child;

	if (argc > 1 && !strcmp(argv[1], "wait")) {
		write(3, "r", 1);
		close(3);
		return read(0, &c, 1) == 1 ? 0 : 1;
	}
	require(argv[0][0] == '/', "an absolute argv[0]");
	plan(41);
	child = start_waiter(argv[0], &wfd);
	for (int i = 0; i < 6000 && state_of(child) != 'S'; i++)
		sleep_ms(10); /* until it blocks in read (60 s: a bound, not a speed) */
	test_stat(child);
	test_status(child);
	test_cmdline(child, argv[0]);
	test_links(child);
	test_listing(child);
	test_exit(child, wfd);
	return done();
}
