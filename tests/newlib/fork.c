/*
 * fork and the wait family: exit status, death by signal (signal numbers
 * translated: SIGUSR1 is 30 in newlib, 10 in Linux), WNOHANG, ECHILD.
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/* Fork a child that runs fn(arg) and exits with its result. */
static pid_t child(int (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

static int exit_with(int code)
{
	return code;
}

static int die_by(int sig)
{
	kill(getpid(), sig);
	return 99;
}

/* Sleep until a signal kills us. */
static int wait_for_signal(int unused)
{
	(void)unused;
	pause();
	return 98;
}

int main(void)
{
	int status = 0;
	pid_t pid;

	plan(12);
	pid = child(exit_with, 42);
	ok(pid > 0, "fork returns the child's pid");
	is_int(waitpid(pid, &status, 0), pid, "waitpid returns that pid");
	ok(WIFEXITED(status), "child exited normally");
	is_int(WEXITSTATUS(status), 42, "exit status 42");

	pid = child(die_by, SIGUSR1);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status), "child killed by a signal");
	is_int(WTERMSIG(status), SIGUSR1, "WTERMSIG is newlib's SIGUSR1");

	pid = child(wait_for_signal, 0);
	is_int(waitpid(pid, &status, WNOHANG), 0, "WNOHANG on a running child");
	is_int(kill(pid, SIGTERM), 0, "kill SIGTERM");
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "child died of SIGTERM");

	pid = child(exit_with, 7);
	is_int(wait(&status), pid, "wait reaps the child");
	is_int(WEXITSTATUS(status), 7, "wait status 7");
	is_errno(waitpid(-1, &status, 0), ECHILD, "no children left");
	return done();
}
