/*
 * execve of a helper (bin/echoargs, next to this folder) with argv and
 * envp, its output read through a pipe; execve failures.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

static char helper[512];

/* Run the helper with argv/envp; its stdout lands in out, status returned. */
static int run_helper(char *const argv[], char *const envp[], char *out, size_t size)
{
	int p[2], status = -1;
	ssize_t n, got = 0;

	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execve(helper, argv, envp);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], out + got, size - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return status;
}

int main(int argc, char **argv)
{
	char out[1024];
	const char *slash = strrchr(argv[0], '/');

	(void)argc;
	snprintf(helper, sizeof(helper), "%.*s/../bin/echoargs", slash ? (int)(slash - argv[0]) : 1,
		 slash ? argv[0] : ".");
	plan(8);

	char *args[] = {"echoargs", "one", "two words", NULL};
	char *env[] = {"FDK_A=1", "FDK_B=hello world", NULL};
	int status = run_helper(args, env, out, sizeof(out));
	ok(WIFEXITED(status), "helper ran and exited");
	is_int(WEXITSTATUS(status), 3, "exit status is its argc");
	ok(strstr(out, "arg 0 echoargs\narg 1 one\narg 2 two words\n") != NULL,
	   "argv arrives in order, spaces kept");
	ok(strstr(out, "env FDK_A=1\nenv FDK_B=hello world\n") != NULL, "envp arrives");
	ok(strstr(out, "PATH=") == NULL, "only the given environment");

	char *none[] = {"echoargs", NULL};
	char *empty[] = {NULL};
	status = run_helper(none, empty, out, sizeof(out));
	ok(WEXITSTATUS(status) == 1 && strcmp(out, "arg 0 echoargs\n") == 0, "empty environment");

	is_errno(execve("/nonexistent/prog", none, empty), ENOENT, "execve of a missing file");
	is_errno(execve("/tmp", none, empty), EACCES, "execve of a directory");
	return done();
}
