/* Per-thread storage through musl: each thread's __thread block (CLONE_SETTLS)
 * starts from the initial image and stays its own across switches, errno is
 * per thread, and pthread_key destructors run at thread exit. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "threads.h"

#define NTHREADS 4

static __thread long mine = 1000;
static __thread char big[8192];
static pthread_key_t key;
static int destroyed[NTHREADS];

static void destructor(void *v)
{
	destroyed[(intptr_t)v - 1]++;
}

/* Returns 0 if this thread's TLS behaved, or which check failed. */
static void *worker(void *arg)
{
	intptr_t id = (intptr_t)arg;
	uintptr_t bad = 0;

	if (mine != 1000 || big[100] != 0)
		bad = 1; /* not a fresh copy of the initial image */
	mine = id;
	memset(big, (int)id, sizeof big);
	pthread_setspecific(key, (void *)(id + 1));
	errno = 0;
	if (close(-1) != -1 || errno != EBADF)
		bad = 2;
	for (int i = 0; i < 200; i++) {
		sched_yield();
		if (mine != id || big[i * 40] != (char)id)
			bad = 3;
	}
	if ((intptr_t)pthread_getspecific(key) != id + 1)
		bad = 4;
	return (void *)(bad ? bad : (uintptr_t)&mine);
}

int main(void)
{
	pthread_t t[NTHREADS];
	void *addr[NTHREADS];
	int good = 1;

	plan(6);
	require(pthread_key_create(&key, destructor) == 0, "pthread_key_create");
	mine = 5; /* the threads must not see this */
	errno = EINTR;
	for (intptr_t i = 0; i < NTHREADS; i++)
		t[i] = start_thread(worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], &addr[i]);
		if ((uintptr_t)addr[i] < 16)
			diag("thread %d: check %lu failed", i, (unsigned long)(uintptr_t)addr[i]);
		good &= (uintptr_t)addr[i] >= 16;
	}
	ok(good, "each thread's __thread variables start fresh and stay its own");
	for (int i = 0; i < NTHREADS; i++)
		for (int j = 0; j < i; j++)
			good &= addr[i] != addr[j] && addr[i] != (void *)&mine;
	ok(good, "at a different address in every thread");
	is_int(mine, 5, "the main thread's value is untouched");
	is_int(errno, EINTR, "errno is per thread");
	for (int i = 0; i < NTHREADS; i++)
		good &= destroyed[i] == 1;
	ok(good, "pthread_key destructors ran once per thread with its value");
	ok(pthread_getspecific(key) == NULL && pthread_key_delete(key) == 0,
	   "the main thread's key value stays NULL");
	return done();
}
