/* fork from a thread: the child has one thread, the one that forked (its
 * tid is the child's pid, its mask the forking thread's), its parent is
 * the process, the files table is copied with close-on-fork applied; any
 * thread of the parent may reap it. */
#include <errno.h>
#include <fcntl.h>
#include <fdkernel.h>
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

enum {
	ONE_THREAD = 1,	  /* the parent's spinning main thread did not come along */
	TID_IS_PID = 2,	  /* gettid() == getpid() */
	PARENT_OK = 4,	  /* getppid() is the forking process */
	CLOFORK_SHUT = 8, /* an O_CLOFORK fd is closed */
	PLAIN_OPEN = 16,  /* a plain fd is open */
	MASK_KEPT = 32,	  /* the forking thread's mask, not the main thread's */
	ALL = 63,
};

static volatile long counter, stop;
static int plain, clofork;
static long child_pid, reaped, reaped_status;

/* In the child: what it sees, as the bits above. */
static int child_checks(long parent)
{
	uint64_t mask = 0;
	long before = counter;
	struct timespec ts = {0, 30000000};
	int bits = 0;

	thread_sys(__NR_nanosleep, &ts, NULL, 0);
	bits |= counter == before ? ONE_THREAD : 0;
	bits |=
	    thread_sys(__NR_gettid, 0, 0, 0) == thread_sys(__NR_getpid, 0, 0, 0) ? TID_IS_PID : 0;
	bits |= thread_sys(__NR_getppid, 0, 0, 0) == parent ? PARENT_OK : 0;
	bits |= thread_sys(__NR_fcntl, clofork, F_GETFD, 0) == -EBADF ? CLOFORK_SHUT : 0;
	bits |= thread_sys(__NR_fcntl, plain, F_GETFD, 0) == 0 ? PLAIN_OPEN : 0;
	thread_sys6(__NR_rt_sigprocmask, UAPI_SIG_BLOCK, 0, (long)&mask, 8, 0, 0);
	bits |= mask == LBIT(LSIGUSR1) ? MASK_KEPT : 0;
	return bits;
}

static int forker(void *arg)
{
	uint64_t set = LBIT(LSIGUSR1);
	long parent = (long)arg;

	thread_sys6(__NR_rt_sigprocmask, UAPI_SIG_SETMASK, (long)&set, 0, 8, 0, 0);
	child_pid = thread_sys(__NR_fork, 0, 0, 0);
	if (child_pid == 0)
		thread_sys(__NR_exit_group, child_checks(parent), 0, 0);
	reaped = thread_sys6(__NR_wait4, child_pid, (long)&reaped_status, 0, 0, 0, 0);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return 0;
}

int main(void)
{
	struct thread t;
	int bits;

	plan(8);
	plain = open("/dev/null", O_RDONLY);
	clofork = open("/dev/null", O_RDONLY | O_CLOFORK);
	require(plain >= 0 && clofork >= 0, "open");
	fflush(stdout);
	require(thread_start(&t, forker, (void *)(long)getpid()) > 0, "thread_start");
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&counter, 1,
				   __ATOMIC_RELAXED); /* spins on, runs in the parent only */
	thread_join(&t);
	ok(child_pid > 0 && reaped == child_pid, "the forking thread reaps its child");
	bits = WIFEXITED(reaped_status) ? WEXITSTATUS(reaped_status) : 0;
	ok(WIFEXITED(reaped_status) && (bits & ~ALL) == 0, "the child ran its checks (%#lx)",
	   reaped_status);
	ok(bits & ONE_THREAD, "the child has one thread: the parent's spinning one is not there");
	ok(bits & TID_IS_PID, "its thread's tid is its pid");
	ok(bits & PARENT_OK, "its parent is the forking process");
	if (on_fdkernel())
		ok(bits & CLOFORK_SHUT, "an O_CLOFORK fd is closed in the child");
	else
		skip("Linux has no O_CLOFORK", "an O_CLOFORK fd is closed in the child");
	ok(bits & PLAIN_OPEN, "a plain fd is open in the child");
	ok(bits & MASK_KEPT, "its mask is the forking thread's");
	close(plain);
	close(clofork);
	return done();
}
