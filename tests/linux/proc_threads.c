/* /proc/self/task and /proc/self/fd read by a musl program: every thread
 * (pthread_create) is listed by its tid with the name pthread_setname_np
 * gave it; fds opened by other threads are listed and named; a joined
 * thread leaves the listing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_list.h"
#include "threads.h"

#define NTHREADS 3

static pthread_barrier_t ready, finish;
static pid_t tids[NTHREADS + 1];
static int pipes[NTHREADS][2];

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof name, "musl-worker%d", i);
	pthread_setname_np(pthread_self(), name);
	tids[i + 1] = gettid();
	if (pipe(pipes[i]))
		pipes[i][0] = pipes[i][1] = -1;
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&finish);
	return NULL;
}

static const char *comm_of(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
	buf[0] = '\0';
	if ((f = fopen(path, "r"))) {
		if (!fgets(buf, (int)size, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Whether /proc/self/fd/<fd> reads "pipe:[...]". */
static int names_a_pipe(int fd)
{
	char path[64], target[64] = {0};

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return readlink(path, target, sizeof target - 1) > 0 && !strncmp(target, "pipe:[", 6);
}

int main(void)
{
	pthread_t t[NTHREADS];
	char buf[32], want[16];
	int good = 1;

	plan(5);
	tids[0] = getpid();
	pthread_barrier_init(&ready, NULL, NTHREADS + 1);
	pthread_barrier_init(&finish, NULL, NTHREADS + 1);
	for (int i = 0; i < NTHREADS; i++)
		t[i] = start_thread(worker, (void *)(long)i);
	pthread_barrier_wait(&ready);
	ok(lists_exactly("/proc/self/task", tids, NTHREADS + 1),
	   "/proc/self/task lists the %d threads, nothing else", NTHREADS + 1);
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(want, sizeof want, "musl-worker%d", i);
		good &= !strcmp(comm_of(tids[i + 1], buf, sizeof buf), want);
	}
	ok(good, "each thread's comm is its pthread_setname_np name");
	ok(!strcmp(comm_of(tids[0], buf, sizeof buf), "proc_threads"),
	   "the main thread's comm: the program");
	good = 1;
	for (int i = 0; i < NTHREADS; i++)
		good &= names_a_pipe(pipes[i][0]) && names_a_pipe(pipes[i][1]);
	ok(good, "pipes the threads opened are in /proc/self/fd");
	pthread_barrier_wait(&finish);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		close(pipes[i][0]);
		close(pipes[i][1]);
	}
	ok(lists_exactly("/proc/self/task", tids, 1), "joined threads leave /proc/self/task");
	return done();
}
