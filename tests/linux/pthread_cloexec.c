/* The race close-on-exec flags exist for: threads create fds in a loop
 * while the main thread forks and executes a checker that counts the fds
 * it inherited.  Created with the flag set atomically (O_CLOEXEC, pipe2,
 * SOCK_CLOEXEC, F_DUPFD_CLOEXEC, and in fdkernel socket2 and
 * syscall_indirect) none may leak; with open and then fcntl(FD_CLOEXEC) one
 * can slip into a child between the two calls: that count is shown, not
 * asserted (it depends on how the scheduler interleaves the threads). */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* first: see there */

#include "fd_race.h"

static const char *self;

static const struct race_flag cloexec = {O_CLOEXEC, SOCK_CLOEXEC, F_DUPFD_CLOEXEC, SYSIND_CLOEXEC,
					 FD_CLOEXEC};

/* Fork and execute this program as the checker ("count"). */
static int exec_checker(void)
{
	char *argv[] = {(char *)self, "count", NULL};
	int status;

	pid_t pid = fork();
	if (pid == 0) {
		execv(self, argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid ? status : -1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "count") == 0)
		return count_fds();
	self = argv[0];
	plan(3);
	int base = count_fds(); /* what the test itself inherited */
	long start = mono_ms();
	is_int(fd_race(race_atomic_opener, &cloexec, exec_checker, base), 0,
	       "fds created with FD_CLOEXEC at once: none reaches %d execs", RACE_TRIES);
	diag("%d fork+exec in %ld ms", RACE_TRIES, mono_ms() - start);
	int leaks = fd_race(race_racy_opener, &cloexec, exec_checker, base);
	ok(leaks <= RACE_TRIES, "open then fcntl(FD_CLOEXEC): %d of %d children inherited an fd",
	   leaks, RACE_TRIES);
	is_int(count_fds(), base, "no fd left open in the test");
	return done();
}
