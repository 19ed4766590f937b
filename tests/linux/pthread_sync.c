/* The other musl synchronisation objects between threads: pthread_barrier
 * (one serial thread per round, no thread a round ahead), pthread_once,
 * sem_t (post, wait, trywait, timedwait) and a reader-writer lock. */
#define _GNU_SOURCE
#include <semaphore.h>

#include "threads.h"

#define NTHREADS 4
#define ROUNDS	 20

static pthread_barrier_t barrier;
static int arrived[ROUNDS], serials[ROUNDS], ahead;

static void *barrier_worker(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		__atomic_fetch_add(&arrived[r], 1, __ATOMIC_SEQ_CST);
		int ret = pthread_barrier_wait(&barrier);
		if (ret == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_fetch_add(&serials[r], 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&arrived[r], __ATOMIC_SEQ_CST) != NTHREADS)
			__atomic_fetch_add(&ahead, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_calls;

static void init_once(void)
{
	usleep(10000); /* the others must wait for this to finish */
	once_calls++;
}

static void *once_worker(void *arg)
{
	pthread_once(&once, init_once);
	return (void *)(long)(once_calls == 1 && arg == NULL);
}

static sem_t items, done_sem;

static void *sem_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++) {
		sem_wait(&items);
		sem_post(&done_sem);
	}
	return NULL;
}

static void test_sem(void)
{
	struct timespec ts;
	int value = -1;

	require(sem_init(&items, 0, 0) == 0 && sem_init(&done_sem, 0, 0) == 0, "sem_init");
	pthread_t t = start_thread(sem_worker, NULL);
	for (int i = 0; i < 100; i++) {
		sem_post(&items);
		sem_wait(&done_sem);
	}
	pthread_join(t, NULL);
	ok(sem_getvalue(&items, &value) == 0 && value == 0, "100 posts and waits in step");
	is_errno(sem_trywait(&items), EAGAIN, "sem_trywait at 0: EAGAIN");
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 30000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	long start = mono_ms();
	is_errno(sem_timedwait(&items, &ts), ETIMEDOUT, "sem_timedwait: ETIMEDOUT");
	ok(mono_ms() - start >= 25, "after about 30 ms");
	sem_destroy(&items);
	sem_destroy(&done_sem);
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

static void *try_write(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_rwlock_trywrlock(&rw);
}

static void *try_read(void *arg)
{
	(void)arg;
	long ret = pthread_rwlock_tryrdlock(&rw);

	if (ret == 0)
		pthread_rwlock_unlock(&rw);
	return (void *)ret;
}

int main(void)
{
	pthread_t t[NTHREADS];
	int good = 1;

	plan(9);
	pthread_barrier_init(&barrier, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		t[i] = start_thread(barrier_worker, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int r = 0; r < ROUNDS; r++)
		good &= serials[r] == 1;
	ok(good, "one PTHREAD_BARRIER_SERIAL_THREAD in each of %d rounds", ROUNDS);
	is_int(ahead, 0, "no thread passed a barrier before all arrived");
	pthread_barrier_destroy(&barrier);

	for (int i = 0; i < NTHREADS; i++)
		t[i] = start_thread(once_worker, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		good &= ret != NULL;
	}
	ok(good && once_calls == 1, "pthread_once: one call, every thread waited for it");

	test_sem();

	pthread_rwlock_rdlock(&rw);
	is_int(in_thread(try_read, NULL), 0, "a second reader gets in");
	is_int(in_thread(try_write, NULL), EBUSY, "a writer does not: EBUSY");
	pthread_rwlock_unlock(&rw);
	return done();
}
