/*
 * Assertions made in a child process, counted as the parent's: for tests
 * that change what a process is (drop privileges, change ids) and must
 * leave the test program itself as it was.  Linux-ABI tests (musl, glibc).
 */
#ifndef USER_TAP_CHILD_H
#define USER_TAP_CHILD_H

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/*
 * Runs fn in a child whose ok() lines continue the parent's numbering; the
 * child's counts come back through shared memory when it exits 0.  A
 * child that dies meanwhile is one failed assertion (and the plan is then
 * off, which done() reports).
 */
static inline void in_child(const char *what, void (*fn)(void))
{
	int *counts =
	    mmap(NULL, 2 * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	if (counts == MAP_FAILED) {
		ok(0, "%s: mmap for the child's counts", what);
		return;
	}
	fflush(stdout);
	if ((pid = fork()) == 0) {
		fn();
		counts[0] = tap_count, counts[1] = tap_failed;
		_exit(0);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0) {
		tap_count = counts[0], tap_failed = counts[1];
	} else {
		ok(0, "%s: the child ended early (status 0x%x)", what, pid > 0 ? status : -1);
	}
	munmap(counts, 2 * sizeof(int));
}

#endif
