/* A signal whose handler frame cannot be written (its alternate stack is
 * read-only) turns into SIGSEGV, as Linux's force_sigsegv: a SIGSEGV
 * handler on a good stack catches it (si_code SI_KERNEL) and the program
 * goes on with its registers, FPU ones too; SIGSEGV's own frame failing,
 * or SIGSEGV blocked or ignored, kills the process with SIGSEGV. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"

static char altstack[4096 * 4] __attribute__((aligned(4096)));
static volatile sig_atomic_t usr1_ran, segv_ran, segv_code;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_ran = 1;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	segv_ran = 1;
	segv_code = si->si_code;
}

static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = {.sa_handler = fn, .sa_flags = flags};
	require(sigaction(sig, &sa, NULL) == 0, "sigaction");
}

/* SIGUSR1's handler on a read-only alternate stack. */
static void usr1_on_readonly_altstack(void)
{
	stack_t st = {.ss_sp = altstack, .ss_size = sizeof altstack};

	require(sigaltstack(&st, NULL) == 0, "sigaltstack");
	set_handler(SIGUSR1, on_usr1, SA_ONSTACK);
	require(mprotect(altstack, sizeof altstack, PROT_READ) == 0, "mprotect");
}

/* tkill(self, SIGUSR1) with 123.456 in xmm0 across it: what xmm0 holds after. */
static double signal_keeping_xmm0(void)
{
	double in = 123.456, out;
	long ret;

	__asm__ volatile("movsd %[in], %%xmm0\n\t"
			 "syscall\n\t"
			 "movsd %%xmm0, %[out]"
			 : "=a"(ret), [out] "=m"(out)
			 : "0"((long)SYS_tkill), "D"((long)syscall(SYS_gettid)),
			   "S"((long)SIGUSR1), [in] "m"(in)
			 : "rcx", "r11", "xmm0", "memory");
	(void)ret;
	return out;
}

static void test_caught(void)
{
	struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO}, now;
	double xmm0;

	require(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction SIGSEGV");
	usr1_on_readonly_altstack();
	xmm0 = signal_keeping_xmm0();
	ok(segv_ran && !usr1_ran,
	   "SIGUSR1's frame fails on the read-only stack: SIGSEGV's handler runs");
	is_int(segv_code, SI_KERNEL, "with si_code SI_KERNEL");
	ok(xmm0 == 123.456, "xmm0 survives the failed frame and the SIGSEGV handler (%g)", xmm0);
	ok(sigaction(SIGSEGV, NULL, &now) == 0 && now.sa_sigaction == on_segv,
	   "SIGSEGV's handler stays installed");
	require(mprotect(altstack, sizeof altstack, PROT_READ | PROT_WRITE) == 0, "mprotect");
	segv_ran = 0;
	raise(SIGUSR1);
	ok(usr1_ran && !segv_ran, "with the stack writable again SIGUSR1's handler runs");
}

/* SIGSEGV's own handler is on the read-only stack. */
static void segv_frame_fails(void)
{
	struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK};

	usr1_on_readonly_altstack();
	require(sigaction(SIGSEGV, &sa, NULL) == 0, "sigaction SIGSEGV");
	raise(SIGUSR1);
	_exit(segv_ran ? 1 : 2);
}

static void segv_blocked(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGSEGV);
	set_handler(SIGSEGV, SIG_DFL, 0);
	sigprocmask(SIG_BLOCK, &set, NULL);
	usr1_on_readonly_altstack();
	raise(SIGUSR1);
	_exit(3);
}

static void segv_ignored(void)
{
	set_handler(SIGSEGV, SIG_IGN, 0);
	usr1_on_readonly_altstack();
	raise(SIGUSR1);
	_exit(3);
}

int main(void)
{
	int status;

	plan(8);
	test_caught();
	status = child_status(segv_frame_fails);
	ok(killed_by(status, SIGSEGV), "SIGSEGV's own frame failing kills with SIGSEGV (%#x)",
	   status);
	status = child_status(segv_blocked);
	ok(killed_by(status, SIGSEGV), "so does a failed frame while SIGSEGV is blocked (%#x)",
	   status);
	status = child_status(segv_ignored);
	ok(killed_by(status, SIGSEGV), "or ignored (%#x)", status);
	return done();
}
