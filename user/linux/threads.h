/* What the musl thread tests share: starting a thread or bailing out, and a
 * millisecond clock.  tap.h and testutil.h give the rest. */
#ifndef LINUX_THREADS_H
#define LINUX_THREADS_H

#include <pthread.h>
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

static inline long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
