/* Condition variables through musl: producers and consumers on a bounded
 * queue (every item delivered once), broadcast waking every waiter, and
 * pthread_cond_timedwait timing out with ETIMEDOUT. */
#define _GNU_SOURCE
#include "threads.h"

#define SLOTS	  4
#define ITEMS	  2000 /* per producer */
#define PRODUCERS 2
#define CONSUMERS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static long queue[SLOTS];
static int head, count;

static void put(long v)
{
	pthread_mutex_lock(&lock);
	while (count == SLOTS)
		pthread_cond_wait(&not_full, &lock);
	queue[(head + count++) % SLOTS] = v;
	pthread_cond_signal(&not_empty);
	pthread_mutex_unlock(&lock);
}

static long get(void)
{
	pthread_mutex_lock(&lock);
	while (count == 0)
		pthread_cond_wait(&not_empty, &lock);
	long v = queue[head];
	head = (head + 1) % SLOTS;
	count--;
	pthread_cond_signal(&not_full);
	pthread_mutex_unlock(&lock);
	return v;
}

static void *producer(void *arg)
{
	long base = (long)arg * ITEMS;

	for (long i = 1; i <= ITEMS; i++)
		put(base + i);
	return NULL;
}

/* Sums items until it takes a 0 (the end marker). */
static void *consumer(void *arg)
{
	long v, *sum = arg;

	while ((v = get()) != 0)
		*sum += v;
	return NULL;
}

static int gate_open, waiting;
static pthread_cond_t gate = PTHREAD_COND_INITIALIZER;

static void *wait_gate(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	waiting++;
	while (!gate_open)
		pthread_cond_wait(&gate, &lock);
	waiting--;
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_broadcast(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		t[i] = start_thread(wait_gate, NULL);
	for (int i = 0; i < 5000 && __atomic_load_n(&waiting, __ATOMIC_SEQ_CST) < 4; i++)
		usleep(1000);
	pthread_mutex_lock(&lock);
	ok(waiting == 4, "4 threads wait on the condition");
	gate_open = 1;
	pthread_cond_broadcast(&gate);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	is_int(waiting, 0, "one broadcast wakes them all");
}

static void test_timedwait(void)
{
	struct timespec until;
	pthread_cond_t never = PTHREAD_COND_INITIALIZER;

	clock_gettime(CLOCK_REALTIME, &until);
	long start = mono_ms();
	until.tv_nsec += 50000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	is_int(pthread_cond_timedwait(&never, &lock, &until), ETIMEDOUT, "timedwait: ETIMEDOUT");
	pthread_mutex_unlock(&lock);
	ok(mono_ms() - start >= 45, "after about 50 ms");
}

int main(void)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long sums[CONSUMERS] = {0}, total = 0, n = PRODUCERS * ITEMS;

	plan(5);
	for (int i = 0; i < CONSUMERS; i++)
		c[i] = start_thread(consumer, &sums[i]);
	for (long i = 0; i < PRODUCERS; i++)
		p[i] = start_thread(producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(p[i], NULL);
	for (int i = 0; i < CONSUMERS; i++)
		put(0);
	for (int i = 0; i < CONSUMERS; i++) {
		pthread_join(c[i], NULL);
		total += sums[i];
	}
	is_int(total, n * (n + 1) / 2, "%d producers, %d consumers: every item once", PRODUCERS,
	       CONSUMERS);
	test_broadcast();
	test_timedwait();
	return done();
}
