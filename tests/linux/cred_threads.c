/* Credentials belong to the whole process: a set*id call made by one
 * thread (through libc: musl's and glibc's setxid broadcast on Linux,
 * the kernel itself on fdkernel) is what every other thread then sees,
 * in getuid and in /proc/self/task/<tid>/status; threads created and
 * processes forked afterwards inherit it; another process's
 * /proc/<pid>/status shows its four ids. */
#include "cred_util.h"
#include <pthread.h>

#define NTHREADS 4

static pthread_barrier_t changed, checked;
static int seen[NTHREADS];
static pid_t tids[NTHREADS];

/* Waits for the main thread's change, then reports the ids it sees. */
static void *watcher(void *arg)
{
	int i = (int)(long)arg;

	tids[i] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&changed);
	uid_t r, e, s;
	seen[i] = getresuid(&r, &e, &s) == 0 && r == U1 && e == U1 && s == U1 &&
		  syscall(SYS_getgid) == G1 && syscall(SYS_getuid) == U1;
	pthread_barrier_wait(&checked);
	return NULL;
}

static void *new_thread(void *arg)
{
	(void)arg;
	return (void *)(long)(syscall(SYS_geteuid) == U1);
}

static void group_wide(void)
{
	pthread_t th[NTHREADS];
	char path[64], buf[4096];
	void *res;

	pthread_barrier_init(&changed, NULL, NTHREADS + 1);
	pthread_barrier_init(&checked, NULL, NTHREADS + 1);
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, watcher, (void *)i);
	ok(setgid(G1) == 0 && setresuid(U1, U1, U1) == 0, "main thread: setgid, setresuid");
	pthread_barrier_wait(&changed);
	/* The watchers live until the second barrier. */
	snprintf(path, sizeof path, "/proc/self/task/%d/status", tids[0]);
	ok(read_text(path, buf, sizeof buf) > 0 &&
	       strstr(buf, "\nUid:\t61001\t61001\t61001\t61001\n"),
	   "a thread's /proc/self/task/<tid>/status shows them");
	pthread_barrier_wait(&checked);
	int all_seen = 0;
	for (int i = 0; i < NTHREADS; i++)
		all_seen += seen[i];
	is_int(all_seen, NTHREADS, "every other thread sees the new ids");
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	ok(pthread_create(&th[0], NULL, new_thread, NULL) == 0 && pthread_join(th[0], &res) == 0 &&
	       res == (void *)1,
	   "a thread created afterwards has them");
	is_errno(setuid(0), EPERM, "and the process as a whole cannot go back: EPERM");
}

static void dropped_child(void)
{
	setresgid(G1, G2, G3);
	setresuid(U1, U2, U3);
	pause();
}

int main(void)
{
	plan(8);
	require(getuid() == 0, "the test runs as root");
	in_child("thread group", group_wide);
	pid_t pid = fork();
	if (pid == 0) {
		dropped_child();
		_exit(0);
	}
	char line[128];
	bool changed_ids = WAIT_UNTIL(status_line(pid, "Uid:", line, sizeof line) &&
				      !strcmp(line, "Uid:\t61001\t61002\t61003\t61002"));
	ok(changed_ids, "another process's status: Uid line with its four ids");
	ok(status_is(pid, "Gid:", "Gid:\t62001\t62002\t62003\t62002"), "and its Gid line");
	kill(pid, SIGKILL);
	int st;
	ok(waitpid(pid, &st, 0) == pid && killed_by(st, SIGKILL), "root may kill it");
	return done();
}
