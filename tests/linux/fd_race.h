/* The harness of the fd-flag race tests (pthread_cloexec, pthread_clofork):
 * opener threads create and close fds in a loop while the main thread
 * starts children that report how many fds they got. */
#ifndef LINUX_FD_RACE_H
#define LINUX_FD_RACE_H

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "fdkernel_abi.h"
#include "threads.h"

#define RACE_OPENERS  2
#define RACE_TRIES    1000
#define RACE_SCAN_MAX 128

/* Set when the openers must stop. */
static volatile int race_stop;

/* An opener's loop condition.  It yields every fourth round: on one CPU,
 * openers that never block leave the forking thread one time slice in
 * three (a fork+exec+wait took 125 ms in fdkernel, against 1 ms with the
 * yields), while yielding every round would leave them nearly always at
 * the yield, never inside the window, when the fork comes. */
static inline int race_go_on(void)
{
	static __thread unsigned rounds;

	if (++rounds % 4 == 0)
		sched_yield();
	return !race_stop;
}

/* Open fds in [3, RACE_SCAN_MAX). */
static inline int count_fds(void)
{
	int n = 0;

	for (int fd = 3; fd < RACE_SCAN_MAX; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* One descriptor flag (close-on-exec or close-on-fork) in the form each
 * fd-creating call takes it. */
struct race_flag {
	int oflag;	      /* O_CLOEXEC / O_CLOFORK: open, pipe2, socket2 */
	int sockflag;	      /* SOCK_CLOEXEC / SOCK_CLOFORK */
	int dupfd_cmd;	      /* F_DUPFD_CLOEXEC / F_DUPFD_CLOFORK */
	unsigned long sysind; /* SYSIND_CLOEXEC / SYSIND_CLOFORK */
	int fdflag;	      /* FD_CLOEXEC / FD_CLOFORK, for F_SETFD */
};

/* One fd (or two) created with the flag set at once, by way I % 6, into
 * FDS.  The last two ways are fdkernel's; on Linux they fail (ENOSYS) and
 * create nothing. */
static inline void race_create(const struct race_flag *f, int i, int fds[2])
{
	fds[1] = -1;
	switch (i % 6) {
	case 0:
		fds[0] = open("/dev/null", O_RDONLY | f->oflag);
		break;
	case 1:
		if (pipe2(fds, f->oflag) < 0)
			fds[0] = fds[1] = -1;
		break;
	case 2:
		fds[0] = socket(AF_UNIX, SOCK_STREAM | f->sockflag, 0);
		break;
	case 3:
		fds[0] = fcntl(1, f->dupfd_cmd, 3);
		break;
	case 4:
		fds[0] = socket2(AF_UNIX, SOCK_DGRAM, 0, f->oflag);
		break;
	default:
		fds[0] = INDIRECT(f->sysind, SYS_open, (unsigned long)"/dev/null", O_RDONLY);
	}
}

/* Opener threads (arg: the struct race_flag).  The atomic one creates and
 * closes fds with the flag set at once; the racy one opens, then sets the
 * flag with fcntl: a fork in between inherits the fd. */
static inline void *race_atomic_opener(void *arg)
{
	int fds[2];

	for (int i = 0; race_go_on(); i++) {
		race_create(arg, i, fds);
		close(fds[0]);
		close(fds[1]);
	}
	return NULL;
}

static inline void *race_racy_opener(void *arg)
{
	const struct race_flag *f = arg;

	while (race_go_on()) {
		int fd = open("/dev/null", O_RDONLY);
		fcntl(fd, F_SETFD, f->fdflag);
		close(fd);
	}
	return NULL;
}

/* Runs OPENER(FLAG) in RACE_OPENERS threads while calling CHILD RACE_TRIES
 * times (CHILD starts a child and returns its wait status, whose exit code
 * is the number of fds it had).  Returns how many children had more than
 * BASE. */
static inline int fd_race(void *(*opener)(void *), const struct race_flag *flag, int (*child)(void),
			  int base)
{
	pthread_t t[RACE_OPENERS];
	int leaks = 0;

	race_stop = 0;
	for (int i = 0; i < RACE_OPENERS; i++)
		t[i] = start_thread(opener, (void *)flag);
	for (int i = 0; i < RACE_TRIES; i++) {
		int status = child();
		require(status != -1, "fork and wait");
		leaks += WIFEXITED(status) && WEXITSTATUS(status) > base;
	}
	race_stop = 1;
	for (int i = 0; i < RACE_OPENERS; i++)
		pthread_join(t[i], NULL);
	return leaks;
}

#endif
