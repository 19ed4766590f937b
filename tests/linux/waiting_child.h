/* A child process to point calls at (pidfd, kcmp): it lives until the
 * parent says so through a pipe. */
#ifndef LINUX_WAITING_CHILD_H
#define LINUX_WAITING_CHILD_H

#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "testutil.h"

/* A child that waits until its end of a pipe closes or gets a byte, then
 * exits with that byte (0 at EOF); *ctl is the parent's end. */
static inline pid_t waiting_child(int *ctl)
{
	int p[2];
	pid_t pid;

	require(pipe(p) == 0, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char c = 0;
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? c : 0);
	}
	close(p[0]);
	*ctl = p[1];
	return pid;
}

#endif
