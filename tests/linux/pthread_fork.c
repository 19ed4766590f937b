/* fork and execve from a thread through musl: fork copies only the calling
 * thread (the others do not run in the child, which can still use malloc,
 * stdio and new threads), and execve from a thread that is not the main one
 * replaces the whole process, which keeps its pid. */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "threads.h"

static volatile long spins;
static volatile int stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop) {
		__atomic_fetch_add(&spins, 1, __ATOMIC_RELAXED);
		usleep(500);
	}
	return NULL;
}

static void *nothing(void *arg)
{
	return arg;
}

/* In the child of a fork made by a thread: exits 0 if all is well. */
static void forked_child(void)
{
	long before = spins;
	void *ret = NULL;
	char *p;

	usleep(30000);
	if (spins != before)
		_exit(1); /* the spinner thread came along */
	if (!(p = malloc(50000)))
		_exit(2);
	snprintf(p, 50000, "child %d", (int)getpid());
	free(p);
	if (pthread_join(start_thread(nothing, (void *)7), &ret) != 0 || ret != (void *)7)
		_exit(3);
	printf("# child of a thread: stdio works\n");
	fflush(stdout);
	_exit(0);
}

static void *forker(void *arg)
{
	(void)arg;
	return (void *)(long)child_status(forked_child);
}

/* In a child process: a second thread execs this program in mode "pid",
 * which exits 0 if its pid is the one it was given. */
static char *self;
static void *execer(void *arg)
{
	char pid[16];
	char *argv[] = {self, "pid", pid, NULL};

	(void)arg;
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	execv(self, argv);
	_exit(99);
}

static void exec_from_thread(void)
{
	start_thread(execer, NULL);
	for (;;)
		pause(); /* execve ends this thread too */
}

int main(int argc, char **argv)
{
	void *ret;

	if (argc > 2 && strcmp(argv[1], "pid") == 0)
		return atoi(argv[2]) == getpid() && gettid() == getpid() ? 0 : 1;
	self = argv[0];
	plan(4);
	pthread_t spin = start_thread(spinner, NULL);
	usleep(10000);
	pthread_join(start_thread(forker, NULL), &ret);
	int status = (int)(long)ret;
	ok(exited_with(status, 0),
	   "fork from a thread: one thread in the child, malloc, stdio, "
	   "pthread_create work (status %#x)",
	   status);
	long before = spins;
	for (int i = 0; i < 2000 && spins == before; i++)
		usleep(1000);
	ok(spins > before, "the parent's other thread still runs");
	stop = 1;
	pthread_join(spin, NULL);

	ok(exited_with(child_status(exec_from_thread), 0),
	   "execve from a second thread: the new program has the old pid as its tid");
	is_int(gettid(), getpid(), "main thread's tid is the pid");
	return done();
}
