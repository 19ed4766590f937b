/* ETXTBSY both ways: a program open for writing cannot be executed, and a
 * running program (or a script's interpreter) cannot be opened for writing
 * or truncated until the last process running it, fork copies included,
 * is gone.  The test runs a copy of itself from /tmp. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char prog[64], script[64];

/* The copy's modes: wait for stdin to close, or fork a child that does
 * and exit at once. */
static int copy_main(const char *mode)
{
	char c;

	if (!strcmp(mode, "fork-hold") && fork() != 0)
		return 0;
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

static void copy_self(void)
{
	char buf[65536];
	ssize_t n;
	int in = open("/proc/self/exe", O_RDONLY), out;

	require(in >= 0, "open /proc/self/exe");
	out = open(prog, O_WRONLY | O_CREAT | O_EXCL, 0755);
	require(out >= 0, "create the copy");
	while ((n = read(in, buf, sizeof buf)) > 0)
		require(write(out, buf, n) == n, "write the copy");
	close(in);
	close(out);
}

/* Starts the copy in MODE with a pipe as stdin: returns the pipe's write
 * end (closing it ends the copy) and the pid in *pid. */
/*
 * Runs path (with mode as its argument unless NULL) in a child whose
 * stdin is a pipe, and returns that pipe's write end.  It returns once
 * the exec is over (a close-on-exec pipe's end gone), so that the busy()
 * probes, which open the file for writing, never race the exec itself
 * (an exec meeting a writer fails with ETXTBSY, on Linux too).
 */
static int start(const char *path, const char *mode, pid_t *pid)
{
	int p[2], done[2];
	char c;

	require(pipe(p) == 0 && pipe2(done, O_CLOEXEC) == 0, "pipes");
	*pid = fork();
	require(*pid >= 0, "fork");
	if (*pid == 0) {
		dup2(p[0], 0);
		close(p[0]);
		close(p[1]);
		close(done[0]);
		execl(path, path, mode, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	close(done[1]);
	while (read(done[0], &c, 1) < 0 && errno == EINTR)
		;
	close(done[0]);
	return p[1];
}

/* Until the copy really runs: it has then closed nothing we can see, so
 * poll for the denial itself, bounded. */
static bool busy(const char *path)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0)
		close(fd);
	return fd < 0 && errno == ETXTBSY;
}

static bool wait_until(bool want_busy)
{
	for (int i = 0; i < 1000; i++, sleep_ms(10))
		if (busy(prog) == want_busy)
			return true;
	return false;
}

static void test_exec_of_open_file(void)
{
	char *argv[] = {prog, "wait", NULL};
	int fd = open(prog, O_RDWR);

	require(fd >= 0, "open the copy");
	is_errno(execv(prog, argv), ETXTBSY, "execve of a file open for writing: ETXTBSY");
	close(fd);
	fd = open(script, O_WRONLY);
	require(fd >= 0, "open the script");
	is_errno(execv(script, argv), ETXTBSY, "execve of a script open for writing: ETXTBSY");
	close(fd);
}

static void test_open_of_running_file(void)
{
	pid_t pid;
	int status, fd, end = start(prog, "wait", &pid);

	ok(wait_until(true), "a running program: open O_WRONLY gives ETXTBSY");
	is_errno(open(prog, O_RDWR), ETXTBSY, "open O_RDWR: ETXTBSY");
	is_errno(open(prog, O_RDONLY | O_TRUNC), ETXTBSY, "open O_RDONLY | O_TRUNC: ETXTBSY");
	is_errno(truncate(prog, 0), ETXTBSY, "truncate: ETXTBSY");
	fd = open(prog, O_RDONLY);
	ok(fd >= 0, "open O_RDONLY works");
	close(fd);
	close(end);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "the copy ends");
	ok(!busy(prog), "then the file opens for writing again");
}

static void test_fork_keeps_it(void)
{
	pid_t pid;
	int status, end = start(prog, "fork-hold", &pid);

	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "the copy forks and exits");
	ok(busy(prog), "its child still runs the program: ETXTBSY");
	close(end);
	ok(wait_until(false), "the child gone, the file opens for writing");
}

static void test_script_interpreter(void)
{
	pid_t pid;
	int status, end = start(script, NULL, &pid);

	ok(wait_until(true), "a script's interpreter is busy while the script runs");
	int fd = open(script, O_WRONLY);
	ok(fd >= 0, "the script itself opens for writing");
	close(fd);
	close(end);
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 0), "the script ends");
}

int main(int argc, char **argv)
{
	int fd;

	if (argc >= 2) /* the copy, or the script's interpreter */
		return copy_main(argv[1]);
	plan(17);
	snprintf(prog, sizeof prog, "/tmp/txtbsy-%d", (int)getpid());
	snprintf(script, sizeof script, "/tmp/txtbsy-%d.sh", (int)getpid());
	copy_self();
	fd = open(script, O_WRONLY | O_CREAT | O_EXCL, 0755);
	require(fd >= 0 && dprintf(fd, "#!%s wait\n", prog) > 0, "write the script");
	close(fd);
	is_errno(open("/proc/self/exe", O_WRONLY), ETXTBSY, "this very program: ETXTBSY");
	test_exec_of_open_file();
	test_open_of_running_file();
	test_fork_keeps_it();
	test_script_interpreter();
	ok(unlink(prog) == 0 && unlink(script) == 0, "the copies are removed");
	return done();
}
