/* execveat and fexecve: a program named relative to a directory fd, or
 * run from an open fd (AT_EMPTY_PATH), AT_SYMLINK_NOFOLLOW, the name a
 * script's interpreter gets ("/dev/fd/N"), ENOENT for such a script when
 * the fd closes on exec, the errors in Linux's order; the program's
 * argv, /proc/self/exe and comm. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

#define AT_EMPTY    0x1000
#define AT_NOFOLLOW 0x100

static char dir[64], prog[96], script[96], link_path[96];
static char *const env[] = {"EXEC_AT_REPORT=1", NULL};

static long execveat_(int fd, const char *path, char *const argv[], int flags)
{
	return syscall(SYS_execveat, fd, path, argv, env, flags);
}

/* The copy: prints its arguments, /proc/self/exe and comm, one line. */
static int report(int argc, char **argv)
{
	char exe[256] = "", comm[32] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int fd = open("/proc/self/comm", O_RDONLY);

	if (n > 0)
		exe[n] = '\0';
	if (fd >= 0 && (n = read(fd, comm, sizeof comm - 1)) > 0)
		comm[n - 1] = '\0'; /* the newline */
	printf("exe=%s comm=%s argv=", exe, comm);
	for (int i = 1; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? "," : "");
	printf("\n");
	return 0;
}

/* Runs execveat(fd, path, argv, flags) in a child; its output in out.
 * Returns the child's wait status, or -errno when execveat failed. */
static int run(int fd, const char *path, char *const argv[], int flags, char *out, size_t size)
{
	int p[2], status, e[2];
	ssize_t n, len = 0;
	pid_t pid;

	require(pipe(p) == 0 && pipe2(e, O_CLOEXEC) == 0, "pipes");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		execveat_(fd, path, argv, flags);
		int err = errno;
		write(e[1], &err, sizeof err);
		_exit(127);
	}
	close(p[1]);
	close(e[1]);
	while ((n = read(p[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(p[0]);
	int err = 0;
	if (read(e[0], &err, sizeof err) != sizeof err)
		err = 0;
	close(e[0]);
	waitpid(pid, &status, 0);
	return err ? -err : status;
}

/* The result of run() as an errno (0 when the program ran and exited 0). */
static int run_errno(int fd, const char *path, int flags)
{
	char *const argv[] = {"x", NULL};
	char out[512];
	int r = run(fd, path, argv, flags, out, sizeof out);

	return r < 0 ? -r : exited_with(r, 0) ? 0 : 1000;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_EXCL, mode);

	require(in >= 0 && out >= 0, "open the copy");
	while ((n = read(in, buf, sizeof buf)) > 0)
		require(write(out, buf, n) == n, "write the copy");
	close(in);
	close(out);
}

static void test_runs(int dfd)
{
	char *const argv[] = {"x", "one", "two", NULL};
	char out[512], want[512];
	int fd, r;

	snprintf(want, sizeof want, "exe=%s comm=prog argv=one,two\n", prog);
	r = run(AT_FDCWD, prog, argv, 0, out, sizeof out);
	ok(r == 0 && !strcmp(out, want), "an absolute path: argv, exe and comm (%s)", out);
	r = run(dfd, "prog", argv, 0, out, sizeof out);
	ok(r == 0 && !strcmp(out, want), "relative to a directory fd (%s)", out);
	r = run(-1, prog, argv, 0, out, sizeof out);
	ok(r == 0, "an absolute path ignores a bad dirfd");
	fd = open(prog, O_RDONLY | O_CLOEXEC);
	r = run(fd, "", argv, AT_EMPTY, out, sizeof out);
	ok(r == 0 && !strcmp(out, want), "AT_EMPTY_PATH on an fd to the program (%s)", out);
	close(fd);
	fd = open(prog, O_PATH);
	r = run(fd, "", argv, AT_EMPTY, out, sizeof out);
	ok(r == 0 && !strcmp(out, want), "AT_EMPTY_PATH on an O_PATH fd (%s)", out);
	close(fd);
	r = run(dfd, "link", argv, 0, out, sizeof out);
	snprintf(want, sizeof want, "exe=%s comm=link argv=one,two\n", prog);
	ok(r == 0 && !strcmp(out, want), "a link is followed: exe is the file, comm the name (%s)",
	   out);
}

static void test_fexecve(void)
{
	char *const argv[] = {"x", "three", NULL};
	int fd = open(prog, O_RDONLY), status;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 1);
		fexecve(fd, argv, env);
		_exit(127);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "fexecve runs the program");
	close(fd);
}

static void test_scripts(void)
{
	char *const argv[] = {"x", "four", NULL};
	char out[512], want[512];
	int fd = open(script, O_RDONLY), r;

	require(fd >= 0, "open the script");
	snprintf(want, sizeof want, "exe=%s comm=prog argv=report,/dev/fd/%d,four\n", prog, fd);
	r = run(fd, "", argv, AT_EMPTY, out, sizeof out);
	ok(r == 0 && !strcmp(out, want), "a script by fd: the interpreter gets /dev/fd/N (%s)",
	   out);
	close(fd);
	fd = open(script, O_RDONLY | O_CLOEXEC);
	is_int(run_errno(fd, "", AT_EMPTY), ENOENT, "a script by a close-on-exec fd: ENOENT");
	close(fd);
}

static void test_errors(int dfd)
{
	int file = open(prog, O_RDONLY), closed = 999; /* run() opens pipes: not a freed low fd */

	is_int(run_errno(dfd, "link", AT_NOFOLLOW), ELOOP, "AT_SYMLINK_NOFOLLOW on a link: ELOOP");
	is_int(run_errno(dfd, "prog", 0x1), EINVAL, "an unknown flag: EINVAL");
	is_int(run_errno(closed, "prog", 0x1), EINVAL, "EINVAL before EBADF");
	is_int(run_errno(closed, "", 0x1), ENOENT, "ENOENT for an empty path before EINVAL");
	is_int(run_errno(closed, "prog", 0), EBADF, "a closed dirfd: EBADF");
	is_int(run_errno(closed, "", AT_EMPTY), EBADF, "AT_EMPTY_PATH on a closed fd: EBADF");
	is_int(run_errno(closed, "", 0), ENOENT, "an empty path without AT_EMPTY_PATH: ENOENT");
	is_int(run_errno(file, "prog", 0), ENOTDIR, "a relative path from a file: ENOTDIR");
	is_int(run_errno(dfd, "", AT_EMPTY), EACCES, "AT_EMPTY_PATH on a directory: EACCES");
	is_int(run_errno(AT_FDCWD, "", AT_EMPTY), EACCES, "AT_EMPTY_PATH on the cwd: EACCES");
	is_int(run_errno(dfd, "missing", 0), ENOENT, "a missing name: ENOENT");
	is_int(run_errno(dfd, "data", 0), EACCES, "a file without x bits: EACCES");
	close(file);
}

int main(int argc, char **argv)
{
	int dfd, fd;
	char path[128];

	if (getenv("EXEC_AT_REPORT"))
		return report(argc, argv);
	plan(22);
	snprintf(dir, sizeof dir, "/tmp/exec-at-%d", (int)getpid());
	require(mkdir(dir, 0755) == 0, "mkdir");
	snprintf(prog, sizeof prog, "%s/prog", dir);
	snprintf(script, sizeof script, "%s/script", dir);
	snprintf(link_path, sizeof link_path, "%s/link", dir);
	copy_file("/proc/self/exe", prog, 0755);
	require(symlink("prog", link_path) == 0, "symlink");
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0755);
	require(fd >= 0 && dprintf(fd, "#!%s report\n", prog) > 0, "write the script");
	close(fd);
	snprintf(path, sizeof path, "%s/data", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	close(fd);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	require(dfd >= 0, "open the directory");
	test_runs(dfd);
	test_fexecve();
	test_scripts();
	test_errors(dfd);
	close(dfd);
	ok(unlink(prog) == 0 && unlink(script) == 0 && unlink(link_path) == 0 &&
	       unlink(path) == 0 && rmdir(dir) == 0,
	   "clean up");
	return done();
}
