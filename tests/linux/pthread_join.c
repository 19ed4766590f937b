/* pthread_create and pthread_join through musl (clone with CLONE_THREAD,
 * CLONE_SETTLS, CLONE_CHILD_CLEARTID; futex for the join): return values,
 * pthread_exit, detached threads, many short-lived threads, the last thread
 * ending the process, and exit() from any thread ending all of them. */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "threads.h"

#define NTHREADS 8

static pid_t tids[NTHREADS];
static pthread_t selves[NTHREADS];
static volatile int detached_done;

static void *square(void *arg)
{
	intptr_t i = (intptr_t)arg;

	tids[i] = gettid();
	selves[i] = pthread_self();
	return (void *)(i * i + 1);
}

static void nested_exit(intptr_t v)
{
	pthread_exit((void *)v);
}

static void *exits_early(void *arg)
{
	nested_exit((intptr_t)arg);
	return NULL; /* not reached */
}

static void *detached(void *arg)
{
	(void)arg;
	__atomic_store_n(&detached_done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

/* Mode "leader": the main thread leaves with pthread_exit; the last thread
 * prints and returns: the process then exits 0.  Run through execve, not in
 * a fork child: musl's fork does not re-register the tid address that the
 * kernel clears when the main thread ends, and that last thread would wait
 * for the thread-list lock forever (on Linux too). */
static void *last_one(void *arg)
{
	(void)arg;
	usleep(50000);
	printf("last");
	return NULL;
}

static int leader_leaves(void)
{
	start_thread(last_one, NULL);
	pthread_exit(NULL);
}

static void *exit_five(void *arg)
{
	(void)arg;
	exit(5);
}

static void thread_exits_process(void)
{
	start_thread(exit_five, NULL);
	for (;;)
		pause();
}

static void test_values(void)
{
	pthread_t t[NTHREADS];
	void *ret;
	int good = 1;

	for (intptr_t i = 0; i < NTHREADS; i++)
		t[i] = start_thread(square, (void *)i);
	for (intptr_t i = 0; i < NTHREADS; i++)
		good &= pthread_join(t[i], &ret) == 0 && ret == (void *)(i * i + 1);
	ok(good, "%d threads joined with their return values", NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		for (int j = 0; j < i; j++)
			good &= tids[i] != tids[j] && !pthread_equal(selves[i], selves[j]);
	ok(good, "each has its own tid and pthread_self");
	good = 1;
	for (int i = 0; i < NTHREADS; i++)
		good &= tids[i] > 0 && tids[i] != getpid() && pthread_equal(selves[i], t[i]);
	ok(good, "thread tids differ from the pid; pthread_self matches pthread_create's");
	is_int(gettid(), getpid(), "the main thread's tid is the pid");
	ok(pthread_join(start_thread(exits_early, (void *)77), &ret) == 0 && ret == (void *)77,
	   "pthread_exit from a nested call gives the join value");
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t t;
	int status, good = 1;
	char out[16];

	if (argc > 1 && strcmp(argv[1], "leader") == 0)
		return leader_leaves();
	plan(10);
	test_values();

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ok(pthread_create(&t, &attr, detached, NULL) == 0, "a detached thread starts");
	for (int i = 0; i < 2500 && !__atomic_load_n(&detached_done, __ATOMIC_SEQ_CST); i++)
		usleep(2000);
	ok(detached_done, "and runs to its end");
	pthread_attr_destroy(&attr);

	for (intptr_t i = 0; i < 200; i++) {
		void *ret;
		good &=
		    pthread_join(start_thread(nothing, (void *)i), &ret) == 0 && ret == (void *)i;
	}
	ok(good, "200 threads created and joined one after another");

	char *args[] = {argv[0], "leader", NULL};
	status = run_capture(argv[0], args, (char *[]){NULL}, out, sizeof out);
	ok(exited_with(status, 0) && strcmp(out, "last") == 0,
	   "the main thread's pthread_exit leaves the process to the last thread, exit 0");
	ok(exited_with(child_status(thread_exits_process), 5),
	   "exit(5) in a thread ends the process with 5");
	return done();
}
