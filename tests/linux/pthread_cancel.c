/* pthread_cancel through musl (deferred: the target is signalled with
 * tgkill and acts at a cancellation point): a thread blocked in read or in
 * nanosleep is cancelled and its cleanup handlers run; with cancellation
 * disabled the request waits until it is enabled again. */
#define _GNU_SOURCE
#include <unistd.h>

#include "threads.h"

static int cleaned;

static void cleanup(void *arg)
{
	__atomic_fetch_add(&cleaned, 1, __ATOMIC_SEQ_CST);
	*(int *)arg = 1;
}

static void *blocked_read(void *arg)
{
	int ran = 0, *fd = arg;
	char c;

	pthread_cleanup_push(cleanup, &ran);
	read(*fd, &c, 1);
	pthread_cleanup_pop(0);
	return (void *)1; /* not reached: read is a cancellation point */
}

static void *sleeper(void *arg)
{
	int ran = 0;

	(void)arg;
	pthread_cleanup_push(cleanup, &ran);
	sleep(100);
	pthread_cleanup_pop(0);
	return (void *)1;
}

static volatile int go;

/* Disables cancellation, waits for GO, enables it again: the pending
 * request then takes effect at pthread_testcancel. */
static void *disabled(void *arg)
{
	int *reached = arg;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST))
		usleep(1000);
	usleep(20000); /* a cancellation point, but cancellation is off */
	*reached = 1;
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	pthread_testcancel();
	*reached = 2;
	return NULL;
}

int main(void)
{
	int fds[2], reached = 0;
	void *ret = NULL;

	plan(6);
	require(pipe(fds) == 0, "pipe");
	pthread_t t = start_thread(blocked_read, &fds[0]);
	usleep(50000);
	is_int(pthread_cancel(t), 0, "pthread_cancel of a thread blocked in read");
	ok(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED, "joined: PTHREAD_CANCELED");
	is_int(cleaned, 1, "its cleanup handler ran");
	close(fds[0]);
	close(fds[1]);

	t = start_thread(sleeper, NULL);
	usleep(50000);
	pthread_cancel(t);
	long start = mono_ms();
	ok(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED && cleaned == 2 &&
	       mono_ms() - start < 10000,
	   "a thread in sleep(100) is cancelled at once, cleanup ran");

	t = start_thread(disabled, &reached);
	pthread_cancel(t);
	__atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
	ok(pthread_join(t, &ret) == 0 && ret == PTHREAD_CANCELED,
	   "cancelled after it enabled cancellation");
	is_int(reached, 1, "at pthread_testcancel, not before");
	return done();
}
