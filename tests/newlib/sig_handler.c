/* Signal handlers run and return with the program's state intact: every
 * register, the SSE state and MXCSR, DF; SA_NODEFER, SA_RESETHAND, sa_mask
 * and SA_SIGINFO's si_signo/si_code/si_pid. */
#include <math.h>
#include <signal.h>
#include <unistd.h>

#include "sigutil.h"

#define NGPR 11 /* rbx rbp rdx r8 r9 r10 r12 r13 r14 r15, plus the result */
#define NXMM 16

/* regs_across_kill(out, pid, sig): loads a known value into each register,
 * sends itself SIG with a bare syscall and stores the registers into OUT
 * (result, the NGPR - 1 registers, then xmm0-15 as two quadwords each). */
void regs_across_kill(uint64_t *out, int pid, int sig);
__asm__(".text\n"
	"regs_across_kill:\n"
	"	push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
	"	push %rdi\n"
	"	mov %esi, %edi\n"
	"	mov %edx, %esi\n"
	"	.irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	mov $(\\n + 0x40), %eax\n"
	"	movq %rax, %xmm\\n\n"
	"	pshufd $0, %xmm\\n, %xmm\\n\n"
	"	.endr\n"
	"	movabs $0x1111111111111111, %rbx\n"
	"	movabs $0x2222222222222222, %rbp\n"
	"	movabs $0x3333333333333333, %rdx\n"
	"	movabs $0x4444444444444444, %r8\n"
	"	movabs $0x5555555555555555, %r9\n"
	"	movabs $0x6666666666666666, %r10\n"
	"	movabs $0x7777777777777777, %r12\n"
	"	movabs $0x8888888888888888, %r13\n"
	"	movabs $0x9999999999999999, %r14\n"
	"	movabs $0xaaaaaaaaaaaaaaaa, %r15\n"
	"	mov $62, %eax\n" /* kill */
	"	syscall\n"
	"	pop %rcx\n"
	"	mov %rax, 0(%rcx); mov %rbx, 8(%rcx); mov %rbp, 16(%rcx)\n"
	"	mov %rdx, 24(%rcx); mov %r8, 32(%rcx); mov %r9, 40(%rcx)\n"
	"	mov %r10, 48(%rcx); mov %r12, 56(%rcx); mov %r13, 64(%rcx)\n"
	"	mov %r14, 72(%rcx); mov %r15, 80(%rcx)\n"
	"	.irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	movdqu %xmm\\n, 88 + 16 * \\n(%rcx)\n"
	"	.endr\n"
	"	pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
	"	ret\n");

/* A hostile handler: garbage in every register it may touch, MXCSR set to
 * round toward zero with all exceptions unmasked, DF set. */
void clobber_handler(int sig);
__asm__(".text\n"
	"clobber_handler:\n"
	"	movabs $0xdeaddeaddeaddead, %rax\n"
	"	mov %rax, %rbx; mov %rax, %rbp; mov %rax, %rdx; mov %rax, %rsi\n"
	"	mov %rax, %rdi; mov %rax, %r8; mov %rax, %r9; mov %rax, %r10\n"
	"	mov %rax, %r11; mov %rax, %r12; mov %rax, %r13; mov %rax, %r14\n"
	"	mov %rax, %r15; mov %rax, %rcx\n"
	"	.irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	pcmpeqb %xmm\\n, %xmm\\n\n"
	"	.endr\n"
	"	push $0x6000\n"
	"	ldmxcsr (%rsp)\n"
	"	add $8, %rsp\n"
	"	std\n"
	"	ret\n");

static uint32_t get_mxcsr(void)
{
	uint32_t v;
	__asm__ volatile("stmxcsr %0" : "=m"(v));
	return v;
}

static uint64_t get_rflags(void)
{
	uint64_t v;
	__asm__ volatile("pushfq; pop %0" : "=r"(v));
	return v;
}

static void test_registers(void)
{
	static const uint64_t gpr[NGPR] = {0,
					   0x1111111111111111,
					   0x2222222222222222,
					   0x3333333333333333,
					   0x4444444444444444,
					   0x5555555555555555,
					   0x6666666666666666,
					   0x7777777777777777,
					   0x8888888888888888,
					   0x9999999999999999,
					   0xaaaaaaaaaaaaaaaa};
	uint64_t out[NGPR + 2 * NXMM];
	uint32_t mxcsr = get_mxcsr();
	int bad_gpr = 0, bad_xmm = 0;

	lsig_handle(LSIGUSR1, clobber_handler, 0);
	regs_across_kill(out, getpid(), LSIGUSR1);
	uint64_t flags = get_rflags();
	uint32_t mxcsr_after = get_mxcsr();
	__asm__ volatile("cld");
	for (int i = 0; i < NGPR; i++)
		bad_gpr += out[i] != gpr[i];
	for (int i = 0; i < NXMM; i++) {
		uint64_t want = (i + 0x40UL) * 0x100000001UL;
		bad_xmm += out[NGPR + 2 * i] != want || out[NGPR + 2 * i + 1] != want;
	}
	is_int(bad_gpr, 0, "general registers intact across a clobbering handler");
	is_int(bad_xmm, 0, "xmm0-15 intact across it");
	is_int(mxcsr_after, mxcsr, "MXCSR the handler changed is restored");
	is_int(flags & 0x400, 0, "DF the handler set is restored (clear)");
}

static volatile sig_atomic_t fp_handled;

/* Does floating point work of its own, in other registers' worth of values. */
static void fp_handler(int sig)
{
	volatile double x = sig;
	for (int i = 0; i < 50; i++)
		x = sqrt(x * 3.7 + i) / 1.3;
	fp_handled++;
}

static volatile int fp_terms = 300000; /* volatile: two calls are two computations */

static double fp_work(void)
{
	double sum = 0, term = 1;
	for (int i = 1; i < fp_terms; i++) {
		term = term * 0.999999 + 1.0 / i;
		sum += sqrt(term) * (i & 1 ? 1.5 : -0.5);
	}
	return sum;
}

static void test_fp_across_signals(void)
{
	double want = fp_work(), got;
	pid_t sender;

	lsig_handle(LSIGUSR1, fp_handler, UAPI_SA_RESTART);
	sender = lsig_sender(LSIGUSR1, 2);
	sleep_ms(10);
	got = fp_work();
	lsig_stop_sender(sender);
	diag("%d handlers ran during the computation", (int)fp_handled);
	ok(got == want, "a double computation interrupted by handlers gives the same result");
}

static volatile int depth, max_depth, runs;

static void nest_handler(int sig)
{
	if (++depth > max_depth)
		max_depth = depth;
	if (runs++ == 0)
		lsig_kill(getpid(), sig);
	depth--;
}

/* Sends SIGUSR1 with a handler that resends it once; returns the depth. */
static int nesting_with(uint64_t flags)
{
	depth = max_depth = runs = 0;
	lsig_handle(LSIGUSR1, nest_handler, flags);
	lsig_kill(getpid(), LSIGUSR1);
	return runs == 2 ? max_depth : -runs;
}

static void test_nodefer(void)
{
	is_int(nesting_with(0), 1, "without SA_NODEFER the resent signal waits for the handler");
	is_int(nesting_with(UAPI_SA_NODEFER), 2, "with SA_NODEFER it nests");
}

static volatile sig_atomic_t order[4], norder;

static void record_handler(int sig)
{
	order[norder++] = sig;
	if (sig == LSIGUSR1)
		lsig_kill(getpid(), LSIGUSR2);
	order[norder++] = -sig;
}

static void test_sa_mask(void)
{
	lsig_handle(LSIGUSR2, record_handler, 0);
	lsig_action(LSIGUSR1, (uint64_t)record_handler, 0, LBIT(LSIGUSR2));
	lsig_kill(getpid(), LSIGUSR1);
	ok(norder == 4 && order[0] == LSIGUSR1 && order[1] == -LSIGUSR1 && order[2] == LSIGUSR2,
	   "sa_mask holds SIGUSR2 back until the SIGUSR1 handler returns");
	is_int(lsig_blocked(), 0, "and the mask is back to empty");
}

static volatile sig_atomic_t reset_runs;

static void count_handler(int sig)
{
	(void)sig;
	reset_runs++;
}

static void resethand_child(void)
{
	struct uapi_sigaction old;
	lsig_handle(LSIGUSR1, count_handler, UAPI_SA_RESETHAND);
	lsig_kill(getpid(), LSIGUSR1);
	if (reset_runs != 1 || syscall(__NR_rt_sigaction, LSIGUSR1, NULL, &old, 8) ||
	    old.handler != UAPI_SIG_DFL)
		_exit(2);
	lsig_kill(getpid(), LSIGUSR1);
	_exit(3);
}

static void test_resethand(void)
{
	int status = child_status(resethand_child);
	ok(killed_by(status, SIGUSR1),
	   "SA_RESETHAND: handler once, then SIG_DFL and the second signal kills (%#x)", status);
}

static struct lsiginfo last_info;
static void *last_uc;

static void info_handler(int sig, struct lsiginfo *info, void *uc)
{
	(void)sig;
	last_info = *info;
	last_uc = uc;
}

static void test_siginfo(void)
{
	pid_t child;

	lsig_handle_info(LSIGUSR2, info_handler, 0);
	lsig_kill(getpid(), LSIGUSR2);
	ok(last_info.si_signo == LSIGUSR2 && last_info.si_code == LSI_USER &&
	       last_info.kill.pid == getpid() && last_uc,
	   "SA_SIGINFO from kill(self): si_signo, si_code SI_USER, si_pid, a ucontext");
	fflush(stdout);
	if ((child = fork()) == 0)
		_exit(lsig_kill(getppid(), LSIGUSR2) ? 1 : 0);
	waitpid(child, NULL, 0);
	ok(last_info.si_signo == LSIGUSR2 && last_info.kill.pid == child,
	   "si_pid names the sending child (%d, want %d)", last_info.kill.pid, (int)child);
}

int main(void)
{
	plan(12);
	test_registers();
	test_fp_across_signals();
	test_nodefer();
	test_sa_mask();
	test_resethand();
	test_siginfo();
	return done();
}
