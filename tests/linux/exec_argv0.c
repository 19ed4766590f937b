/* execve with an empty argv (argc 0): the program gets argc 1 and an
 * empty argv[0], as Linux 5.18+ inserts it; the environment follows. */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* The re-executed copy: exit 0 when argv is { "", NULL } and the
 * environment came through, else a code saying what was wrong. */
static int check_args(int argc, char **argv, char **envp)
{
	if (argc != 1)
		return 10 + (argc > 5 ? 5 : argc);
	if (!argv[0] || argv[0][0] || argv[1])
		return 3;
	if (!envp[0] || strcmp(envp[0], "ARGV0_CHILD=1") || envp[1])
		return 4;
	return 0;
}

static int run(char *const argv[], char *const envp[])
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid ? status : -1;
}

int main(int argc, char **argv, char **envp)
{
	char *empty[] = {NULL}, *env[] = {"ARGV0_CHILD=1", NULL};
	int status;

	if (getenv("ARGV0_CHILD"))
		return check_args(argc, argv, envp);
	plan(2);
	status = run(empty, env);
	ok(exited_with(status, 0), "argv {NULL}: argc 1, argv[0] \"\" (exit %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	status = run(NULL, env);
	ok(exited_with(status, 0), "argv NULL: the same (exit %d)",
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return done();
}
