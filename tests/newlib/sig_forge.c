/* Hostile signal set-ups: handlers and restorers at bad addresses, no stack
 * for the frame, garbage passed to rt_sigreturn, and real frames edited in
 * the handler (kernel rip, ring-0 selectors, IOPL, bad fpstate...).  Each
 * runs in a child that must die (SIGSEGV) or go on safely in ring 3. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sigutil.h"

#define KERNEL_ADDR  0xffffffff80100000UL
#define NONCANONICAL 0x8000000000000000UL
#define RFLAGS_IF    0x200UL
#define RFLAGS_IOPL  0x3000UL
#define RFLAGS_NT    0x4000UL
#define RFLAGS_TF    0x100UL
#define RFLAGS_VM    0x20000UL
#define MXCSR_OFFSET 24

/* Linux's x86_64 ucontext (asm/ucontext.h, asm/sigcontext.h). */
struct lmcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2, fpstate, reserved[8];
};

struct lucontext {
	uint64_t flags, link, ss_sp, ss_flags, ss_size;
	struct lmcontext mc;
	uint64_t sigmask;
};

/* How a case may end: killed by one of these signals (newlib numbers) or,
 * with CONTINUES, exit 0 after checking it runs in ring 3 unprivileged. */
enum { SEGV = 1, BUS = 2, TRAP = 4, CONTINUES = 8 };

struct forge {
	const char *what;
	void (*edit)(struct lucontext *uc); /* applied to the frame in the handler */
	int ends;
};

static void rip_kernel(struct lucontext *uc)
{
	uc->mc.rip = KERNEL_ADDR;
}
static void rip_noncanonical(struct lucontext *uc)
{
	uc->mc.rip = NONCANONICAL;
}
static void ring0_selectors(struct lucontext *uc)
{
	uc->mc.cs = 0x08;
	uc->mc.ss = 0x10;
}
static void privileged_rflags(struct lucontext *uc)
{
	uc->mc.eflags = (uc->mc.eflags | RFLAGS_IOPL | RFLAGS_NT | RFLAGS_VM) & ~RFLAGS_IF;
}
static void trap_flag(struct lucontext *uc)
{
	uc->mc.eflags |= RFLAGS_TF;
}
static void fpstate_kernel(struct lucontext *uc)
{
	uc->mc.fpstate = KERNEL_ADDR;
}
static void fpstate_unmapped(struct lucontext *uc)
{
	uc->mc.fpstate = 0x1000;
}
static void mxcsr_reserved(struct lucontext *uc)
{
	uint32_t bad = 0xffff0000;
	memcpy((char *)uc->mc.fpstate + MXCSR_OFFSET, &bad, sizeof(bad));
}
static void rsp_noncanonical(struct lucontext *uc)
{
	uc->mc.rsp = NONCANONICAL;
}

static const struct forge forges[] = {
    {"rip in the kernel half", rip_kernel, SEGV},
    {"non-canonical rip", rip_noncanonical, SEGV},
    {"ring-0 cs and ss", ring0_selectors, SEGV | CONTINUES},
    {"IOPL 3, NT, VM set and IF clear", privileged_rflags, SEGV | CONTINUES},
    {"TF set", trap_flag, TRAP},
    {"fpstate in the kernel half", fpstate_kernel, SEGV},
    {"fpstate unmapped", fpstate_unmapped, SEGV},
    {"MXCSR reserved bits in fpstate", mxcsr_reserved, SEGV | CONTINUES},
    {"non-canonical rsp", rsp_noncanonical, SEGV | BUS},
};

static const struct forge *current_forge;

static void editing_handler(int sig, struct lsiginfo *info, void *uc)
{
	(void)sig, (void)info;
	current_forge->edit(uc);
}

/* True if the program runs in ring 3 with IOPL 0, NT clear, IF set and a
 * valid MXCSR. */
static bool unprivileged(void)
{
	uint64_t flags;
	uint32_t mxcsr;
	uint16_t cs;

	__asm__ volatile("pushfq; pop %0" : "=r"(flags));
	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	return (cs & 3) == 3 && !(flags & (RFLAGS_IOPL | RFLAGS_NT)) && (flags & RFLAGS_IF) &&
	       !(mxcsr & 0xffff0000);
}

static void forged_frame_child(void)
{
	lsig_handle_info(LSIGUSR1, editing_handler, 0);
	lsig_kill(getpid(), LSIGUSR1);
	_exit(unprivileged() ? 0 : 1);
}

/* Whether STATUS is one of the endings ENDS allows. */
static bool allowed(int status, int ends)
{
	return ((ends & SEGV) && killed_by(status, SIGSEGV)) ||
	       ((ends & BUS) && killed_by(status, SIGBUS)) ||
	       ((ends & TRAP) && killed_by(status, SIGTRAP)) ||
	       ((ends & CONTINUES) && exited_with(status, 0));
}

static void test_forged_frames(void)
{
	for (size_t i = 0; i < sizeof(forges) / sizeof(forges[0]); i++) {
		current_forge = &forges[i];
		int status = child_status(forged_frame_child);
		ok(allowed(status, forges[i].ends), "frame with %s: %s (status %#x)",
		   forges[i].what, exited_with(status, 0) ? "goes on in ring 3" : "dies", status);
	}
}

/* rt_sigreturn with the stack pointer at SP; never returns. */
void sigreturn_at(const void *sp);
__asm__(".text\n"
	"sigreturn_at:\n"
	"	mov %rdi, %rsp\n"
	"	mov $15, %eax\n"
	"	syscall\n"
	"	ud2\n");

/* kill(pid, sig) with the stack pointer at SP, so no frame can be written. */
void kill_with_stack(int pid, int sig, uint64_t sp);
__asm__(".text\n"
	"kill_with_stack:\n"
	"	mov %rdx, %rsp\n"
	"	mov $62, %eax\n"
	"	syscall\n"
	"	ud2\n");

static uint64_t garbage[64] __attribute__((aligned(16)));

static void sigreturn_garbage(void)
{
	memset(garbage, 0xa5, sizeof(garbage));
	sigreturn_at(garbage);
}
static void sigreturn_zeros(void)
{
	memset(garbage, 0, sizeof(garbage));
	sigreturn_at(garbage);
}
static void sigreturn_unmapped(void)
{
	sigreturn_at((void *)0x1000);
}
static void sigreturn_kernel(void)
{
	sigreturn_at((void *)KERNEL_ADDR);
}

static void nop_handler(int sig)
{
	(void)sig;
}

static void kill_stack_zero(void)
{
	lsig_handle(LSIGUSR1, nop_handler, 0);
	kill_with_stack(getpid(), LSIGUSR1, 0);
}
static void kill_stack_kernel(void)
{
	lsig_handle(LSIGUSR1, nop_handler, 0);
	kill_with_stack(getpid(), LSIGUSR1, KERNEL_ADDR);
}

static void raise_with_handler_at(uint64_t handler)
{
	lsig_action(LSIGUSR1, handler, 0, 0);
	lsig_kill(getpid(), LSIGUSR1);
	_exit(0);
}
static void handler_at_2(void)
{
	raise_with_handler_at(2); /* 1 is SIG_IGN */
}
static void handler_in_kernel(void)
{
	raise_with_handler_at(KERNEL_ADDR);
}
static void handler_noncanonical(void)
{
	raise_with_handler_at(NONCANONICAL);
}
static void no_restorer(void)
{
	struct uapi_sigaction act = {(uint64_t)nop_handler, 0, 0, 0};
	syscall(__NR_rt_sigaction, LSIGUSR1, &act, NULL, 8);
	lsig_kill(getpid(), LSIGUSR1);
	_exit(0);
}
static void restorer_at_1(void)
{
	struct uapi_sigaction act = {(uint64_t)nop_handler, UAPI_SA_RESTORER, 1, 0};
	syscall(__NR_rt_sigaction, LSIGUSR1, &act, NULL, 8);
	lsig_kill(getpid(), LSIGUSR1);
	_exit(0);
}

static const struct {
	const char *what;
	void (*fn)(void);
} segv_cases[] = {
    {"rt_sigreturn on garbage", sigreturn_garbage},
    {"rt_sigreturn on zeros", sigreturn_zeros},
    {"rt_sigreturn with rsp unmapped", sigreturn_unmapped},
    {"rt_sigreturn with rsp in the kernel half", sigreturn_kernel},
    {"a signal with rsp 0", kill_stack_zero},
    {"a signal with rsp in the kernel half", kill_stack_kernel},
    {"a handler at address 2", handler_at_2},
    {"a handler in the kernel half", handler_in_kernel},
    {"a handler at a non-canonical address", handler_noncanonical},
    {"a handler without SA_RESTORER", no_restorer},
    {"a restorer at address 1", restorer_at_1},
};

static void test_segv_cases(void)
{
	for (size_t i = 0; i < sizeof(segv_cases) / sizeof(segv_cases[0]); i++) {
		int status = child_status(segv_cases[i].fn);
		ok(killed_by(status, SIGSEGV), "%s: killed by SIGSEGV (status %#x)",
		   segv_cases[i].what, status);
	}
}

int main(void)
{
	plan(sizeof(forges) / sizeof(forges[0]) + sizeof(segv_cases) / sizeof(segv_cases[0]));
	test_forged_frames();
	test_segv_cases();
	return done();
}
