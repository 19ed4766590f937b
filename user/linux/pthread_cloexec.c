/* The race close-on-exec flags exist for: threads create fds in a loop
 * while the main thread forks and executes a checker that counts the fds
 * it inherited.  Created with the flag set atomically (O_CLOEXEC, pipe2,
 * SOCK_CLOEXEC, F_DUPFD_CLOEXEC, and in fdkernel socket2 and
 * syscall_indirect) none may leak; with open and then fcntl(FD_CLOEXEC) one
 * can slip into a child between the two calls: that count is shown, not
 * asserted (it depends on how the scheduler interleaves the threads). */
#define _GNU_SOURCE
#include "fdkernel_abi.h" /* first: see there */

#include <sys/socket.h>
#include <sys/syscall.h>

#include "fd_race.h"

static const char *self;

/* One fd (or two) created with FD_CLOEXEC by way I % 6, into FDS.  The last
 * two ways are fdkernel's; on Linux they fail (ENOSYS) and create nothing. */
static void create_cloexec(int i, int fds[2])
{
	fds[1] = -1;
	switch (i % 6) {
	case 0:
		fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		break;
	case 1:
		if (pipe2(fds, O_CLOEXEC) < 0)
			fds[0] = fds[1] = -1;
		break;
	case 2:
		fds[0] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		break;
	case 3:
		fds[0] = fcntl(1, F_DUPFD_CLOEXEC, 3);
		break;
	case 4:
		fds[0] = socket2(AF_UNIX, SOCK_DGRAM, 0, O_CLOEXEC);
		break;
	default:
		fds[0] = INDIRECT(SYSIND_CLOEXEC, SYS_open, (unsigned long)"/dev/null", O_RDONLY);
	}
}

static void *atomic_opener(void *arg)
{
	int fds[2];

	(void)arg;
	for (int i = 0; race_go_on(); i++) {
		create_cloexec(i, fds);
		close(fds[0]);
		close(fds[1]);
	}
	return NULL;
}

/* Opens, then sets FD_CLOEXEC: a fork in between inherits the fd. */
static void *racy_opener(void *arg)
{
	(void)arg;
	while (race_go_on()) {
		int fd = open("/dev/null", O_RDONLY);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		close(fd);
	}
	return NULL;
}

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
	is_int(fd_race(atomic_opener, exec_checker, base), 0,
	       "fds created with FD_CLOEXEC at once: none reaches %d execs", RACE_TRIES);
	diag("%d fork+exec in %ld ms", RACE_TRIES, mono_ms() - start);
	int leaks = fd_race(racy_opener, exec_checker, base);
	ok(leaks <= RACE_TRIES, "open then fcntl(FD_CLOEXEC): %d of %d children inherited an fd",
	   leaks, RACE_TRIES);
	is_int(count_fds(), base, "no fd left open in the test");
	return done();
}
