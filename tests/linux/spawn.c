/* musl's ways to start a program without fork: posix_spawn (clone with
 * CLONE_VM|CLONE_VFORK: the parent sleeps until the child execs), and
 * popen and system, built on it.  File actions (dup2, open, close) apply
 * in the child only. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <unistd.h>

#include "testutil.h"

extern char **environ;

/* Mode "echo": prints its remaining arguments joined by '+'. */
static int echo_main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? "+" : "");
	return argc - 2;
}

static void test_spawn(char *self)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = {self, "echo", "a", "b c", NULL}, buf[32] = "";
	int fds[2], status;
	pid_t pid;

	require(pipe(fds) == 0, "pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	is_int(posix_spawn(&pid, self, &fa, NULL, argv, environ), 0, "posix_spawn");
	close(fds[1]);
	ok(read(fds[0], buf, sizeof buf - 1) > 0 && strcmp(buf, "a+b c") == 0,
	   "the child's stdout went to the pipe");
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 2), "exit status 2");
	close(fds[0]);
	posix_spawn_file_actions_destroy(&fa);
	char *missing[] = {"/no/such/file", NULL};
	is_int(posix_spawn(&pid, missing[0], NULL, NULL, missing, environ), ENOENT,
	       "posix_spawn of a missing file: ENOENT from the child's execve");
}

static void test_popen(const char *self)
{
	char cmd[300], line[32] = "";

	snprintf(cmd, sizeof cmd, "%s echo piped", self);
	FILE *f = popen(cmd, "r");
	ok(f && fgets(line, sizeof line, f) && strcmp(line, "piped") == 0,
	   "popen reads the output");
	ok(f && WEXITSTATUS(pclose(f)) == 1, "pclose gives the exit status");
	snprintf(cmd, sizeof cmd, "%s echo 1 2 3 > /dev/null", self);
	ok(exited_with(system(cmd), 3), "system() runs a command through /bin/sh, status 3");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "echo") == 0)
		return echo_main(argc, argv);
	plan(7);
	test_spawn(argv[0]);
	test_popen(argv[0]);
	return done();
}
