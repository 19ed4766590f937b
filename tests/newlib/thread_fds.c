/* One files table shared by threads: a read sleeping on a pipe keeps its
 * file when another thread closes or replaces the fd (the number is free
 * at once, the read goes on, as Linux); close_range(CLOSE_RANGE_UNSHARE)
 * gives a thread a private copy; four threads opening, duping,
 * fstat'ing and closing on one table leave nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <string.h>
#include <unistd.h>

#include "robust.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

static int pipefd[2];
static volatile long read_ret = -1000;

static int reader(void *arg)
{
	char c;

	(void)arg;
	read_ret = thread_sys(__NR_read, pipefd[0], &c, 1);
	return 0;
}

/* replace: dup2 /dev/null onto the fd instead of closing it. */
static void test_close_under_reader(bool replace)
{
	const char *how = replace ? "dup2 over" : "close of";
	struct thread t;
	int rfd, nul = open("/dev/null", O_RDONLY);

	require(nul >= 0 && pipe(pipefd) == 0, "pipe");
	rfd = pipefd[0];
	read_ret = -1000;
	require(thread_start(&t, reader, NULL) > 0, "thread_start");
	sleep_ms(30);
	if (replace)
		is_int(dup2(nul, rfd), rfd,
		       "dup2(/dev/null, fd) while a thread reads the pipe on it");
	else
		is_int(close(rfd), 0, "close(fd) while a thread reads the pipe on it");
	sleep_ms(30);
	is_int(read_ret, -1000, "after the %s its fd, the read still sleeps", how);
	if (!replace)
		is_int(fcntl(nul, F_DUPFD, rfd), rfd, "the fd number is free at once");
	is_int(write(pipefd[1], "x", 1), 1, "write to the pipe");
	thread_join(&t);
	is_int(read_ret, 1, "the read gets the byte from the file it started on");
	close(rfd);
	close(nul);
	close(pipefd[1]);
}

static volatile long unshare_ret = -1000, private_fd = -1;

/* close_range(fd, fd, CLOSE_RANGE_UNSHARE), then an open of its own. */
static int unsharer(void *arg)
{
	long fd = (long)arg;

	unshare_ret = thread_sys(__NR_close_range, fd, fd, 2 /* CLOSE_RANGE_UNSHARE */);
	private_fd = thread_sys(__NR_open, "/dev/null", 0, 0);
	return 0;
}

static void test_close_range_unshare(void)
{
	int fd = open("/dev/null", O_RDONLY);
	struct thread t;

	require(fd >= 0 && thread_start(&t, unsharer, (void *)(long)fd) > 0, "thread_start");
	thread_join(&t);
	is_int(unshare_ret, 0, "close_range(CLOSE_RANGE_UNSHARE) in a thread");
	is_int(fcntl(fd, F_GETFD), 0, "the fd it closed stays open in the shared table");
	is_int(private_fd, fd, "its table is its own: its next open reuses that number");
	close(fd);
}

static volatile long unshare_files_ret = -1000, unshare_fs_ret = -1000, unshare_vm_ret;

/* unshare(CLONE_FILES | CLONE_FS), then close fd and chdir("/"): neither
 * reaches the other thread. */
static int unshare_both(void *arg)
{
	unshare_vm_ret = thread_sys(__NR_unshare, CLONE_VM, 0, 0);
	unshare_files_ret = thread_sys(__NR_unshare, CLONE_FILES, 0, 0);
	unshare_fs_ret = thread_sys(__NR_unshare, CLONE_FS, 0, 0);
	thread_sys(__NR_close, (long)arg, 0, 0);
	thread_sys(__NR_chdir, "/", 0, 0);
	return 0;
}

/* The joined thread's tid word is cleared before it has let go of the
 * memory (Linux's mm_release runs before mmput), so for a moment the
 * process still counts two users of it and CLONE_VM is EINVAL: retry for a
 * while, as a program would after waiting for its threads. */
static long unshare_alone(void)
{
	long ret = -1;

	for (int i = 0; i < 200; i++) {
		ret = syscall(__NR_unshare, CLONE_FILES | CLONE_FS | CLONE_THREAD | CLONE_VM);
		if (ret == 0 || errno != EINVAL)
			break;
		sleep_ms(5);
	}
	return ret;
}

static void test_unshare(void)
{
	int fd = open("/dev/null", O_RDONLY);
	char cwd[64] = "";
	struct thread t;

	require(fd >= 0 && chdir("/tmp") == 0, "set-up");
	require(thread_start(&t, unshare_both, (void *)(long)fd) > 0, "thread_start");
	thread_join(&t);
	is_int(unshare_vm_ret, -EINVAL, "unshare(CLONE_VM) in a threaded process: EINVAL");
	is_int(unshare_files_ret, 0, "unshare(CLONE_FILES) in a thread");
	is_int(unshare_fs_ret, 0, "unshare(CLONE_FS) in a thread");
	is_int(fcntl(fd, F_GETFD), 0, "its close after that leaves our fd open");
	ok(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/tmp") == 0,
	   "its chdir after that leaves our cwd (%s)", cwd);
	is_errno(syscall(__NR_unshare, 0x1), EINVAL, "unshare with a CSIGNAL bit: EINVAL");
	is_int(unshare_alone(), 0, "alone, unshare(CLONE_FILES|FS|THREAD|VM) succeeds");
	close(fd);
	chdir("/");
}

static int open_and_exit(void *arg)
{
	(void)arg;
	return (int)thread_sys(__NR_open, "/dev/null", 0, 0);
}

/* CLONE_FILES without CLONE_VM: another process shares the table; what it
 * opens is ours, and its exit leaves the table to us. */
static void test_files_shared_by_processes(void)
{
	int status = -1, fd;
	long pid =
	    thread_clone(CLONE_FILES | 17 /* SIGCHLD */, NULL, NULL, NULL, 0, open_and_exit, NULL);

	require(pid > 0 && waitpid((pid_t)pid, &status, 0) == pid && WIFEXITED(status), "clone");
	fd = WEXITSTATUS(status);
	is_int(fcntl(fd, F_GETFD), 0, "a CLONE_FILES child's open is in our table after its exit");
	close(fd);
}

#define WORKERS	   4
#define ITERATIONS 2000

static volatile int failures;

static int churn(void *arg)
{
	char st[144];
	unsigned seed = (unsigned)(uintptr_t)arg;

	for (int i = 0; i < ITERATIONS; i++) {
		long fd = thread_sys(__NR_open, "/dev/null", 0, 0);
		long fd2 = fd >= 0 ? thread_sys(__NR_dup, fd, 0, 0) : -1;

		/* dup may find fd closed by another thread's hostile close: EBADF. */
		if (fd < 0 || (fd2 < 0 && fd2 != -EBADF))
			__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
		thread_sys(__NR_fstat, fd2, st, 0);
		seed = seed * 1103515245 + 12345;
		if (seed % 8 == 0) /* a hostile close of some fd in use */
			thread_sys(__NR_close, 3 + (seed >> 16) % 16, 0, 0);
		thread_sys(__NR_close, fd2, 0, 0);
		thread_sys(__NR_close, fd, 0, 0);
	}
	return 0;
}

static void test_churn(void)
{
	struct thread t[WORKERS];
	struct kstat before;
	bool have = kstat_read(&before);
	int lowest = open("/dev/null", O_RDONLY);

	close(lowest);
	for (int i = 0; i < WORKERS; i++)
		require(thread_start(&t[i], churn, (void *)(uintptr_t)(i + 1)) > 0, "thread_start");
	for (int i = 0; i < WORKERS; i++)
		thread_join(&t[i]);
	is_int(failures, 0,
	       "%d threads x %d open+dup+fstat+close on one table: no unexpected error", WORKERS,
	       ITERATIONS);
	is_int(open("/dev/null", O_RDONLY), lowest, "afterwards the lowest free fd is the same");
	close(lowest);
	kstat_unchanged(&before, have, "no file, task or memory left behind");
}

int main(void)
{
	plan(23);
	test_close_under_reader(false);
	test_close_under_reader(true);
	test_close_range_unshare();
	test_unshare();
	test_files_shared_by_processes();
	test_churn();
	return done();
}
