/*
 * Per-CPU data.  Everything that belongs to one CPU sits in struct cpu and
 * is reached only through this_cpu(), which reads the self pointer at gs:0:
 * in the kernel GS's base is this CPU's struct cpu (kmain for CPU 0, smp.c
 * for the others; entries from user mode swapgs).
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

#include <stdbool.h>
#include <stdint.h>

struct task;
struct lockdep_task;

#define MAX_CPUS 8 /* CPUs started; more in the MADT are ignored */

struct vm_space;
struct call_desc;

/*
 * The fields with a CPU_* offset below are read by assembly through GS
 * (syscall.asm): arch/x86_64/syscall.c checks the offsets at compile time.
 */
struct cpu {
	struct cpu *self;     /* gs:0 */
	uint64_t kstack_top;  /* gs:8, rsp for syscall entry (current's stack) */
	uint64_t user_rsp;    /* gs:16, user rsp parked during syscall entry */
	struct task *current; /* gs:24 */
	int id;		      /* 0: the boot CPU; the others in start-up order */
	bool online;	      /* set by the CPU itself once it runs its idle loop */
	uint32_t apic_id;     /* its local APIC's id, set before it starts */
	/* The cross-CPU calls made to this CPU and not yet taken (smp.c), a
	 * lock-free stack: callers push with a compare-and-exchange, this CPU
	 * takes them all with an exchange.  Each descriptor lives in its
	 * caller's frame until this CPU marks it done (struct call_desc). */
	struct call_desc *call_queue;
	int irq_off_depth; /* nesting of irq_push_off() */
	bool irq_were_on;  /* IF before the outermost irq_push_off() */
	uint64_t ticks;	   /* timer interrupts taken on this CPU */
	bool need_resched; /* switch tasks before returning to user mode */
	struct task *dead; /* TASK_DEAD task just switched away from (sched/sched.c) */
	struct task *prev; /* the task this CPU switched away from last (finish_switch) */
	/* The user FS and GS bases in this CPU's MSRs (sched.c: user_bases_load). */
	uint64_t user_fsbase, user_gsbase;
	struct vm_space *vm; /* the space in CR3 (paging.c: vm_switch); NULL: kernel */
	struct task *idle;   /* this CPU's idle task (sched.c) */
#ifdef LOCKDEP
	/* current's mutexes (lib/lockdep.c), set with current (sched.c). */
	struct lockdep_task *lockdep;
#endif
	/* What /proc/interrupts and /proc/stat show: written by this CPU
	 * only, with interrupts off; read by anyone, without a lock. */
	uint64_t irqs[16];     /* ISA IRQs taken (traps.c) */
	uint64_t dev_irqs[32]; /* device vectors taken (irqvec.c: VEC_DEV_COUNT) */
	uint64_t resched_ipis; /* VEC_IPI_RESCHED and VEC_IPI_KICK taken */
	uint64_t call_ipis;    /* VEC_IPI_CALL taken */
	uint64_t nmis;	       /* NMIs taken (and ignored) */
	uint64_t user_ticks;   /* ticks that found a task in user mode */
	uint64_t system_ticks; /* ... a task in the kernel */
	uint64_t idle_ticks;   /* ... the idle task */
	uint64_t switches;     /* context switches (schedule) */
};

#define CPU_KSTACK_TOP	 8
#define CPU_USER_RSP	 16
#define CPU_CURRENT	 24
#define CPU_NEED_RESCHED 72 /* read by the system call's fast exit */

extern struct cpu cpu0;

/* The queued cross-CPU calls run (smp.c); every loop that waits with
 * interrupts off calls smp_call_poll(), so a CPU that waits on another
 * never stops serving the calls made to it. */
void smp_call_handle(void);

/* Through smp_call_handle_thunk (smp.c), which keeps every register: a
 * plain call here made the inline spin_lock's fast path save and restore
 * callee-saved registers for a slow path it never takes (+8 instructions
 * a lock, futex_pingpong +7% under make bench-check). */
static inline void smp_call_poll(struct cpu *c)
{
	if (__atomic_load_n(&c->call_queue, __ATOMIC_RELAXED))
		asm volatile("call smp_call_handle_thunk" ::: "memory", "cc");
}

/* volatile: with tasks migrating one day, a value read before a switch
 * must not be reused after it. */
static inline struct cpu *this_cpu(void)
{
	struct cpu *c;

	asm volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* this_cpu()->current in one load (current() in sched/task_sched.h), volatile
 * for the same reason. */
static inline struct task *this_cpu_current(void)
{
	struct task *t;

	asm volatile("movq %%gs:%c1, %0" : "=r"(t) : "i"(CPU_CURRENT));
	return t;
}

#endif
