/*
 * /proc/<pid>/comm and /proc/<pid>/task: the name prctl(PR_SET_NAME) gives
 * (cut to 15 bytes), and one directory per live thread, named by its tid,
 * with that thread's stat, status, comm and syscall; a thread that exits
 * leaves the listing.  /proc/<pid>/syscall: the call a thread sleeps in
 * (or reads it with).
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_list.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

#define NR_PRCTL    157
#define PR_SET_NAME 15
#define NTHREADS    2

static int go;		    /* the threads wait for it to turn 1 */
static int named[NTHREADS]; /* each thread sets its own once named */

/* The first line of a /proc file (newline kept), or "" if it cannot be read. */
static const char *first_line(const char *fmt, int a, int b, char *buf, size_t size)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof path, fmt, a, b);
	buf[0] = '\0';
	if ((f = fopen(path, "r"))) {
		if (!fgets(buf, (int)size, f))
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

/* Whether status of /proc/<pid>/task/<tid> says Pid: tid, Tgid: pid. */
static bool status_ids(int pid, int tid)
{
	char path[96], line[128];
	int got_pid = -1, got_tgid = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/task/%d/status", pid, tid);
	if (!(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof line, f)) {
		sscanf(line, "Pid:\t%d", &got_pid);
		sscanf(line, "Tgid:\t%d", &got_tgid);
	}
	fclose(f);
	return got_pid == tid && got_tgid == pid;
}

static int worker(void *arg)
{
	int i = (int)(long)arg;
	char name[16] = "worker0";

	name[6] = (char)('1' + i);
	thread_sys(NR_PRCTL, PR_SET_NAME, name, 0);
	__atomic_store_n(&named[i], 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		thread_sys(__NR_sched_yield, 0, 0, 0);
	return 0;
}

static void test_comm(void)
{
	char buf[64];
	int pid = getpid();

	ok(!strcmp(first_line("/proc/%d/comm", pid, 0, buf, sizeof buf), "proc_task\n"),
	   "/proc/<pid>/comm: the program's name and a newline");
	thread_sys(NR_PRCTL, PR_SET_NAME, "a-rather-long-thread-name", 0);
	ok(!strcmp(first_line("/proc/self/comm", 0, 0, buf, sizeof buf), "a-rather-long-t\n"),
	   "PR_SET_NAME shows there, cut to 15 bytes");
	ok(!strcmp(first_line("/proc/self/status", 0, 0, buf, sizeof buf),
		   "Name:\ta-rather-long-t\n"),
	   "... and in status's Name");
	ok(!strcmp(first_line("/proc/self/task/%d/comm", pid, 0, buf, sizeof buf),
		   "a-rather-long-t\n"),
	   "... and in the main thread's task/<tid>/comm");
	thread_sys(NR_PRCTL, PR_SET_NAME, "proc_task", 0);
}

static void test_threads(void)
{
	struct thread t[NTHREADS];
	int tids[NTHREADS + 1] = {getpid()}, tid;
	char buf[256], want[64];

	for (int i = 0; i < NTHREADS; i++) {
		tids[i + 1] = (int)thread_start(&t[i], worker, (void *)(long)i);
		require(tids[i + 1] > 0, "thread_start");
		while (!__atomic_load_n(&named[i], __ATOMIC_ACQUIRE))
			thread_sys(__NR_sched_yield, 0, 0, 0);
	}
	ok(lists_exactly("/proc/self/task", tids, NTHREADS + 1),
	   "/proc/self/task lists the process's 3 threads, nothing else");
	tid = tids[1];
	ok(!strcmp(first_line("/proc/self/task/%d/comm", tid, 0, buf, sizeof buf), "worker1\n"),
	   "a thread's comm: its own PR_SET_NAME");
	snprintf(want, sizeof want, "%d (worker2) ", tids[2]);
	ok(!strncmp(first_line("/proc/%d/task/%d/stat", tids[0], tids[2], buf, sizeof buf), want,
		    strlen(want)),
	   "a thread's stat: its tid and name");
	ok(status_ids(tids[0], tid), "a thread's status: Pid is its tid, Tgid the process");
	ok(!strcmp(first_line("/proc/self/task/%d/syscall", tid, 0, buf, sizeof buf), "running\n"),
	   "a thread's syscall: running while it may run");
	ok(!strcmp(first_line("/proc/self/comm", 0, 0, buf, sizeof buf), "proc_task\n"),
	   "the process's comm stays the main thread's");
	snprintf(want, sizeof want, "/proc/self/task/%d", getppid());
	is_errno(access(want, F_OK), ENOENT, "a tid of another process: ENOENT");
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NTHREADS; i++)
		thread_join(&t[i]);
	/* A joined thread has cleared its tid, which Linux does a moment
	 * before its entry goes (release_task): wait for it. */
	bool left = WAIT_UNTIL(lists_exactly("/proc/self/task", tids, 1));
	ok(left, "joined threads leave the listing");
	snprintf(want, sizeof want, "/proc/self/task/%d/comm", tid);
	is_errno(access(want, F_OK), ENOENT, "... and their directories: ENOENT");
}

/* Polls /proc/<pid>/syscall until pid sleeps in a call: its number, with
 * its first and third arguments, or -2 if it never does. */
static long sleeping_call(int pid, unsigned long *a0, unsigned long *a2, char *buf, size_t size)
{
	long nr = -2;

	for (int i = 0; i < 5000; i++) {
		first_line("/proc/%d/syscall", pid, 0, buf, size);
		buf[strcspn(buf, "\n")] = '\0';
		if (sscanf(buf, "%ld 0x%lx 0x%*x 0x%lx", &nr, a0, a2) == 3)
			return nr;
		thread_sys(__NR_sched_yield, 0, 0, 0);
	}
	return -2;
}

static void test_syscall(void)
{
	char buf[256];
	unsigned long fd = 0, count = 0;
	int p[2], status;

	ok(sleeping_call(getpid(), &fd, &count, buf, sizeof buf) == 0 && count > 0,
	   "/proc/self/syscall: the read that reads it (%s)", buf);
	require(pipe(p) == 0, "pipe");
	pid_t pid = fork();
	if (pid == 0) {
		char c[7];
		_exit(read(p[0], c, sizeof c) == 1 ? 0 : 1);
	}
	long nr = sleeping_call(pid, &fd, &count, buf, sizeof buf);
	ok(nr == 0 && fd == (unsigned long)p[0] && count == 7,
	   "a child blocked in read(%d, buf, 7): /proc/<pid>/syscall says so (%s)", p[0], buf);
	require(write(p[1], "x", 1) == 1, "write");
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "... and its read returns once written to");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	plan(16);
	test_comm();
	test_threads();
	test_syscall();
	return done();
}
