/* Threads share a process: one pid, distinct tids, tgkill addressing one
 * thread; memory, files and the working directory are shared; clone's
 * flag rules give Linux's EINVAL; times() counts every thread. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"
#include "thread.h"

/* What the thread saw, for the main thread to check after the join. */
struct seen {
	long pid, tid, ppid;
	long tgkill_self, tgkill_main;
	int fd;	     /* a pipe end the thread opened */
	long chdir;  /* its chdir("/")'s result */
	int counter; /* written by the main thread, read back by the thread */
};

static struct seen seen;
static volatile int go;

static int body(void *arg)
{
	int fds[2], main_tid = (int)(long)arg;

	seen.pid = thread_sys(__NR_getpid, 0, 0, 0);
	seen.tid = thread_sys(__NR_gettid, 0, 0, 0);
	seen.ppid = thread_sys(__NR_getppid, 0, 0, 0);
	seen.tgkill_self = thread_sys(__NR_tgkill, seen.pid, seen.tid, 0);
	seen.tgkill_main = thread_sys(__NR_tgkill, seen.pid, main_tid, 0);
	seen.fd = thread_sys(__NR_pipe, fds, 0, 0) == 0 ? fds[0] : -1;
	seen.chdir = thread_sys(__NR_chdir, "/", 0, 0);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		thread_sys(__NR_sched_yield, 0, 0, 0);
	seen.counter = __atomic_load_n(&go, __ATOMIC_ACQUIRE);
	return 0;
}

static void test_ids(void)
{
	struct thread t;
	char cwd[64] = "";
	int main_tid = (int)syscall(__NR_gettid);
	long tid;

	require(chdir("/tmp") == 0, "chdir /tmp");
	tid = thread_start(&t, body, (void *)(long)main_tid);
	require(tid > 0, "thread_start");
	sleep_ms(20);
	__atomic_store_n(&go, 42, __ATOMIC_RELEASE);
	thread_join(&t);
	is_int(seen.pid, getpid(), "getpid in a thread is the process's pid");
	is_int(seen.tid, tid, "gettid in the thread is the tid clone returned");
	ok(seen.tid != main_tid && main_tid == getpid(), "the main thread's tid is the pid, "
							 "the new thread's another");
	is_int(seen.ppid, getppid(), "getppid is the process's parent");
	is_int(seen.tgkill_self, 0, "tgkill(pid, own tid, 0) from the thread");
	is_int(seen.tgkill_main, 0, "tgkill(pid, main tid, 0) from the thread");
	is_int(t.tid, 0, "the tid word is zeroed as the thread exits (CLONE_CHILD_CLEARTID)");
	is_int(seen.counter, 42, "the thread saw the main thread's store (shared memory)");
	ok(seen.fd >= 0 && fcntl(seen.fd, F_GETFD) == 0, "a pipe the thread opened is open here");
	ok(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/") == 0,
	   "the thread's chdir moved the process (cwd now '%s')", cwd);
	close(seen.fd);
	close(seen.fd + 1);
	/* The tid word is cleared a moment before the thread leaves its
	 * group, in Linux as here: ESRCH comes once it has left. */
	WAIT_UNTIL(syscall(__NR_tgkill, getpid(), tid, 0) == -1);
	is_errno(syscall(__NR_tgkill, getpid(), tid, 0), ESRCH,
		 "tgkill of the exited thread: ESRCH");
}

static void test_tgkill_errors(void)
{
	int me = getpid();

	is_errno(syscall(__NR_tgkill, 0, me, 0), EINVAL, "tgkill tgid 0: EINVAL");
	is_errno(syscall(__NR_tgkill, me, 0, 0), EINVAL, "tgkill tid 0: EINVAL");
	is_errno(syscall(__NR_tgkill, -1, me, 0), EINVAL, "tgkill tgid -1: EINVAL");
	is_errno(syscall(__NR_tgkill, me, me, 65), EINVAL, "tgkill signal 65: EINVAL");
	is_errno(syscall(__NR_tgkill, me, me, -1), EINVAL, "tgkill signal -1: EINVAL");
	is_errno(syscall(__NR_tgkill, getppid(), me, 0), ESRCH,
		 "tgkill with a tid not in that group: ESRCH");
	is_int(syscall(__NR_tkill, me, 0), 0, "tkill(own tid, 0)");
	is_errno(syscall(__NR_tkill, -5, 0), EINVAL, "tkill tid -5: EINVAL");
}

static long process_ticks(void)
{
	long t[4] = {0};

	thread_sys(__NR_times, t, 0, 0);
	return t[0] + t[1];
}

/* Burns 20 ticks of CPU time (the process's count, which on a loaded
 * host grows slower than the wall clock), at most 10 s of wall time. */
static int burn(void *arg)
{
	struct timespec start, now;
	long ticks = process_ticks();

	(void)arg;
	thread_sys(__NR_clock_gettime, CLOCK_MONOTONIC, &start, 0);
	do
		thread_sys(__NR_clock_gettime, CLOCK_MONOTONIC, &now, 0);
	while (process_ticks() - ticks < 20 && now.tv_sec - start.tv_sec < 10);
	return 0;
}

/* times() is the process's: an exited thread's CPU time still counts. */
static void test_times(void)
{
	struct thread thr;
	long ticks = process_ticks();

	require(thread_start(&thr, burn, NULL) > 0, "thread_start");
	thread_join(&thr);
	ok(process_ticks() - ticks >= 20, "times() keeps the ticks of a thread that exited (%ld)",
	   process_ticks() - ticks);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static int nothing(void *arg)
{
	(void)arg;
	return 0;
}

/* Informational: what a thread costs next to a process. */
static void measure(void)
{
	enum { N = 200 };
	struct thread t;
	long start = now_us(), threads, forks;
	int status;

	for (int i = 0; i < N; i++) {
		thread_start(&t, nothing, NULL);
		thread_join(&t);
	}
	threads = (now_us() - start) / N;
	start = now_us();
	for (int i = 0; i < N; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, &status, 0);
	}
	forks = (now_us() - start) / N;
	ok(1, "thread create+join %ld us, fork+exit+wait %ld us (mean of %d)", threads, forks, N);
}

static int never(void *arg)
{
	(void)arg;
	return 0;
}

/* clone's EINVAL rules, checked before anything is created. */
static void test_clone_flags(void)
{
	static const struct {
		unsigned long flags;
		const char *what;
	} bad[] = {
	    {CLONE_THREAD | CLONE_VM, "CLONE_THREAD without CLONE_SIGHAND"},
	    {CLONE_SIGHAND, "CLONE_SIGHAND without CLONE_VM"},
	    {CLONE_FS | CLONE_NEWNS | SIGCHLD, "CLONE_FS with CLONE_NEWNS"},
	    {CLONE_FS | CLONE_NEWUSER | SIGCHLD, "CLONE_FS with CLONE_NEWUSER"},
	};
	int tid = 0;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		is_int(thread_clone(bad[i].flags, NULL, &tid, &tid, 0, never, NULL), -EINVAL,
		       "clone %s: EINVAL", bad[i].what);
	is_int(tid, 0, "no tid was written by the refused clones");
}

int main(void)
{
	plan(26);
	test_ids();
	test_tgkill_errors();
	test_clone_flags();
	test_times();
	measure();
	return done();
}
