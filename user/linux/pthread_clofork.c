/* fdkernel's close-on-fork against the same race as pthread_cloexec, with a
 * plain fork: threads create fds with FD_CLOFORK set atomically (O_CLOFORK,
 * pipe2, SOCK_CLOFORK, F_DUPFD_CLOFORK, socket2, syscall_indirect) while
 * the main thread forks children that count their fds: none may leak.
 * open then fcntl(FD_CLOFORK) is shown, not asserted.  Linux has no
 * close-on-fork: the test skips there. */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* first: see there */

#include <sys/socket.h>
#include <sys/syscall.h>

#include "fd_race.h"

static void create_clofork(int i, int fds[2])
{
	fds[1] = -1;
	switch (i % 6) {
	case 0:
		fds[0] = open("/dev/null", O_RDONLY | O_CLOFORK);
		break;
	case 1:
		if (pipe2(fds, O_CLOFORK) < 0)
			fds[0] = fds[1] = -1;
		break;
	case 2:
		fds[0] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOFORK, 0);
		break;
	case 3:
		fds[0] = fcntl(1, F_DUPFD_CLOFORK, 3);
		break;
	case 4:
		fds[0] = socket2(AF_UNIX, SOCK_DGRAM, 0, O_CLOFORK);
		break;
	default:
		fds[0] = INDIRECT(SYSIND_CLOFORK, SYS_open, (unsigned long)"/dev/null", O_RDONLY);
	}
}

static void *atomic_opener(void *arg)
{
	int fds[2];

	(void)arg;
	for (int i = 0; race_go_on(); i++) {
		create_clofork(i, fds);
		close(fds[0]);
		close(fds[1]);
	}
	return NULL;
}

static void *racy_opener(void *arg)
{
	(void)arg;
	while (race_go_on()) {
		int fd = open("/dev/null", O_RDONLY);
		fcntl(fd, F_SETFD, FD_CLOFORK);
		close(fd);
	}
	return NULL;
}

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
		create_clofork(i, fds);
		ok(fds[0] >= 0 && fcntl(fds[0], F_GETFD) == FD_CLOFORK, "way %d sets FD_CLOFORK",
		   i);
		close(fds[0]);
		close(fds[1]);
	}
	is_int(fd_race(atomic_opener, fork_counter, base), 0,
	       "fds created with FD_CLOFORK at once: none reaches %d forks", RACE_TRIES);
	int leaks = fd_race(racy_opener, fork_counter, base);
	ok(leaks <= RACE_TRIES, "open then fcntl(FD_CLOFORK): %d of %d children inherited an fd",
	   leaks, RACE_TRIES);
	is_int(count_fds(), base, "no fd left open in the test");
	return done();
}
