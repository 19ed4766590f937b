/* clone3: threads and processes from struct clone_args, CLONE_CLEAR_SIGHAND,
 * and Linux's checks of the structure (size, trailing bytes, flags, exit
 * signal, stack). */
#include <errno.h>
#include <fdkernel.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"
#include "testutil.h"
#include "thread.h"

struct clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

#define CLEAR_SIGHAND 0x100000000ULL

/* clone3(args, size); the child runs fn(arg) and exits with its result. */
static long clone3_run(const void *args, size_t size, int (*fn)(void *), void *arg)
{
	return thread_clone_call(__NR_clone3, (long)args, (long)size, 0, 0, 0, fn, arg);
}

static char stack[65536] __attribute__((aligned(16)));
static volatile long seen_pid;

static int report_pid(void *arg)
{
	(void)arg;
	seen_pid = thread_sys(__NR_getpid, 0, 0, 0);
	return 6;
}

static void test_thread_and_process(void)
{
	int tid_word = 0, status = -1;
	struct clone_args a = {.flags = THREAD_FLAGS,
			       .child_tid = (uint64_t)&tid_word,
			       .parent_tid = (uint64_t)&tid_word,
			       .stack = (uint64_t)stack,
			       .stack_size = sizeof stack};
	long tid = clone3_run(&a, sizeof a, report_pid, NULL);

	ok(tid > 0, "clone3 makes a thread (tid %ld)", tid);
	while (__atomic_load_n(&tid_word, __ATOMIC_ACQUIRE))
		thread_wait_word(&tid_word, (int)tid);
	is_int(seen_pid, getpid(), "on its own stack, in our process");
	a = (struct clone_args){.exit_signal = LSIGCHLD};
	long pid = clone3_run(&a, 64, report_pid, NULL);
	is_int(waitpid((pid_t)pid, &status, 0), pid,
	       "clone3 with exit_signal SIGCHLD: a child to reap");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 6, "with its status (%#x)", status);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* In the child: 0 if SIGUSR1's handler is default and SIGUSR2 still ignored. */
static int check_cleared(void *arg)
{
	struct uapi_sigaction a1, a2;

	(void)arg;
	thread_sys6(__NR_rt_sigaction, LSIGUSR1, 0, (long)&a1, 8, 0, 0);
	thread_sys6(__NR_rt_sigaction, LSIGUSR2, 0, (long)&a2, 8, 0, 0);
	return (a1.handler != UAPI_SIG_DFL) | (a2.handler != UAPI_SIG_IGN) << 1;
}

static void test_clear_sighand(void)
{
	struct clone_args a = {.flags = CLEAR_SIGHAND, .exit_signal = LSIGCHLD};
	int status = -1;
	long pid;

	lsig_handle(LSIGUSR1, on_usr1, 0);
	lsig_action(LSIGUSR2, UAPI_SIG_IGN, 0, 0);
	pid = clone3_run(&a, sizeof a, check_cleared, NULL);
	waitpid((pid_t)pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "CLONE_CLEAR_SIGHAND: handlers back to default, ignored stays ignored (%#x)", status);
	lsig_action(LSIGUSR1, UAPI_SIG_DFL, 0, 0);
	lsig_action(LSIGUSR2, UAPI_SIG_DFL, 0, 0);
}

static int never(void *arg)
{
	(void)arg;
	return 0;
}

static void test_errors(void)
{
	static char big[4200];
	struct clone_args a = {.exit_signal = LSIGCHLD};
	struct clone_args *b = (struct clone_args *)big;

	is_int(clone3_run(&a, 0, never, NULL), -EINVAL, "size 0: EINVAL");
	is_int(clone3_run(&a, 63, never, NULL), -EINVAL, "size 63 (below version 0): EINVAL");
	*b = a;
	is_int(clone3_run(big, 4097, never, NULL), -E2BIG, "size past a page: E2BIG");
	big[100] = 1;
	is_int(clone3_run(big, 128, never, NULL), -E2BIG,
	       "a non-zero byte past the known fields: E2BIG");
	is_int(clone3_run((void *)16, 64, never, NULL), -EFAULT, "unmapped arguments: EFAULT");
	a = (struct clone_args){.flags = LSIGCHLD};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL, "an exit signal in flags: EINVAL");
	a = (struct clone_args){.exit_signal = 65};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL, "exit signal 65: EINVAL");
	a = (struct clone_args){.flags = THREAD_FLAGS, .exit_signal = LSIGCHLD};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL,
	       "CLONE_THREAD with an exit signal: EINVAL");
	a = (struct clone_args){.stack = (uint64_t)stack, .exit_signal = LSIGCHLD};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL, "a stack without its size: EINVAL");
	a = (struct clone_args){.stack_size = 4096, .exit_signal = LSIGCHLD};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL, "a stack size without a stack: EINVAL");
	a = (struct clone_args){.flags = CLEAR_SIGHAND | CLONE_SIGHAND | CLONE_VM};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL,
	       "CLONE_CLEAR_SIGHAND with CLONE_SIGHAND: EINVAL");
	a = (struct clone_args){.flags = 1ULL << 40, .exit_signal = LSIGCHLD};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL, "an unknown flag: EINVAL");
	a = (struct clone_args){.flags = CLONE_THREAD | CLONE_VM};
	is_int(clone3_run(&a, 64, never, NULL), -EINVAL,
	       "CLONE_THREAD without CLONE_SIGHAND: EINVAL");
}

int main(void)
{
	plan(18);
	test_thread_and_process();
	test_clear_sighand();
	test_errors();
	return done();
}
