/*
 * Building and unwinding signal frames.  Nothing read back from user
 * memory is trusted: segment selectors are forced to the user ones, only
 * the RFLAGS bits a program may change are taken, the return address must
 * be a user address, and MXCSR reserved bits are cleared before FXRSTOR
 * (which would fault in the kernel on them).
 */
#include "arch/x86_64/sigframe.h"
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/uaccess.h"
#include "lib/string.h"
#include "proc/signal.h"
#include "proc/task.h"
#include <uapi/errno.h>

struct sigcontext_k {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate; /* user address of the saved FXSAVE area */
	uint64_t reserved1[8];
};

struct ucontext_k {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct uapi_stack uc_stack;
	struct sigcontext_k uc_mcontext;
	uint64_t uc_sigmask;
};

struct siginfo_k {
	int32_t si_signo, si_errno, si_code, pad;
	union {
		struct {
			int32_t pid;
			uint32_t uid;
		} kill;
		struct {
			int32_t pid;
			uint32_t uid;
			int32_t status;
		} chld;
		uint64_t addr;
		uint8_t bytes[112];
	};
};

struct rt_sigframe {
	uint64_t pretcode; /* the handler returns here: sa_restorer */
	struct ucontext_k uc;
	struct siginfo_k info;
};

/* RFLAGS bits a program may set (Linux's FIX_EFLAGS): CF PF AF ZF SF TF DF OF AC RF. */
#define USER_RFLAGS   0x50dd5UL
#define RFLAGS_IF_BIT 0x200UL
#define RFLAGS_TF     0x100UL
#define RFLAGS_DF     0x400UL
#define RFLAGS_RF     0x10000UL
#define MXCSR_OFFSET  24
#define MXCSR_SAFE    0xffbfU /* bits FXRSTOR accepts on every x86_64 CPU */

static void save_regs(struct sigcontext_k *sc, const struct trapframe *tf)
{
	*sc = (struct sigcontext_k){
	    .r8 = tf->r8,
	    .r9 = tf->r9,
	    .r10 = tf->r10,
	    .r11 = tf->r11,
	    .r12 = tf->r12,
	    .r13 = tf->r13,
	    .r14 = tf->r14,
	    .r15 = tf->r15,
	    .rdi = tf->rdi,
	    .rsi = tf->rsi,
	    .rbp = tf->rbp,
	    .rbx = tf->rbx,
	    .rdx = tf->rdx,
	    .rax = tf->rax,
	    .rcx = tf->rcx,
	    .rsp = tf->rsp,
	    .rip = tf->rip,
	    .eflags = tf->rflags,
	    .cs = USER_CS,
	    .ss = USER_DS,
	    .trapno = tf->vector,
	    .err = tf->error,
	};
}

/* sig_info keeps Linux's kernel_siginfo after si_signo: its union lands
 * at siginfo_t's, as it is. */
static void fill_info(struct siginfo_k *si, int sig, const struct sig_info *info)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_errno = info->err;
	si->si_code = info->code;
	memcpy(si->bytes, info->raw, sizeof(info->raw));
}

void siginfo_fill(void *si128, int sig, const struct sig_info *info)
{
	struct siginfo_k si;

	fill_info(&si, sig, info);
	memcpy(si128, &si, sizeof(si));
}

int siginfo_to_user(void *uinfo, int sig, const struct sig_info *info)
{
	struct siginfo_k si;

	fill_info(&si, sig, info);
	return copy_to_user(uinfo, &si, sizeof(si)) ? -EFAULT : 0;
}

uint64_t sigframe_size(void)
{
	/* Room for both frames and their alignment. */
	return sizeof(struct rt_sigframe) + sizeof(struct fpu_state) + 64 + 16 + 8;
}

int sigframe_setup(struct trapframe *tf, int sig, const struct uapi_sigaction *act,
		   const struct sig_info *info, uint64_t old_mask)
{
	struct task *t = current();
	struct rt_sigframe f;
	struct fpu_state fpu;
	uint64_t need = sigframe_size();
	uint64_t top = altstack_frame_top(t, act->flags, tf->rsp, need);
	uint64_t fp_va = (top - sizeof(fpu)) & ~63UL;
	/* At handler entry rsp + 8 must be 16-aligned, as after a call. */
	uint64_t frame_va = ((fp_va - sizeof(f)) & ~15UL) - 8;

	if (!(act->flags & UAPI_SA_RESTORER) || top < need || top >= USER_END)
		return -EFAULT;
	memset(&f, 0, sizeof(f));
	f.pretcode = act->restorer;
	f.uc.uc_stack = altstack_saved(t);
	save_regs(&f.uc.uc_mcontext, tf);
	f.uc.uc_mcontext.fpstate = fp_va;
	f.uc.uc_mcontext.oldmask = old_mask;
	f.uc.uc_sigmask = old_mask;
	fill_info(&f.info, sig, info);
	fpu_save(&fpu);
	if (copy_to_user((void *)fp_va, &fpu, sizeof(fpu)) ||
	    copy_to_user((void *)frame_va, &f, sizeof(f)))
		return -EFAULT;
	tf->rsp = frame_va;
	tf->rip = act->handler;
	tf->rdi = (uint64_t)sig;
	tf->rsi = frame_va + __builtin_offsetof(struct rt_sigframe, info);
	tf->rdx = frame_va + __builtin_offsetof(struct rt_sigframe, uc);
	tf->rax = 0;
	/* DF clear, as the ABI requires at a call; TF and RF clear, so a
	 * single-stepped program's handler is not stepped (Linux). */
	tf->rflags &= ~(RFLAGS_DF | RFLAGS_TF | RFLAGS_RF);
	altstack_handler_started(t);
	return 0;
}

static int restore_fpu(uint64_t fp_va)
{
	struct fpu_state fpu;
	uint32_t mxcsr;

	if (copy_from_user(&fpu, (const void *)fp_va, sizeof(fpu)))
		return -EFAULT;
	memcpy(&mxcsr, fpu.fxsave + MXCSR_OFFSET, sizeof(mxcsr));
	mxcsr &= MXCSR_SAFE;
	memcpy(fpu.fxsave + MXCSR_OFFSET, &mxcsr, sizeof(mxcsr));
	fpu_restore(&fpu);
	return 0;
}

int sigframe_restore(struct trapframe *tf, uint64_t *mask)
{
	struct ucontext_k uc;
	const struct sigcontext_k *sc = &uc.uc_mcontext;
	uint64_t handler_sp = tf->rsp;

	/* The restorer runs after the handler's ret popped pretcode. */
	if (copy_from_user(&uc, (const void *)tf->rsp, sizeof(uc)))
		return -EFAULT;
	if (sc->rip >= USER_END || restore_fpu(sc->fpstate))
		return -EFAULT;
	tf->r8 = sc->r8, tf->r9 = sc->r9, tf->r10 = sc->r10, tf->r11 = sc->r11;
	tf->r12 = sc->r12, tf->r13 = sc->r13, tf->r14 = sc->r14, tf->r15 = sc->r15;
	tf->rdi = sc->rdi, tf->rsi = sc->rsi, tf->rbp = sc->rbp, tf->rbx = sc->rbx;
	tf->rdx = sc->rdx, tf->rax = sc->rax, tf->rcx = sc->rcx, tf->rsp = sc->rsp;
	tf->rip = sc->rip;
	tf->rflags = (tf->rflags & ~USER_RFLAGS) | (sc->eflags & USER_RFLAGS) | RFLAGS_IF_BIT;
	tf->cs = USER_CS;
	tf->ss = USER_DS;
	tf->error = (uint64_t)-1; /* the restored rax is a result: never restart it */
	*mask = uc.uc_sigmask;
	/* A handler may change the stack through uc_stack.  As on Linux, it
	 * is judged from the handler's rsp (EPERM if that is on the stack now
	 * set), and failures are ignored. */
	altstack_set(current(), &uc.uc_stack, handler_sp);
	return 0;
}
