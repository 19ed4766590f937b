/* Asynchronous signals leave every register of the interrupted code intact:
 * a loop that holds known values in all general registers (rsp aside) and
 * DF set is interrupted by hundreds of handlers, sent from another process
 * so that they arrive on timer preemption, not in a system call. */
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

#define NREGS	    15 /* rax rbx rcx rdx rsi rdi rbp r8 .. r15 */
#define NSIGNALS    200
#define DEADLINE_MS 30000

static const char *const reg_names[NREGS] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8",
					     "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

/* Handlers run so far; the spin loop ends at NSIGNALS. */
volatile uint32_t regs_handled;

/* spin_with_known_regs(out): loads register i with (i + 1) * 0x0101010101010101
 * and sets DF, spins on memory only until NSIGNALS handlers ran, then stores
 * the registers into out[0..14] and RFLAGS into out[15]. */
void spin_with_known_regs(uint64_t *out);
__asm__(".text\n"
	"spin_with_known_regs:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rdi\n"
	"	movabs $0x0101010101010101, %rax\n"
	"	movabs $0x0202020202020202, %rbx\n"
	"	movabs $0x0303030303030303, %rcx\n"
	"	movabs $0x0404040404040404, %rdx\n"
	"	movabs $0x0505050505050505, %rsi\n"
	"	movabs $0x0606060606060606, %rdi\n"
	"	movabs $0x0707070707070707, %rbp\n"
	"	movabs $0x0808080808080808, %r8\n"
	"	movabs $0x0909090909090909, %r9\n"
	"	movabs $0x0a0a0a0a0a0a0a0a, %r10\n"
	"	movabs $0x0b0b0b0b0b0b0b0b, %r11\n"
	"	movabs $0x0c0c0c0c0c0c0c0c, %r12\n"
	"	movabs $0x0d0d0d0d0d0d0d0d, %r13\n"
	"	movabs $0x0e0e0e0e0e0e0e0e, %r14\n"
	"	movabs $0x0f0f0f0f0f0f0f0f, %r15\n"
	"	std\n"
	"1:	cmpl $200, regs_handled(%rip)\n"
	"	jb 1b\n"
	"	pushfq\n"
	"	cld\n"
	"	xchg %rax, 8(%rsp)\n" /* rax <-> out; the flags stay below it */
	"	pop 120(%rax)\n"
	"	pop 0(%rax)\n"
	"	mov %rbx, 8(%rax); mov %rcx, 16(%rax); mov %rdx, 24(%rax)\n"
	"	mov %rsi, 32(%rax); mov %rdi, 40(%rax); mov %rbp, 48(%rax)\n"
	"	mov %r8, 56(%rax); mov %r9, 64(%rax); mov %r10, 72(%rax)\n"
	"	mov %r11, 80(%rax); mov %r12, 88(%rax); mov %r13, 96(%rax)\n"
	"	mov %r14, 104(%rax); mov %r15, 112(%rax)\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n");

/* Counts, after putting garbage in every register it may touch and
 * setting DF: whatever the loop sees afterwards came from the kernel. */
void clobbering_counter(int sig);
__asm__(".text\n"
	"clobbering_counter:\n"
	"	lock incl regs_handled(%rip)\n"
	"	movabs $0xdeaddeaddeaddead, %rax\n"
	"	mov %rax, %rbx; mov %rax, %rcx; mov %rax, %rdx; mov %rax, %rsi\n"
	"	mov %rax, %rdi; mov %rax, %r8; mov %rax, %r9; mov %rax, %r10\n"
	"	mov %rax, %r11; mov %rax, %r12; mov %rax, %r13; mov %rax, %r14\n"
	"	mov %rax, %r15\n"
	"	push %rbp; mov %rax, %rbp; pop %rbp\n"
	"	std\n"
	"	ret\n");

/* The spinning child: exit status = number of damaged registers. */
static void spinner(void)
{
	uint64_t out[NREGS + 1];
	int bad = 0;

	require(lsig_handle(LSIGUSR1, clobbering_counter, 0) == 0, "sigaction");
	lsig_kill(getppid(), LSIGUSR2); /* ready */
	spin_with_known_regs(out);
	for (int i = 0; i < NREGS; i++) {
		uint64_t want = (i + 1) * 0x0101010101010101UL;
		if (out[i] != want) {
			diag("%s = %#lx, expected %#lx", reg_names[i], out[i], want);
			bad++;
		}
	}
	if (!(out[NREGS] & 0x400)) {
		diag("DF lost: rflags = %#lx", out[NREGS]);
		bad++;
	}
	_exit(bad);
}

/* Signals target as fast as the scheduler lets it. */
static void sender(pid_t target)
{
	for (;;) {
		lsig_kill(target, LSIGUSR1);
		syscall(__NR_sched_yield);
	}
}

static volatile sig_atomic_t ready;

static void on_ready(int sig)
{
	(void)sig;
	ready = 1;
}

int main(void)
{
	pid_t spin, send;
	int status = -1, waited = 0;

	plan(2);
	lsig_handle(LSIGUSR2, on_ready, 0);
	fflush(stdout);
	if ((spin = fork()) == 0)
		spinner();
	require(spin > 0, "fork");
	while (!ready)
		sleep_ms(1);
	if ((send = fork()) == 0)
		sender(spin);
	require(send > 0, "fork");
	while (waitpid(spin, &status, WNOHANG) == 0 && waited < DEADLINE_MS) {
		sleep_ms(10);
		waited += 10;
	}
	if (waited >= DEADLINE_MS) {
		kill(spin, SIGKILL);
		waitpid(spin, &status, 0);
	}
	lsig_stop_sender(send);
	ok(WIFEXITED(status), "the spinning process took %d handlers and finished", NSIGNALS);
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "no register or DF damaged by asynchronous handlers");
	return tap_failed != 0;
}
