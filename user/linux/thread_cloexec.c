/* The race close-on-exec flags exist for: threads create fds in a loop
 * while the main thread forks and executes a checker that counts the fds
 * it inherited.  Created with O_CLOEXEC (open, pipe2, socket, F_DUPFD)
 * none may leak; with open and then fcntl(FD_CLOEXEC) one can slip into a
 * child between the two calls: that count is shown, not asserted (it
 * depends on how the scheduler interleaves the threads). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "threads.h"

#define OPENERS	 2
#define TRIES	 300
#define SCAN_MAX 128

static volatile int stop;

/* Open fds in [3, SCAN_MAX). */
static int count_fds(void)
{
	int n = 0;

	for (int fd = 3; fd < SCAN_MAX; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Creates and closes fds with the flag set atomically, by four calls. */
static void *atomic_opener(void *arg)
{
	int fds[2];

	(void)arg;
	for (int i = 0; !stop; i++) {
		switch (i % 4) {
		case 0:
			fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
			fds[1] = -1;
			break;
		case 1:
			if (pipe2(fds, O_CLOEXEC) < 0)
				fds[0] = fds[1] = -1;
			break;
		case 2:
			fds[0] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			fds[1] = -1;
			break;
		default:
			fds[0] = fcntl(1, F_DUPFD_CLOEXEC, 3);
			fds[1] = -1;
		}
		close(fds[0]);
		close(fds[1]);
	}
	return NULL;
}

/* Opens, then sets FD_CLOEXEC: a fork in between inherits the fd. */
static void *racy_opener(void *arg)
{
	(void)arg;
	while (!stop) {
		int fd = open("/dev/null", O_RDONLY);
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		close(fd);
	}
	return NULL;
}

/* Fork and exec the checker TRIES times while OPENER runs in OPENERS
 * threads; returns how many children found more fds than BASE. */
static int race(const char *self, void *(*opener)(void *), int base)
{
	pthread_t t[OPENERS];
	char *argv[] = {(char *)self, "count", NULL};
	int leaks = 0, status;

	stop = 0;
	for (int i = 0; i < OPENERS; i++)
		t[i] = start_thread(opener, NULL);
	for (int i = 0; i < TRIES; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			execv(self, argv);
			_exit(127);
		}
		require(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait");
		leaks += WIFEXITED(status) && WEXITSTATUS(status) > base;
	}
	stop = 1;
	for (int i = 0; i < OPENERS; i++)
		pthread_join(t[i], NULL);
	return leaks;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "count") == 0)
		return count_fds();
	plan(3);
	int base = count_fds(); /* what the test itself inherited */
	long start = mono_ms();
	is_int(race(argv[0], atomic_opener, base), 0,
	       "O_CLOEXEC, pipe2, SOCK_CLOEXEC, F_DUPFD_CLOEXEC: no fd reaches %d execs", TRIES);
	diag("%d fork+exec in %ld ms", TRIES, mono_ms() - start);
	int leaks = race(argv[0], racy_opener, base);
	ok(leaks <= TRIES, "open then fcntl(FD_CLOEXEC): %d of %d children inherited an fd", leaks,
	   TRIES);
	is_int(count_fds(), base, "no fd left open in the test");
	return done();
}
