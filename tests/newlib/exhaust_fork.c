/* Exhaustion: fork until the task limit (1024 live tasks: EAGAIN), then let
 * them all go: every child is reaped, fork works again, nothing leaked. */
#include "robust.h"

#define TASK_LIMIT 1024 /* docs/processes.md */

int main(int argc, char **argv)
{
	struct kstat before, full;
	int fds[2], err;
	(void)argc;
	if (!on_fdkernel())
		skip_all("a fork bomb on the host");
	plan(8);
	bool have_before = kstat_read(&before);
	require(pipe(fds) == 0, "a release pipe");
	int n = fork_blocked(-1, fds[0], fds[1], &err);
	is_int(err, EAGAIN, "fork past the task limit: EAGAIN");
	if (kstat_read(&full) && have_before)
		is_int(full.v[KS_TASKS], TASK_LIMIT, "%d children: the tasks are at the limit", n);
	else
		skip("no " KSTAT_PATH, "the tasks are at the limit");
	ok(pipe_round_trip(), "at the limit, the parent still works (a pipe round trip)");
	close(fds[0]);
	close(fds[1]); /* EOF: every child exits */
	is_int(reap_all(), n, "all %d children exit 0 and are reaped", n);
	ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "no child left");
	system_usable(argv[0], "the task limit");
	kstat_unchanged(&before, have_before, "nothing leaked");
	return done();
}
