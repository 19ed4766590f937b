/* /proc/<pid>/stat of a threaded process shows its main thread's state, as
 * Linux does: with the main thread blocked in pthread_join and another
 * thread running, the process reads S (LTP's futex_wait03 waits for that)
 * while the running thread's own task/<tid>/stat reads R. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static pid_t pid;
static char seen_process = '?', seen_self = '?';

/* The state letter of a stat file, or '?'. */
static char state_in(const char *path)
{
	char buf[512], *p;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Runs (never sleeps) until the main thread, blocked in pthread_join,
 * shows in the process's stat; a bounded number of looks. */
static void *runner(void *arg)
{
	char path[64], self[64];

	(void)arg;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	snprintf(self, sizeof(self), "/proc/%d/task/%d/stat", pid, gettid());
	for (int i = 0; i < 100000 && seen_process != 'S'; i++)
		seen_process = state_in(path);
	seen_self = state_in(self);
	return NULL;
}

int main(void)
{
	pthread_t t;

	plan(2);
	pid = getpid();
	if (pthread_create(&t, NULL, runner, NULL))
		return 1;
	pthread_join(t, NULL);
	ok(seen_process == 'S', "the process shows its blocked main thread's S (%c)", seen_process);
	ok(seen_self == 'R', "the running thread's own stat shows R (%c)", seen_self);
	return done();
}
