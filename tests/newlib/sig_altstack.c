/* sigaltstack: SA_ONSTACK handlers run on the alternate stack, which
 * reports SS_ONSTACK there and cannot be changed from it (EPERM);
 * SS_DISABLE, SS_AUTODISARM, ENOMEM, EINVAL, EFAULT; per thread (a thread
 * starts without one, fork and vfork children keep it, exec drops it); a
 * stack overflow caught by a SIGSEGV handler on the alternate stack. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sigutil.h"
#include "tap.h"
#include "thread.h"

#define ALT_SIZE (64 * 1024)

struct lstack {
	void *ss_sp;
	int ss_flags;
	size_t ss_size;
};

static char alt[ALT_SIZE] __attribute__((aligned(16)));
static char alt2[ALT_SIZE] __attribute__((aligned(16))); /* what handlers set */

static long altstack(const struct lstack *ss, struct lstack *old)
{
	return syscall(__NR_sigaltstack, ss, old);
}

static bool on_alt(const void *p)
{
	return (const char *)p >= alt && (const char *)p < alt + ALT_SIZE;
}

/* What the handler saw. */
static volatile bool seen_on_alt;
static volatile int seen_flags, seen_change;
static volatile int seen_errno;

static void report_handler(int sig)
{
	struct lstack now, other = {alt2, 0, ALT_SIZE};
	int local;

	(void)sig;
	seen_on_alt = on_alt(&local);
	seen_flags = altstack(NULL, &now) == 0 ? now.ss_flags : -1;
	seen_change = (int)altstack(&other, NULL);
	seen_errno = errno;
}

static void test_args(void)
{
	struct lstack old, ss = {alt, 0, ALT_SIZE};

	ok(altstack(NULL, &old) == 0 && old.ss_flags == UAPI_SS_DISABLE && !old.ss_sp &&
	       !old.ss_size,
	   "none at start: SS_DISABLE, sp and size 0");
	ss.ss_size = UAPI_MINSIGSTKSZ - 1;
	is_errno(altstack(&ss, NULL), ENOMEM, "a stack under MINSIGSTKSZ: ENOMEM");
	ss.ss_size = ALT_SIZE;
	ss.ss_flags = 0x10;
	is_errno(altstack(&ss, NULL), EINVAL, "unknown ss_flags: EINVAL");
	ss.ss_flags = UAPI_SS_ONSTACK | UAPI_SS_DISABLE;
	is_errno(altstack(&ss, NULL), EINVAL, "SS_ONSTACK|SS_DISABLE: EINVAL");
	is_errno(altstack((void *)1, NULL), EFAULT, "ss at (void *)1: EFAULT");
	ss.ss_flags = 0;
	is_errno(altstack(&ss, (void *)1), EFAULT, "old at (void *)1: EFAULT ...");
	ok(altstack(NULL, &old) == 0 && old.ss_sp == alt && old.ss_size == ALT_SIZE &&
	       old.ss_flags == 0,
	   "... and the new stack is set all the same, as Linux");
	ss.ss_flags = UAPI_SS_DISABLE;
	ss.ss_size = 1;
	ok(altstack(&ss, &old) == 0 && altstack(NULL, &old) == 0 &&
	       old.ss_flags == UAPI_SS_DISABLE && !old.ss_sp && !old.ss_size,
	   "SS_DISABLE (any size) drops it");
	ss = (struct lstack){alt, (int)UAPI_SS_AUTODISARM, ALT_SIZE};
	ok(altstack(&ss, NULL) == 0 && altstack(NULL, &old) == 0 &&
	       old.ss_flags == (int)UAPI_SS_AUTODISARM,
	   "SS_AUTODISARM is accepted and reported");
}

static void test_handler(void)
{
	struct lstack ss = {alt, 0, ALT_SIZE}, old;

	require(altstack(&ss, NULL) == 0, "sigaltstack");
	require(lsig_handle(LSIGUSR1, report_handler, UAPI_SA_ONSTACK) == 0, "SA_ONSTACK");
	lsig_kill(getpid(), LSIGUSR1);
	ok(seen_on_alt, "an SA_ONSTACK handler runs on the alternate stack");
	ok(seen_flags == UAPI_SS_ONSTACK, "it reports SS_ONSTACK there (%d)", seen_flags);
	ok(seen_change == -1 && seen_errno == EPERM, "changing it there: EPERM");
	ok(altstack(NULL, &old) == 0 && old.ss_flags == 0 && old.ss_sp == alt,
	   "back on the main stack: flags 0, the stack kept");
	lsig_handle(LSIGUSR1, report_handler, 0);
	lsig_kill(getpid(), LSIGUSR1);
	ok(!seen_on_alt && seen_flags == 0 && seen_change == 0,
	   "a handler without SA_ONSTACK runs on the main stack, and may change the stack");
	ok(altstack(NULL, &old) == 0 && old.ss_sp == alt,
	   "sigreturn puts back the frame's stack (uc_stack)");

	ss.ss_flags = (int)UAPI_SS_AUTODISARM;
	require(altstack(&ss, NULL) == 0, "sigaltstack SS_AUTODISARM");
	lsig_handle(LSIGUSR1, report_handler, UAPI_SA_ONSTACK);
	lsig_kill(getpid(), LSIGUSR1);
	ok(seen_on_alt && seen_flags == UAPI_SS_DISABLE && seen_change == 0,
	   "SS_AUTODISARM: disarmed while its handler runs (flags %d), changeable", seen_flags);
	ok(altstack(NULL, &old) == 0 && old.ss_flags == (int)UAPI_SS_AUTODISARM &&
	       old.ss_sp == alt && old.ss_size == ALT_SIZE,
	   "and re-armed from the frame's uc_stack by sigreturn");
	lsig_handle(LSIGUSR1, NULL, 0);
}

/* Exit status 0 if this task has no alternate stack, 1 if alt is its one. */
static int altstack_code(void)
{
	struct lstack old;

	if (thread_sys(__NR_sigaltstack, NULL, &old, 0) != 0)
		return 2;
	if (old.ss_flags == UAPI_SS_DISABLE)
		return 0;
	return old.ss_sp == alt ? 1 : 3;
}

static volatile int thread_code = -1;

static int thread_body(void *arg)
{
	(void)arg;
	thread_code = altstack_code();
	return 0;
}

static int vfork_body(void *arg)
{
	(void)arg;
	return altstack_code();
}

static void test_inherit(const char *self)
{
	struct lstack ss = {alt, 0, ALT_SIZE};
	static char vstack[THREAD_STACK_SIZE] __attribute__((aligned(16)));
	char *argv[] = {(char *)self, "--report", NULL}, out[64];
	struct thread t;
	int status;
	pid_t pid;

	require(altstack(&ss, NULL) == 0, "sigaltstack");
	fflush(stdout);
	if ((pid = fork()) == 0)
		_exit(altstack_code());
	ok(waitpid(pid, &status, 0) == pid && exited_with(status, 1), "a fork child keeps it");
	require(thread_start(&t, thread_body, NULL) > 0, "thread");
	thread_join(&t);
	ok(thread_code == 0, "a thread (CLONE_VM) starts without one (%d)", thread_code);
	pid = thread_clone(CLONE_VM | CLONE_VFORK | LSIGCHLD, vstack + sizeof vstack, NULL, NULL, 0,
			   vfork_body, NULL);
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && exited_with(status, 1),
	   "a CLONE_VM|CLONE_VFORK child keeps it");
	status = run_capture(self, argv, NULL, out, sizeof out);
	ok(exited_with(status, 0), "execve drops it: %s", one_line(out));
}

static void segv_handler(int sig)
{
	int local;

	(void)sig;
	_exit(on_alt(&local) ? 42 : 43);
}

static void overflow_child(void)
{
	struct lstack ss = {alt, 0, ALT_SIZE};

	altstack(&ss, NULL);
	lsig_handle(LSIGSEGV, segv_handler, UAPI_SA_ONSTACK);
	stack_overflow_recurse(0);
}

static void test_overflow(void)
{
	int status = child_status(overflow_child);

	ok(exited_with(status, 42), "a stack overflow is caught by a SIGSEGV handler on it (%#x)",
	   status);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--report"))
		return altstack_code();
	plan(22);
	test_args();
	test_handler();
	test_inherit(argv[0]);
	test_overflow();
	return tap_failed != 0;
}
