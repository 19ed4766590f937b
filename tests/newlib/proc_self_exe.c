/* /proc/self/exe: the absolute path of the running program with links
 * resolved (readlink), the same in a fork child, and executable (busybox
 * runs its applets through it). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

static char self[PATH_MAX];

static ssize_t read_self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size);
	if (n >= 0 && (size_t)n < size)
		buf[n] = '\0';
	return n;
}

/* The program's own absolute path, links resolved: on fdkernel
 * /tests/proc_self_exe; on the host found from argv[0] and the cwd. */
static void find_self(const char *argv0)
{
	char cwd[PATH_MAX];
	if (argv0[0] == '/')
		snprintf(self, sizeof self, "%s", argv0);
	else
		snprintf(self, sizeof self, "%s/%s", getcwd(cwd, sizeof cwd), argv0);
}

static void test_readlink(void)
{
	char buf[PATH_MAX], small[4];
	struct stat st;
	pid_t pid;
	int status;
	ok(read_self_exe(buf, sizeof buf) > 0 && !strcmp(buf, self), "readlink: %s", buf);
	ok(readlink("/proc/self/exe", small, sizeof small) == 4 && !memcmp(small, self, 4),
	   "a short buffer gets the first bytes");
	ok(lstat("/proc/self/exe", &st) == 0 && S_ISLNK(st.st_mode), "lstat: a symbolic link");
	ok(stat("/proc/self/exe", &st) == 0 && S_ISREG(st.st_mode), "stat follows it to the file");
	is_errno(readlink("/proc/self/exe", buf, 0), EINVAL, "readlink with size 0: EINVAL");
	is_errno(access("/proc/self/exe/x", F_OK), ENOTDIR, "/proc/self/exe/x: ENOTDIR");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(read_self_exe(buf, sizeof buf) > 0 && !strcmp(buf, self) ? 0 : 1);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "a fork child sees it too");
}

/* Runs PATH ARG through the shell-less exec; returns its output. */
static int run(const char *path, char *arg, char *out, size_t size)
{
	char *argv[] = {"proc_self_exe", arg, NULL}, *envp[] = {NULL};
	return run_capture(path, argv, envp, out, size);
}

static void test_exec(void)
{
	char out[PATH_MAX + 16], link[64], expect[PATH_MAX + 16];
	snprintf(expect, sizeof expect, "exe %s\n", self);
	ok(exited_with(run("/proc/self/exe", "--print", out, sizeof out), 0) &&
	       !strcmp(out, expect),
	   "exec /proc/self/exe runs this program again");
	snprintf(link, sizeof link, "/tmp/self-exe-%d", (int)getpid());
	require(symlink(self, link) == 0, "symlink");
	ok(exited_with(run(link, "--print", out, sizeof out), 0) && !strcmp(out, expect),
	   "run through a symlink: the link's target is shown");
	unlink(link);
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	if (argc > 1 && !strcmp(argv[1], "--print")) {
		printf("exe %s\n", read_self_exe(buf, sizeof buf) > 0 ? buf : strerror(errno));
		return 0;
	}
	find_self(argv[0]);
	plan(9);
	test_readlink();
	test_exec();
	return done();
}
