/* execve from a thread that is not the leader (Linux de_thread): the other
 * threads are gone, the program runs with the process's pid as its tid,
 * the old tid no longer exists, close-on-exec fds are closed and the rest
 * stay open (FD_CLOFORK cleared).  The test runs itself as the checker,
 * RUNS times: the exec waits for the leader to die, and a wake-up lost
 * there once hung about one exec in 250 on a loaded machine. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"
#include "thread.h"

enum {
	PID_KEPT = 1,	   /* getpid() is the process's pid from before */
	TID_IS_PID = 2,	   /* gettid() == getpid() */
	OLD_TID_GONE = 4,  /* tgkill(pid, old tid, 0): ESRCH */
	PLAIN_OPEN = 8,	   /* a plain fd survives */
	CLOEXEC_SHUT = 16, /* an O_CLOEXEC fd is closed */
	CLOFORK_OPEN = 32, /* an O_CLOFORK fd survives, its flag cleared */
	ALL = 63,
};

/* The exec'd program: argv = self --check pid oldtid plain cloexec clofork. */
static int check(char **argv)
{
	int pid = atoi(argv[2]), oldtid = atoi(argv[3]), bits = 0;

	bits |= getpid() == pid ? PID_KEPT : 0;
	bits |= syscall(__NR_gettid) == getpid() ? TID_IS_PID : 0;
	bits |= syscall(__NR_tgkill, pid, oldtid, 0) < 0 && errno == ESRCH ? OLD_TID_GONE : 0;
	bits |= fcntl(atoi(argv[4]), F_GETFD) == 0 ? PLAIN_OPEN : 0;
	bits |= fcntl(atoi(argv[5]), F_GETFD) < 0 && errno == EBADF ? CLOEXEC_SHUT : 0;
	bits |= fcntl(atoi(argv[6]), F_GETFD) == 0 ? CLOFORK_OPEN : 0;
	return bits;
}

/* The checker's arguments: pid, the exec'ing thread's tid, three fds. */
enum { A_PID, A_TID, A_PLAIN, A_CLOEXEC, A_CLOFORK, NARGS };
static char args[NARGS][16];
static char *exec_argv[3 + NARGS];
static int block[2];

static int exec_from_thread(void *arg)
{
	char *envp[] = {NULL};
	long tid = thread_sys(__NR_gettid, 0, 0, 0);

	/* No snprintf here: newlib is not thread-safe.  Digits by hand. */
	char *p = args[A_TID] + sizeof args[A_TID] - 1;
	*p = '\0';
	do
		*--p = (char)('0' + tid % 10);
	while ((tid /= 10));
	exec_argv[2 + A_TID] = p;
	thread_sys(__NR_execve, arg, exec_argv, envp);
	return 100; /* execve failed */
}

/* The child process: fds of each kind, a main thread blocked in read, and
 * a second thread that execs the checker. */
static void child(const char *self)
{
	int fds[NARGS] = {getpid(), 0, open("/dev/null", O_RDONLY),
			  open("/dev/null", O_RDONLY | O_CLOEXEC),
			  open("/dev/null", O_RDONLY | O_CLOFORK)};
	struct thread t;
	char c;

	require(fds[A_PLAIN] >= 0 && fds[A_CLOEXEC] >= 0 && fds[A_CLOFORK] >= 0 && pipe(block) == 0,
		"fds");
	exec_argv[0] = (char *)self;
	exec_argv[1] = "--check";
	for (int i = 0; i < NARGS; i++) {
		snprintf(args[i], sizeof args[i], "%d", fds[i]);
		exec_argv[2 + i] = args[i];
	}
	require(thread_start(&t, exec_from_thread, (void *)self) > 0, "thread_start");
	read(block[0], &c, 1); /* until the exec ends this thread */
	_exit(101);
}

#define RUNS 100

/* One process that execs from a thread: the checker's bits, or -1 with
 * *status what waitpid said. */
static int run_once(const char *self, int *status)
{
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0)
		child(self);
	if (pid < 0 || waitpid(pid, status, 0) != pid || !WIFEXITED(*status) ||
	    (WEXITSTATUS(*status) & ~ALL))
		return -1;
	return WEXITSTATUS(*status);
}

int main(int argc, char **argv)
{
	int status = -1, bits = ALL, ran = 0, one;

	if (argc == 7 && strcmp(argv[1], "--check") == 0)
		return check(argv);
	plan(7);
	for (; ran < RUNS && (one = run_once(argv[0], &status)) >= 0; ran++)
		bits &= one;
	is_int(ran, RUNS, "%d processes that exec'd from a thread ended", RUNS);
	if (!ok(ran == RUNS, "the checker ran each time (last status %#x)", status))
		bits = 0;
	ok(bits & PID_KEPT, "the new program has the process's pid");
	ok(bits & TID_IS_PID, "its tid is the pid: it took the leader's place");
	ok(bits & OLD_TID_GONE, "the exec'ing thread's old tid is gone (tgkill: ESRCH)");
	ok(bits & CLOEXEC_SHUT, "an O_CLOEXEC fd is closed");
	ok((bits & (PLAIN_OPEN | CLOFORK_OPEN)) == (PLAIN_OPEN | CLOFORK_OPEN),
	   "a plain fd and an O_CLOFORK fd stay open, flags 0");
	return done();
}
