/* fdkernel's close-on-fork against the same race as pthread_cloexec, with a
 * plain fork: threads create fds with FD_CLOFORK set atomically (O_CLOFORK,
 * pipe2, SOCK_CLOFORK, F_DUPFD_CLOFORK, socket2, syscall_indirect) while
 * the main thread forks children that count their fds: none may leak.
 * open then fcntl(FD_CLOFORK) is shown, not asserted.  Linux has no
 * close-on-fork: the test skips there. */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* first: see there */

#include "fd_race.h"

static const struct race_flag clofork = {O_CLOFORK, SOCK_CLOFORK, F_DUPFD_CLOFORK, SYSIND_CLOFORK,
					 FD_CLOFORK};

static void exit_fd_count(void)
{
	_exit(count_fds());
}

static int fork_counter(void)
{
	return child_status(exit_fd_count);
}

int main(void)
{
	int fds[2];

	if (!on_fdkernel())
		skip_all("close-on-fork is fdkernel's (Linux has no O_CLOFORK)");
	plan(9);
	int base = count_fds();
	for (int i = 0; i < 6; i++) {
		race_create(&clofork, i, fds);
		ok(fds[0] >= 0 && fcntl(fds[0], F_GETFD) == FD_CLOFORK, "way %d sets FD_CLOFORK",
		   i);
		close(fds[0]);
		close(fds[1]);
	}
	is_int(fd_race(race_atomic_opener, &clofork, fork_counter, base), 0,
	       "fds created with FD_CLOFORK at once: none reaches %d forks", RACE_TRIES);
	int leaks = fd_race(race_racy_opener, &clofork, fork_counter, base);
	ok(leaks <= RACE_TRIES, "open then fcntl(FD_CLOFORK): %d of %d children inherited an fd",
	   leaks, RACE_TRIES);
	is_int(count_fds(), base, "no fd left open in the test");
	return done();
}
