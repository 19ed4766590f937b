/*
 * System-call plumbing on the CPU side: the MSRs that make SYSCALL enter
 * syscall_entry, the GS base that lets the entry find this CPU's data, and
 * the C half of the entry, which decodes the registers per the Linux x86_64
 * convention (rax = number; rdi, rsi, rdx, r10, r8, r9 = arguments).
 */
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "proc/group.h"
#include "proc/signal.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"

/* RFLAGS bits cleared on entry: TF, IF, DF, IOPL, NT, AC. */
#define SYSCALL_FMASK 0x47700

void syscall_entry(void);

void syscall_init(void)
{
	wrmsr(MSR_KERNEL_GS_BASE, 0); /* the user's GS while in the kernel */
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSRET loads CS = base + 16 and SS = base + 8 from STAR[63:48]. */
	wrmsr(MSR_STAR, ((uint64_t)(USER_CS32 & ~3) << 48) | ((uint64_t)KERNEL_CS << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, SYSCALL_FMASK);
}

void syscall_dispatch(struct trapframe *tf)
{
	/* Handlers read their arguments before any of them rewrites the frame
	 * (execve, rt_sigreturn): SYSCALL_DEFINEn converts them all first. */
	tf->rax = (uint64_t)syscall_invoke(tf->rax, tf->args);
	/* The work return_to_user_work does, tested here first: nearly every
	 * call has none, and then the call and its frame are saved.  The CPU
	 * is read once, after the call (this_cpu() is a volatile gs load). */
	struct cpu *c = this_cpu();
	struct task *t = c->current;

	if (c->need_resched || task_signal_work(t, tf))
		return_to_user_work(tf);
}
