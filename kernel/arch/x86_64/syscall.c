/*
 * System-call plumbing on the CPU side: the MSRs that make SYSCALL enter
 * syscall_entry, the GS base that lets the entry find this CPU's data, and
 * the C halves of the entry's unusual cases.  The common case, a table
 * call and SYSRET with nothing to do on the way out, stays in
 * syscall.asm; its registers follow the Linux x86_64 convention (rax =
 * number; rdi, rsi, rdx, r10, r8, r9 = arguments).
 */
#include <stddef.h>
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/percpu.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/dispatch.h"

/* RFLAGS bits cleared on entry: TF, IF, DF, IOPL, NT, AC. */
#define SYSCALL_FMASK 0x47700

/* The offsets syscall.asm reads through GS and in the current task. */
_Static_assert(offsetof(struct cpu, kstack_top) == CPU_KSTACK_TOP, "syscall.asm: CPU_KSTACK_TOP");
_Static_assert(offsetof(struct cpu, user_rsp) == CPU_USER_RSP, "syscall.asm: CPU_USER_RSP");
_Static_assert(offsetof(struct cpu, current) == CPU_CURRENT, "syscall.asm: CPU_CURRENT");
_Static_assert(offsetof(struct cpu, need_resched) == CPU_NEED_RESCHED,
	       "syscall.asm: CPU_NEED_RESCHED");
_Static_assert(offsetof(struct task, work) == 0, "syscall.asm: TASK_WORK");
_Static_assert(offsetof(struct task, indirect_flags) == 8, "syscall.asm: TASK_INDIRECT");
_Static_assert(NR_SYSCALLS == 1003, "syscall.asm: NR_SYSCALLS");

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

/* The call when the entry's table lookup does not apply: the trace is on,
 * or no handler has the number (-ENOSYS, counted). */
long syscall_dispatch(struct trapframe *tf)
{
	return syscall_invoke(tf->rax, tf->args);
}

/*
 * The way out when the entry's one-word test found work (or a restart
 * result, or need_resched): clears the task's work bits first, so a bit
 * set from now on is seen on the next way out, then does everything
 * return_to_user_work does.  The frame may have changed: syscall_exit
 * checks it before SYSRET.
 */
void syscall_exit_work(struct trapframe *tf)
{
	__atomic_store_n(&current()->work, 0, __ATOMIC_SEQ_CST); /* before the reads below */
	return_to_user_work(tf);
}
