/* The harness of the fd-flag race tests (pthread_cloexec, pthread_clofork):
 * opener threads create and close fds in a loop while the main thread
 * starts children that report how many fds they got. */
#ifndef LINUX_FD_RACE_H
#define LINUX_FD_RACE_H

#include <fcntl.h>

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

/* Runs OPENER in RACE_OPENERS threads while calling CHILD RACE_TRIES times
 * (CHILD starts a child and returns its wait status, whose exit code is the
 * number of fds it had).  Returns how many children had more than BASE. */
static inline int fd_race(void *(*opener)(void *), int (*child)(void), int base)
{
	pthread_t t[RACE_OPENERS];
	int leaks = 0;

	race_stop = 0;
	for (int i = 0; i < RACE_OPENERS; i++)
		t[i] = start_thread(opener, NULL);
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
