/* The in-guest fuzzer's unprivileged mode, bounded for `make test`: runs
 * the fuzz program beside this one as `fuzz 2 6000 4 all unpriv` (its
 * workers drop to uid 1000 after their set-up and try escalations:
 * fuzz_unpriv.h, docs/robustness.md).  `make fuzz-unpriv` is the long
 * run.  fdkernel only: on Linux `fuzz` already plays the escalate class
 * as a check of Linux's errnos. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

#include "tap.h"
#include "testutil.h"

int main(int argc, char **argv)
{
	char path[256];
	const char *slash = strrchr(argv[0], '/');
	char *args[] = {"fuzz", "2", "6000", "4", "all", "unpriv", NULL};

	(void)argc;
	if (!on_fdkernel())
		skip_all("fuzzing the host's kernel could damage it");
	snprintf(path, sizeof path, "%.*sfuzz", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	fflush(stdout);
	execve(path, args, environ);
	plan(1);
	ok(0, "exec %s", path);
	return done();
}
