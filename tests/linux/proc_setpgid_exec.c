/* setpgid on a child: allowed until it calls execve (then EACCES), EPERM
 * once it is in another session, ESRCH for a process that is not a child. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

/* A child that waits for its stdin to close; before that it runs ACTION:
 * 'e' execs this program again (in wait mode), 's' calls setsid, '-'
 * nothing.  It tells us it got that far by closing its end of a pipe
 * (close-on-exec for 'e'), so we know when the exec has happened. */
static pid_t start(char action, int *end)
{
	int in[2], ready[2];
	pid_t pid;
	char c;

	require(pipe(in) == 0 && pipe2(ready, O_CLOEXEC) == 0, "pipes");
	pid = fork();
	require(pid >= 0, "fork");
	if (pid == 0) {
		dup2(in[0], 0);
		close(in[0]);
		close(in[1]);
		close(ready[0]);
		if (action == 'e')
			execl("/proc/self/exe", "setpgid-child", "wait", (char *)NULL);
		if (action == 's')
			setsid();
		close(ready[1]);
		while (read(0, &c, 1) > 0)
			;
		_exit(0);
	}
	close(in[0]);
	close(ready[1]);
	require(read(ready[0], &c, 1) == 0, "the child is ready");
	close(ready[0]);
	*end = in[1];
	return pid;
}

static void stop(pid_t pid, int end)
{
	int status;

	close(end);
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	char c;
	int end;
	pid_t pid;

	if (argc == 2 && !strcmp(argv[1], "wait")) {
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	plan(6);
	pid = start('-', &end);
	ok(setpgid(pid, pid) == 0 && getpgid(pid) == pid, "a child before execve: moved");
	ok(setpgid(pid, getpgrp()) == 0 && getpgid(pid) == getpgrp(), "and moved back");
	stop(pid, end);
	pid = start('e', &end);
	is_errno(setpgid(pid, pid), EACCES, "a child after execve: EACCES");
	is_errno(setpgid(pid, getpgrp()), EACCES, "even to its own group: EACCES");
	stop(pid, end);
	pid = start('s', &end);
	is_errno(setpgid(pid, pid), EPERM, "a child in another session: EPERM");
	stop(pid, end);
	is_errno(setpgid(getppid(), 0), ESRCH, "the parent: ESRCH");
	return done();
}
