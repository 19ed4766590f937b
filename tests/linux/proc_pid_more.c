/* /proc/<pid>/limits, environ, cwd, root, mountinfo and mounts against the truth:
 * limits is getrlimit's (and follows setrlimit, in this process and a
 * child), environ is what execve passed, cwd follows chdir (another
 * process's too), root is "/", mountinfo names the root mount with
 * stat("/")'s device, mounts has "/" and /proc/mounts links to it. */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "testutil.h"

static char buf[16384];

/* "unlimited" or the number, as limits shows a value. */
static void limit_text(rlim_t v, char *out, size_t size)
{
	if (v == RLIM_INFINITY)
		snprintf(out, size, "unlimited");
	else
		snprintf(out, size, "%llu", (unsigned long long)v);
}

/* Whether pid's limits file shows what getrlimit gives this process for
 * every resource (a child checks its own with pid "self"). */
static bool limits_match(const char *pid)
{
	char path[64], soft[32], hard[32], got_soft[32], got_hard[32];
	char *line;

	snprintf(path, sizeof path, "/proc/%s/limits", pid);
	if (read_text(path, buf, sizeof buf) <= 0 ||
	    strncmp(buf,
		    "Limit                     Soft Limit           Hard Limit           Units",
		    70))
		return false;
	line = strchr(buf, '\n');
	for (int res = 0; res < RLIM_NLIMITS; res++) {
		struct rlimit rl;
		if (!line || getrlimit(res, &rl))
			return false;
		line++;
		/* the name is 25 characters and a space */
		if (strlen(line) < 26 || sscanf(line + 26, "%31s %31s", got_soft, got_hard) != 2)
			return false;
		limit_text(rl.rlim_cur, soft, sizeof soft);
		limit_text(rl.rlim_max, hard, sizeof hard);
		if (strcmp(soft, got_soft) || strcmp(hard, got_hard)) {
			diag("resource %d: %s %s, getrlimit %s %s", res, got_soft, got_hard, soft,
			     hard);
			return false;
		}
		line = strchr(line, '\n');
	}
	return true;
}

/* A child mode: says it runs (a byte on fd 1), waits for a byte on fd 0. */
static int child_wait(void)
{
	char c = 'r';

	return write(1, &c, 1) != 1 || read(0, &c, 1) < 0;
}

/* Starts this program (/proc/self/exe) as a child in mode "wait" with env
 * and, in it, the working directory dir and RLIMIT_NOFILE nofile, and
 * waits until it runs; *to is its stdin (closing it ends the child).
 * Its pid. */
static pid_t start_child(char *const env[], const char *dir, rlim_t nofile, int *to)
{
	int in[2], out[2];
	pid_t pid;
	char c;

	require(pipe(in) == 0 && pipe(out) == 0, "pipes");
	if ((pid = fork()) == 0) {
		struct rlimit rl = {nofile, nofile};
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (chdir(dir) || setrlimit(RLIMIT_NOFILE, &rl))
			_exit(3);
		execle("/proc/self/exe", "proc_pid_more", "wait", (char *)NULL, env);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	require(read(out[0], &c, 1) == 1, "the child runs");
	close(out[0]);
	*to = in[1];
	return pid;
}

static bool exited_ok(pid_t pid, int to)
{
	int status;

	close(to);
	return waitpid(pid, &status, 0) == pid && exited_with(status, 0);
}

static void test_child(void)
{
	char *env[] = {"A=1", "B=two words", "EMPTY=", NULL}, path[64], link[256];
	const char want[] = "A=1\0B=two words\0EMPTY=";
	int to;
	pid_t pid = start_child(env, "/tmp", 100, &to);
	long n;

	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	n = read_text(path, buf, sizeof buf);
	ok(n == sizeof want && !memcmp(buf, want, sizeof want),
	   "/proc/<child>/environ is the envp execve passed (%ld bytes)", n);
	snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
	n = readlink(path, link, sizeof link - 1);
	ok(n == 4 && !memcmp(link, "/tmp", 4), "/proc/<child>/cwd is its working directory");
	snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
	ok(read_text(path, buf, sizeof buf) > 0 &&
	       strstr(
		   buf,
		   "\nMax open files            100                  100                  files"),
	   "/proc/<child>/limits shows the child's RLIMIT_NOFILE 100");
	ok(exited_ok(pid, to), "the child ends");
}

static void test_self(void)
{
	struct rlimit old, rl;
	char link[256];
	struct stat st;
	ssize_t n;

	ok(limits_match("self"), "/proc/self/limits is getrlimit's for all %d resources",
	   RLIM_NLIMITS);
	require(getrlimit(RLIMIT_NOFILE, &old) == 0, "getrlimit");
	rl = (struct rlimit){77, old.rlim_max};
	ok(setrlimit(RLIMIT_NOFILE, &rl) == 0 && limits_match("self"),
	   "after setrlimit(RLIMIT_NOFILE, 77): still getrlimit's");
	setrlimit(RLIMIT_NOFILE, &old);
	require(chdir("/tmp") == 0, "chdir");
	n = readlink("/proc/self/cwd", link, sizeof link - 1);
	ok(n == 4 && !memcmp(link, "/tmp", 4), "/proc/self/cwd follows chdir");
	ok(stat("/proc/self/cwd/.", &st) == 0 && S_ISDIR(st.st_mode),
	   "/proc/self/cwd/. is a directory");
	n = readlink("/proc/self/root", link, sizeof link - 1);
	ok(n == 1 && link[0] == '/', "/proc/self/root is /");
}

/* Children exiting while their cwd, environ and limits are read: cwd gives
 * the truth or fails with ENOENT or ESRCH (the process went), the others
 * are read for what the exit releases under them (a zombie's limits read
 * ESRCH in fdkernel, where RLIMIT_NOFILE goes with the files table; Linux
 * shows them); the leak check follows the suite. */
static void test_exit_race(void)
{
	char path[64], link[256];
	bool good = true;

	for (int i = 0; i < 200 && good; i++) {
		pid_t pid = fork();
		int status;

		if (pid == 0)
			_exit(0);
		require(pid > 0, "fork");
		snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
		ssize_t n = readlink(path, link, sizeof link - 1);
		good &= (n == 4 && !memcmp(link, "/tmp", 4)) ||
			(n < 0 && (errno == ENOENT || errno == ESRCH));
		snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
		read_text(path, buf, sizeof buf);
		snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
		read_text(path, buf, sizeof buf);
		good &= waitpid(pid, &status, 0) == pid && exited_with(status, 0);
	}
	ok(good, "200 children exiting while their cwd, limits and environ are read");
}

/* A line whose mount point (field 5) is "/" and whose major:minor is
 * stat("/")'s device, with the " - " separator and a type after it. */
static void test_mountinfo(void)
{
	struct stat st;
	bool found = false;

	require(stat("/", &st) == 0, "stat /");
	require(read_text("/proc/self/mountinfo", buf, sizeof buf) > 0, "read mountinfo");
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned id, parent, maj, min;
		char root[256], point[256];
		if (sscanf(line, "%u %u %u:%u %255s %255s", &id, &parent, &maj, &min, root,
			   point) == 6 &&
		    !strcmp(point, "/") && maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    strstr(line, " - "))
			found = true;
	}
	ok(found, "/proc/self/mountinfo: the root mount with stat(\"/\")'s device %u:%u",
	   major(st.st_dev), minor(st.st_dev));
}

/* /proc/self/mounts has the root mount in fstab's format, and
 * /proc/mounts is the link to it procfs makes ("self/mounts"). */
static void test_mounts(void)
{
	static char other[sizeof buf];
	char link[64] = "";
	bool found = false;

	ok(readlink("/proc/mounts", link, sizeof link - 1) > 0 && !strcmp(link, "self/mounts"),
	   "/proc/mounts links to self/mounts (\"%s\")", link);
	require(read_text("/proc/self/mounts", buf, sizeof buf) > 0, "read mounts");
	read_text("/proc/mounts", other, sizeof other);
	ok(!strcmp(buf, other), "it reads the same text");
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char dev[256], point[256], type[64], opts[256];
		int freq, pass;
		if (sscanf(line, "%255s %255s %63s %255s %d %d", dev, point, type, opts, &freq,
			   &pass) == 6 &&
		    !strcmp(point, "/"))
			found = true;
	}
	ok(found, "/proc/self/mounts: a line for / with its type, options and two numbers");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait"))
		return child_wait();
	plan(14);
	test_child();
	test_self();
	test_mountinfo();
	test_mounts();
	test_exit_race();
	return done();
}
