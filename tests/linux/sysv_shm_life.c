/* System V shared memory across processes: what a second process sees,
 * attaches that fork copies and exec and exit drop (nattch counts them),
 * a segment outliving its creator, a thread's attach, and removal while
 * several processes are attached, torn down in hostile orders. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

#include "testutil.h"

#define PAGE 4096UL

static const char *self;

static unsigned long nattch(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) ? (unsigned long)-1 : ds.shm_nattch;
}

static pid_t lpid(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) ? -1 : ds.shm_lpid;
}

static int wait_child(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A fork copies the attach (nattch 2 in the child); the child's writes
 * are the parent's; its exit drops its copy. */
static void test_fork(void)
{
	int id = shmget(IPC_PRIVATE, 2 * PAGE, 0600);
	char *p = shmat(id, NULL, 0);
	pid_t pid;

	if (p == (void *)-1) {
		ok(0, "attach");
		return;
	}
	strcpy(p, "parent");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int good = nattch(id) == 2 && !strcmp(p, "parent");
		strcpy(p + PAGE, "child");
		_exit(good ? 0 : 1); /* no shmdt: exit detaches */
	}
	is_int(wait_child(pid), 0, "the fork child sees the parent's data and nattch 2");
	ok(!strcmp(p + PAGE, "child"), "the parent sees the child's write");
	is_int(nattch(id), 1, "the child's exit dropped its attach");
	is_int(lpid(id), pid, "the last pid is the child's (its detach at exit)");
	shmdt(p);
	shmctl(id, IPC_RMID, NULL);
}

/* exec drops the attaches of the old image. */
static void test_exec(void)
{
	int id = shmget(IPC_PRIVATE, PAGE, 0600);
	char *p = shmat(id, NULL, 0), arg[32];
	pid_t pid;

	snprintf(arg, sizeof arg, "%d", id);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		if (nattch(id) != 2)
			_exit(100);
		execl(self, self, "--nattch", arg, (char *)NULL);
		_exit(101);
	}
	is_int(wait_child(pid), 1, "after exec the child's program sees nattch 1: exec detached");
	is_int(nattch(id), 1, "and the parent's attach remains");
	shmdt(p);
	shmctl(id, IPC_RMID, NULL);
}

/* A segment's pages outlive every attach and its creator. */
static void test_outlives_creator(void)
{
	key_t key = (key_t)(0x5d000000 | (getpid() & 0xfffff) << 4);
	int id = -1;
	char *p;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		int cid = shmget(key, PAGE, IPC_CREAT | IPC_EXCL | 0600);
		char *c = shmat(cid, NULL, 0);
		if (c == (void *)-1)
			_exit(1);
		strcpy(c, "left behind");
		_exit(0);
	}
	ok(wait_child(pid) == 0 && (id = shmget(key, 0, 0)) >= 0,
	   "a segment created by a child that exited is found by its key");
	p = shmat(id, NULL, SHM_RDONLY);
	ok(p != (void *)-1 && !strcmp(p, "left behind") && nattch(id) == 1,
	   "its data is there after its only attach went");
	shmdt(p);
	shmctl(id, IPC_RMID, NULL);
}

static int thread_id;
static char *thread_addr;

static void *attach_thread(void *arg)
{
	(void)arg;
	thread_addr = shmat(thread_id, NULL, 0);
	if (thread_addr != (void *)-1)
		strcpy(thread_addr, "thread");
	return NULL;
}

/* Threads share the address space: one attach, seen by all. */
static void test_thread(void)
{
	pthread_t t;

	thread_id = shmget(IPC_PRIVATE, PAGE, 0600);
	ok(pthread_create(&t, NULL, attach_thread, NULL) == 0 && pthread_join(t, NULL) == 0 &&
	       thread_addr != (void *)-1 && !strcmp(thread_addr, "thread") &&
	       nattch(thread_id) == 1,
	   "a thread's attach is the process's");
	shmdt(thread_addr);
	is_int(nattch(thread_id), 0, "the main thread detaches it");
	shmctl(thread_id, IPC_RMID, NULL);
}

/*
 * Removal while attached, torn down in hostile orders: four children hold
 * the inherited attach and one of their own; the parent removes the
 * segment and detaches first; then the children go by exit, exec, shmdt
 * and a kill, in that order or reversed.  The last one out frees it.
 */
static void teardown(bool reversed)
{
	int id = shmget(IPC_PRIVATE, 3 * PAGE, 0600), go[2], ready[2], n = 4;
	char *p = shmat(id, NULL, 0), arg[32], c;
	pid_t kids[4];

	snprintf(arg, sizeof arg, "%d", id);
	if (pipe(go) || pipe(ready) || p == (void *)-1) {
		ok(0, "set-up");
		return;
	}
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		if ((kids[i] = fork()) == 0) {
			char *own = shmat(id, NULL, 0);
			close(go[1]);
			if (own == (void *)-1 || write(ready[1], "r", 1) != 1 ||
			    read(go[0], &c, 1) != 1)
				_exit(2);
			own[i] = 'a' + i;
			switch (reversed ? 3 - i : i) {
			case 0:
				_exit(0);
			case 1:
				execl(self, self, "--exit", (char *)NULL);
				_exit(3);
			case 2:
				_exit(shmdt(own) || shmdt(p) ? 4 : 0);
			default:
				pause();
				_exit(5);
			}
		}
	}
	for (int i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			break;
	is_int(nattch(id), 1 + 2 * n, "five processes, nine attaches");
	ok(shmctl(id, IPC_RMID, NULL) == 0 && shmdt(p) == 0 && nattch(id) == 2UL * n,
	   "the parent removes it and detaches first; the children keep it");
	if (write(go[1], "gggg", n) != n)
		diag("write to the children failed");
	for (int i = 0; i < n; i++) {
		int status;
		if ((reversed ? 3 - i : i) == 3)
			kill(kids[i], SIGKILL);
		waitpid(kids[i], &status, 0);
	}
	struct shmid_ds ds;
	is_errno(shmctl(id, IPC_STAT, &ds), EINVAL,
		 reversed ? "killed, shmdt, exec and exit: the last one out freed it"
			  : "exit, exec, shmdt and a kill: the last one out freed it");
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 3 && !strcmp(argv[1], "--nattch"))
		return (int)nattch(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "--exit"))
		return 0;
	plan(16);
	test_fork();
	test_exec();
	test_outlives_creator();
	test_thread();
	teardown(false);
	teardown(true);
	return done();
}
