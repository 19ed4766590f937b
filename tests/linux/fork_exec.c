/* Processes through musl: fork, execve/execv of this program in a child
 * mode (argv and environment carried across), wait statuses, and a child
 * that uses stdio and malloc after fork. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* Child mode: "child CODE" prints its argv and $MUSL_TEST, exits CODE. */
static int child_main(int argc, char **argv)
{
	const char *var = getenv("MUSL_TEST");

	printf("argc=%d arg2=%s env=%s pid_ok=%d", argc, argv[2], var ? var : "(none)",
	       getppid() > 0);
	return atoi(argv[2]);
}

/* Run this program as "child CODE" with ENV; its output into OUT. */
static int run_child(const char *self, const char *code, char *env, char *out, size_t size)
{
	char *argv[] = {(char *)self, "child", (char *)code, NULL};
	char *envp[] = {env, NULL};

	return run_capture(self, argv, envp, out, size);
}

static void use_heap_and_stdio(void)
{
	char *p = malloc(100000);

	if (!p)
		_exit(2);
	memset(p, 'm', 100000);
	int intact = p[0] == 'm' && p[99999] == 'm';
	free(p);
	printf("child heap %d\n", intact);
	fflush(stdout);
	_exit(intact ? 0 : 3);
}

static void killed(void)
{
	kill(getpid(), SIGTERM);
	pause();
}

int main(int argc, char **argv)
{
	char out[256];
	int status;

	if (argc > 2 && strcmp(argv[1], "child") == 0)
		return child_main(argc, argv);
	plan(9);
	status = run_child(argv[0], "0", "MUSL_TEST=yes", out, sizeof out);
	ok(exited_with(status, 0), "execve of a musl program, exit 0");
	if (!ok(strcmp(out, "argc=3 arg2=0 env=yes pid_ok=1") == 0, "argv and envp arrive"))
		diag("got \"%s\"", out);
	status = run_child(argv[0], "42", "OTHER=1", out, sizeof out);
	ok(exited_with(status, 42), "exit status 42 through exit()");
	ok(strstr(out, "env=(none)") != NULL, "only the given environment");
	status = run_child(argv[0], "255", "MUSL_TEST=", out, sizeof out);
	ok(exited_with(status, 255) && strstr(out, "env= ") != NULL, "exit 255, empty variable");

	ok(exited_with(child_status(use_heap_and_stdio), 0), "a fork child uses malloc and stdio");
	ok(killed_by(child_status(killed), SIGTERM), "a child killed by SIGTERM");

	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = {"/no/such/program", NULL};
		execv(args[0], args);
		_exit(errno == ENOENT ? 7 : 8);
	}
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 7),
	   "execv of a missing file: ENOENT");
	is_errno(waitpid(-1, &status, WNOHANG), ECHILD, "no children left: ECHILD");
	return done();
}
