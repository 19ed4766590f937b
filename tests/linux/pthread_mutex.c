/* Mutexes through musl (futex wait and wake under contention): N threads x
 * M increments exact, trylock, error-checking and recursive mutexes, and
 * atomics on memory the threads share. */
#define _GNU_SOURCE
#include <stdint.h>

#include "threads.h"

#define NTHREADS 4
#define ROUNDS	 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter, atomic_counter;

static void *increment(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		long v = counter;
		if (i % 1000 == 0)
			sched_yield(); /* invite the others in while holding it */
		counter = v + 1;
		pthread_mutex_unlock(&lock);
		__atomic_fetch_add(&atomic_counter, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *try_held(void *arg)
{
	return (void *)(intptr_t)pthread_mutex_trylock(arg);
}

static void *unlock_foreign(void *arg)
{
	return (void *)(intptr_t)pthread_mutex_unlock(arg);
}

int main(void)
{
	pthread_t t[NTHREADS];
	pthread_mutexattr_t attr;
	pthread_mutex_t m;

	plan(9);
	for (int i = 0; i < NTHREADS; i++)
		t[i] = start_thread(increment, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	is_int(counter, NTHREADS * ROUNDS, "%d threads x %d locked increments", NTHREADS, ROUNDS);
	is_int(atomic_counter, NTHREADS * ROUNDS, "and as many atomic increments");

	pthread_mutex_lock(&lock);
	is_int(in_thread(try_held, &lock), EBUSY, "trylock of a mutex another thread holds: EBUSY");
	pthread_mutex_unlock(&lock);
	is_int(in_thread(try_held, &lock), 0, "trylock of a free mutex succeeds");
	pthread_mutex_unlock(&lock); /* the thread took it and left: a normal mutex allows this */

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &attr);
	pthread_mutex_lock(&m);
	is_int(pthread_mutex_lock(&m), EDEADLK, "error-checking mutex locked twice: EDEADLK");
	is_int(in_thread(unlock_foreign, &m), EPERM, "unlocked by another thread: EPERM");
	pthread_mutex_unlock(&m);
	pthread_mutex_destroy(&m);

	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m, &attr);
	ok(pthread_mutex_lock(&m) == 0 && pthread_mutex_lock(&m) == 0,
	   "recursive mutex locked twice");
	pthread_mutex_unlock(&m);
	is_int(in_thread(try_held, &m), EBUSY, "still held after one unlock");
	pthread_mutex_unlock(&m);
	is_int(in_thread(try_held, &m), 0, "free after the second");
	pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&attr);
	return done();
}
