/* A system call keeps every register but rax (the result), rcx and r11
 * (SYSCALL's), on each of the kernel's ways out: the fast exit that
 * restores only what the handler may have changed, the call without a
 * handler (ENOSYS), the slow exit after work (a mask change that may let a
 * signal through) and the IRET after a signal handler ran. */
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

#define NKEPT 12 /* rdi rsi rdx r10 r8 r9 rbx rbp r12 r13 r14 r15 */

static const char *const kept_names[NKEPT] = {"rdi", "rsi", "rdx", "r10", "r8",	 "r9",
					      "rbx", "rbp", "r12", "r13", "r14", "r15"};

/* raw_syscall(in, out): in = {nr, six arguments}; runs the call with
 * rbx, rbp, r12-r15 = 0x11 .. 0x16 repeated, stores the NKEPT registers
 * as they are afterwards in out[0..11] and the result in out[12]. */
void raw_syscall(const uint64_t *in, uint64_t *out);
__asm__(".text\n"
	"raw_syscall:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rsi\n"
	"	mov 0(%rdi), %rax; mov 16(%rdi), %rsi; mov 24(%rdi), %rdx\n"
	"	mov 32(%rdi), %r10; mov 40(%rdi), %r8; mov 48(%rdi), %r9\n"
	"	mov 8(%rdi), %rdi\n"
	"	movabs $0x1111111111111111, %rbx\n"
	"	movabs $0x1212121212121212, %rbp\n"
	"	movabs $0x1313131313131313, %r12\n"
	"	movabs $0x1414141414141414, %r13\n"
	"	movabs $0x1515151515151515, %r14\n"
	"	movabs $0x1616161616161616, %r15\n"
	"	syscall\n"
	"	xchg %rax, (%rsp)\n" /* rax = out; the result waits on the stack */
	"	mov %rdi, 0(%rax); mov %rsi, 8(%rax); mov %rdx, 16(%rax)\n"
	"	mov %r10, 24(%rax); mov %r8, 32(%rax); mov %r9, 40(%rax)\n"
	"	mov %rbx, 48(%rax); mov %rbp, 56(%rax); mov %r12, 64(%rax)\n"
	"	mov %r13, 72(%rax); mov %r14, 80(%rax); mov %r15, 88(%rax)\n"
	"	pop 96(%rax)\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n");

static volatile sig_atomic_t handled;

/* Runs between the call and its return to the caller's registers. */
static void clobbering_handler(int sig)
{
	(void)sig;
	handled++;
	__asm__ volatile("" ::: "rbx", "r12", "r13", "r14", "r15", "memory");
}

/* Runs call nr with args; true if every kept register came back and the
 * result is want. */
static bool keeps_registers(const char *what, uint64_t nr, const uint64_t args[6], long want)
{
	uint64_t in[7] = {nr}, out[NKEPT + 1];
	const uint64_t callee[6] = {0x1111111111111111, 0x1212121212121212, 0x1313131313131313,
				    0x1414141414141414, 0x1515151515151515, 0x1616161616161616};
	bool good = true;

	for (int i = 0; i < 6; i++)
		in[i + 1] = args[i];
	raw_syscall(in, out);
	for (int i = 0; i < NKEPT; i++) {
		uint64_t want_reg = i < 6 ? args[i] : callee[i - 6];
		if (out[i] != want_reg) {
			diag("%s: %s = %#lx, expected %#lx", what, kept_names[i], out[i], want_reg);
			good = false;
		}
	}
	if ((long)out[NKEPT] != want) {
		diag("%s: result %ld, expected %ld", what, (long)out[NKEPT], want);
		good = false;
	}
	return good;
}

int main(void)
{
	/* Argument registers with values no handler would leave there. */
	const uint64_t junk[6] = {0xa1a1a1a1a1a1a1a1, 0xa2a2a2a2a2a2a2a2, 0xa3a3a3a3a3a3a3a3,
				  0xa4a4a4a4a4a4a4a4, 0xa5a5a5a5a5a5a5a5, 0xa6a6a6a6a6a6a6a6};
	uint64_t usr1 = 1UL << (LSIGUSR1 - 1), none = 0;

	plan(4);
	ok(keeps_registers("getpid", __NR_getpid, junk, getpid()), "getpid (the fast exit)");
	ok(keeps_registers("no call", 999, junk, -38), "an unimplemented number: -ENOSYS");

	/* SIGUSR1 pending while blocked; the unblocking call has work on
	 * its way out and the handler runs before the caller sees it. */
	lsig_handle(LSIGUSR1, clobbering_handler, 0);
	uint64_t block[6] = {0 /* SIG_BLOCK */, (uint64_t)&usr1, 0, 8};
	keeps_registers("block", __NR_rt_sigprocmask, block, 0);
	lsig_kill(getpid(), LSIGUSR1);
	uint64_t unblock[6] = {2 /* SIG_SETMASK */, (uint64_t)&none, 0, 8, junk[4], junk[5]};
	bool kept = keeps_registers("unblock", __NR_rt_sigprocmask, unblock, 0);
	ok(kept && handled == 1,
	   "rt_sigprocmask that lets a pending signal through (slow exit; handlers run: %d)",
	   (int)handled);
	uint64_t kill_self[6] = {(uint64_t)getpid(), LSIGUSR1, junk[2], junk[3], junk[4], junk[5]};
	ok(keeps_registers("kill", __NR_kill, kill_self, 0) && handled == 2,
	   "kill of itself: the handler runs on the way out (IRET after sigreturn)");
	return done();
}
