/* Debug traps as Linux delivers them: int3 is SIGTRAP (SI_KERNEL, si_addr
 * 0, rip after the int3), icebp SIGTRAP TRAP_BRKPT, a single step under
 * TF SIGTRAP TRAP_TRACE at the next instruction, int $4 (an overflow
 * gate user code may raise) SIGSEGV SI_KERNEL, and int $1 (a gate user
 * code may not raise) SIGSEGV. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/ucontext.h>
#include <ucontext.h>

#include "testutil.h"

static volatile int got_sig, got_code;
static volatile unsigned long got_addr, got_rip;
static sigjmp_buf back;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	got_sig = sig, got_code = si->si_code;
	got_addr = (unsigned long)si->si_addr;
	got_rip = uc->uc_mcontext.gregs[REG_RIP];
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100L; /* TF off: stop stepping */
	if (sig == SIGSEGV)
		siglongjmp(back, 1);
}

static void catch (int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(sig, &sa, NULL);
}

extern char after_int3[], step_next[];

int main(void)
{
	plan(9);
	catch (SIGTRAP);
	catch (SIGSEGV);

	asm volatile("int3\n.globl after_int3\nafter_int3:");
	ok(got_sig == SIGTRAP && got_code == 0x80 && got_addr == 0,
	   "int3: SIGTRAP, si_code SI_KERNEL, si_addr 0 (%d, %#x)", got_sig, got_code);
	ok(got_rip == (unsigned long)after_int3, "int3: the handler sees rip after the int3");

	/* QEMU's TCG turns icebp into #UD (its own debugger exception), so
	 * only a real CPU shows it. */
	if (on_fdkernel()) {
		skip("icebp is #UD under QEMU's TCG", "icebp: SIGTRAP TRAP_BRKPT");
	} else {
		got_sig = 0;
		asm volatile(".byte 0xf1");
		ok(got_sig == SIGTRAP && got_code == TRAP_BRKPT,
		   "icebp: SIGTRAP TRAP_BRKPT (%d, %d)", got_sig, got_code);
	}

	got_sig = 0;
	asm volatile("pushf\n orq $0x100, (%%rsp)\n popf\n nop\n"
		     ".globl step_next\nstep_next: nop" ::
			 : "memory", "cc");
	ok(got_sig == SIGTRAP && got_code == TRAP_TRACE, "TF: SIGTRAP TRAP_TRACE (%d, %d)", got_sig,
	   got_code);
	ok(got_rip == (unsigned long)step_next, "TF: the step stops after the first instruction");
	ok(got_addr == got_rip, "TF: si_addr is the next instruction");

	got_sig = 0;
	if (!sigsetjmp(back, 1))
		asm volatile("int $4");
	ok(got_sig == SIGSEGV && got_code == 0x80, "int $4: SIGSEGV SI_KERNEL (%d, %#x)", got_sig,
	   got_code);

	got_sig = 0;
	if (!sigsetjmp(back, 1))
		asm volatile("int $1");
	ok(got_sig == SIGSEGV, "int $1 from user mode: SIGSEGV (%d)", got_sig);

	/* Default action: int3 kills with SIGTRAP. */
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGTRAP, SIG_DFL);
		asm volatile("int3");
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP, "int3 unhandled: killed by SIGTRAP");
	return done();
}
