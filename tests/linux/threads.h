/* What the musl thread tests share: starting a thread or bailing out, and a
 * millisecond clock.  tap.h and testutil.h give the rest. */
#ifndef LINUX_THREADS_H
#define LINUX_THREADS_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "testutil.h"

/* Start FN(ARG) in a new thread; a failure ends the test (Bail out!). */
static inline pthread_t start_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, fn, arg);

	if (err) {
		errno = err;
		require(0, "pthread_create");
	}
	return t;
}

/* FN(ARG) in a thread of its own, joined: what it returned, as an int. */
static inline int in_thread(void *(*fn)(void *), void *arg)
{
	void *ret;

	pthread_join(start_thread(fn, arg), &ret);
	return (int)(intptr_t)ret;
}

/* Whether thread TID sleeps now: the state in /proc/self/task/TID/stat. */
static inline bool thread_sleeping(long tid)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
	return stat_state(path) == 'S';
}

/* The time ms milliseconds from now on clock, for an absolute timeout. */
static inline struct timespec clock_after_ms(clockid_t clock, long ms)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += ms % 1000 * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static inline long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
