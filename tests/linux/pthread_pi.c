/*
 * PTHREAD_PRIO_INHERIT mutexes (built with musl and, as pthread_pi_glibc,
 * with glibc): both libcs lock them with FUTEX_LOCK_PI / TRYLOCK_PI /
 * UNLOCK_PI (glibc's timed lock with LOCK_PI2).  4 threads x 5000 exact
 * increments, trylock EBUSY, timedlock ETIMEDOUT, an error-checking one's
 * EDEADLK and EPERM, a robust one whose owner exits (EOWNERDEAD to a
 * waiter already asleep and to a later locker, then consistent), and a
 * condition variable waited on with one.
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "threads.h"

#define NTHREADS 4
#define ROUNDS	 5000

static pthread_mutex_t m;
static long counter;

static void init_mutex(pthread_mutex_t *mx, int type, bool robust)
{
	pthread_mutexattr_t a;
	int err;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	if ((err = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT)))
		skip_all("PTHREAD_PRIO_INHERIT not supported by this libc");
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	require(pthread_mutex_init(mx, &a) == 0, "pthread_mutex_init");
	pthread_mutexattr_destroy(&a);
}

static void *increment(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		require(pthread_mutex_lock(&m) == 0, "lock");
		long v = counter;
		if (i % 500 == 0)
			sched_yield(); /* let the others find it held */
		counter = v + 1;
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *try_it(void *arg)
{
	return (void *)(intptr_t)pthread_mutex_trylock(arg);
}

static void *timed(void *arg)
{
	struct timespec ts = clock_after_ms(CLOCK_REALTIME, 20);

	return (void *)(intptr_t)pthread_mutex_timedlock(arg, &ts);
}

static void *unlock_it(void *arg)
{
	return (void *)(intptr_t)pthread_mutex_unlock(arg);
}

static void test_plain(void)
{
	pthread_t t[NTHREADS];

	init_mutex(&m, PTHREAD_MUTEX_NORMAL, false);
	for (int i = 0; i < NTHREADS; i++)
		t[i] = start_thread(increment, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	is_int(counter, NTHREADS * ROUNDS, "%d threads x %d increments under a PI mutex", NTHREADS,
	       ROUNDS);
	pthread_mutex_lock(&m);
	is_int(in_thread(try_it, &m), EBUSY, "trylock of a held PI mutex: EBUSY");
	is_int(in_thread(timed, &m), ETIMEDOUT, "timedlock of it: ETIMEDOUT");
	pthread_mutex_unlock(&m);
	is_int(in_thread(try_it, &m), 0, "trylock of it free");
	pthread_mutex_destroy(&m);
}

static void test_errorcheck(void)
{
	init_mutex(&m, PTHREAD_MUTEX_ERRORCHECK, false);
	pthread_mutex_lock(&m);
	is_int(pthread_mutex_lock(&m), EDEADLK, "error-checking PI mutex locked again: EDEADLK");
	is_int(in_thread(unlock_it, &m), EPERM, "unlocked by another thread: EPERM");
	is_int(pthread_mutex_unlock(&m), 0, "unlocked by its owner");
	pthread_mutex_destroy(&m);
}

static volatile int owner_state; /* 1: holds the mutex, 2: told to exit */

/* Takes the robust mutex and exits holding it once told to. */
static void *dying_owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	owner_state = 1;
	while (owner_state != 2)
		sched_yield();
	return NULL; /* the thread ends with the mutex held */
}

static void *locker(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)pthread_mutex_lock(&m);
}

static volatile long locker_tid;

static void *sleeping_locker(void *arg)
{
	locker_tid = gettid();
	return locker(arg);
}

static void test_robust(void)
{
	pthread_t owner, waiter;
	void *ret;

	init_mutex(&m, PTHREAD_MUTEX_NORMAL, true);
	owner_state = 0;
	owner = start_thread(dying_owner, NULL);
	while (owner_state != 1)
		sched_yield();
	waiter = start_thread(sleeping_locker, NULL);
	while (!locker_tid || !thread_sleeping(locker_tid))
		sched_yield();
	owner_state = 2;
	pthread_join(owner, NULL);
	pthread_join(waiter, &ret);
	is_int((int)(intptr_t)ret, EOWNERDEAD,
	       "robust PI mutex, owner exits: the sleeping waiter gets EOWNERDEAD");
	is_int(pthread_mutex_unlock(&m), EPERM, "unlocked by another than its new owner: EPERM");

	/* The waiter thread ended holding it without making it consistent:
	 * the next locker finds its owner dead again. */
	is_int(pthread_mutex_lock(&m), EOWNERDEAD, "a later locker: EOWNERDEAD too");
	is_int(pthread_mutex_consistent(&m), 0, "pthread_mutex_consistent");
	is_int(pthread_mutex_unlock(&m), 0, "then unlocked");
	is_int(in_thread(locker, NULL), 0, "and locked normally again");
	pthread_mutex_destroy(&m);
}

static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int items, taken;

static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m);
	for (int i = 0; i < 100; i++) {
		while (!items)
			pthread_cond_wait(&cv, &m);
		items--;
		taken++;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&m);
	return NULL;
}

static void test_condvar(void)
{
	pthread_t c;

	init_mutex(&m, PTHREAD_MUTEX_NORMAL, false);
	c = start_thread(consumer, NULL);
	pthread_mutex_lock(&m);
	for (int i = 0; i < 100; i++) {
		while (items == 2)
			pthread_cond_wait(&cv, &m);
		items++;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&m);
	pthread_join(c, NULL);
	is_int(taken, 100, "a condition variable with a PI mutex: 100 items passed");
	pthread_mutex_destroy(&m);
}

int main(void)
{
	plan(4 + 3 + 6 + 1);
	test_plain();
	test_errorcheck();
	test_robust();
	test_condvar();
	return done();
}
