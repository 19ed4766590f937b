/*
 * The scheduler's part of a task, and current().  A task (proc/task.h)
 * begins with these fields, so that the scheduler, the context switch and
 * the system-call entry reach them from a struct task pointer without the
 * process model's definitions: sched/ stays below proc/.  struct task
 * holds them twice over in a union (Linux's struct_group): by name as
 * t->sched, a struct task_sched, and unnamed, so the rest of the kernel
 * keeps writing t->state.
 */
#ifndef SCHED_TASK_SCHED_H
#define SCHED_TASK_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/percpu.h"
#include "lib/list.h"
#include "lib/rbtree.h"
#include "lib/lockdep.h"
#include "sched/ktimer.h"

struct task;
struct vm_space;

enum task_state {
	TASK_RUNNABLE, /* on the run queue or running */
	TASK_SLEEPING, /* waiting (wait queue, sleep timer), woken by them or a signal */
	TASK_ZOMBIE,   /* exited group leader: kept until its group is reaped */
	TASK_DEAD,     /* exited, nobody waits: freed once switched away from */
	TASK_NEW,      /* being built (task_alloc): no wake-up starts it, only
			* sched_make_runnable */
};

#define TASK_NAME_MAX 32
#define KSTACK_SIZE   (16 * 1024)

#ifdef LOCKDEP
/* The mutexes the task holds (lib/lockdep.h; this_cpu()->lockdep while it
 * runs). */
#define TASK_SCHED_LOCKDEP struct lockdep_task lockdep;
#else
#define TASK_SCHED_LOCKDEP
#endif

/*
 * The fields, in the order struct task_sched and struct task both hold
 * them.  Who may touch what is as for struct task (proc/task.h): "own"
 * fields are used only by the task itself, or by clone, exec and exit on
 * its behalf while no one else can reach them.
 */
#define TASK_SCHED_FIELDS                                                                          \
	/* TASK_WORK_* bits (proc/task.h): what the system call's way out must                     \
	 * do before it may leave by SYSRET without looking at anything else                       \
	 * (syscall.asm's fast exit tests this one word; the slow way clears                       \
	 * it, then looks at everything: arch/x86_64/syscall.c).  Atomic:                          \
	 * other tasks set bits (a signal sender), only the task clears them.                      \
	 * First: the entry code reads it at offset 0. */                                          \
	unsigned long work;                                                                        \
	/* Own: the SYSIND_* flags of a syscall_indirect() in progress, set                        \
	 * by it and cleared by every system call's way out (syscall.asm, at                       \
	 * offset 8), so the call may end in its inner call's return. */                           \
	unsigned long indirect_flags;                                                              \
	/* Changed under sched_lock (sched/sched.c); the exits (ZOMBIE, DEAD)                      \
	 * also under proc_lock, so wait4 and kill read it under proc_lock. */                     \
	enum task_state state;                                                                     \
	char name[TASK_NAME_MAX]; /* own (exec renames); others only print it */                   \
	bool is_idle;		  /* a CPU's idle task (sched_init_cpu); constant */               \
	/* Scheduling (sched_lock). */                                                             \
	uint64_t ctx_rsp;	   /* kernel rsp saved by switch_to */                             \
	struct list_head run_link; /* real-time or deadline queue membership */                    \
	/* Its CPU's id + 1 when the task is switched in; cleared (release)                        \
	 * by finish_switch once the switch away from it completed, on the                         \
	 * next task's stack.  No CPU switches to a task whose on_cpu is                           \
	 * still set.  task_free waits for 0 (acquire) before the stack goes:                      \
	 * a zombie may still be in schedule() on another CPU when it is                           \
	 * reaped. */                                                                              \
	int on_cpu;                                                                                \
	/* The CPUs it may run on, bit n for CPU n (sched_lock; clone copies                       \
	 * its parent's, exec keeps it; sched_setaffinity). */                                     \
	uint64_t cpus_allowed;                                                                     \
	/* The real-time class (sched_lock; sched_set_rt): rt_prio 1..99 for                       \
	 * SCHED_FIFO and SCHED_RR, 0 for the normal policies; rt_rr: round                        \
	 * robin among its equals, with rr_left ticks left of its quantum;                         \
	 * rt_tail: the next switch away queues it behind its equals (a yield,                     \
	 * a spent quantum), not in front as a preempted one; for a fair task                      \
	 * (a yield), any other fair task that may run there comes first. */                       \
	int rt_prio;                                                                               \
	int rr_left;                                                                               \
	bool rt_rr;                                                                                \
	bool rt_tail;                                                                              \
	/* The deadline class (sched_lock; sched_set_dl): dl for                                   \
	 * SCHED_DEADLINE, a reservation of dl_runtime ns in every dl_period,                      \
	 * due dl_deadline ns after the period starts, admitted as dl_bw (of                       \
	 * 1 << 20 for a whole CPU).  The current instance: dl_left ns of                          \
	 * runtime left, due at dl_abs (monotonic ns).  dl_throttled: its                          \
	 * runtime is spent, so it waits off the queues until dl_timer                             \
	 * replenishes it at the start of its next period (CBS). */                                \
	bool dl;                                                                                   \
	bool dl_throttled;                                                                         \
	int64_t dl_left;                                                                           \
	uint64_t dl_runtime, dl_deadline, dl_period, dl_abs, dl_bw;                                \
	struct ktimer dl_timer;                                                                    \
	/* The fair class (sched_lock; sched/fair.c): weight from the nice                         \
	 * value (1024 at nice 0; 3 for SCHED_IDLE) and fair_policy                                \
	 * (SCHED_OTHER, BATCH or IDLE), set by sched_set_fair; vruntime,                          \
	 * the virtual runtime (ns), its place in the fair tree (fair_node,                        \
	 * while fair_queued). */                                                                  \
	struct rb_node fair_node;                                                                  \
	bool fair_queued;                                                                          \
	uint8_t fair_policy;                                                                       \
	uint32_t weight;                                                                           \
	uint64_t vruntime;                                                                         \
	struct ktimer sleep_timer; /* ends a deadline sleep (ktimer_lock) */                       \
	/* Kernel stack (its top: the user trapframe): set by task_alloc,                          \
	 * then constant until task_free; NULL until mapped. */                                    \
	void *kstack;                                                                              \
	/* The space the CPU loads for the task: its uvm's, or vm_kernel()                         \
	 * without user memory (before the first exec, after exit).  Written                       \
	 * only through task_swap_uvm (clone, exec, exit: under proc_lock);                        \
	 * other tasks (the OOM killer) read it under proc_lock. */                                \
	struct vm_space *vm;                                                                       \
	struct fpu_state fpu; /* own: user FPU/SSE registers while switched out */                 \
	/* own: user FS and GS bases (arch_prctl, CLONE_SETTLS), loaded into                       \
	 * the MSRs when the task is switched in; user mode cannot change                          \
	 * them (CR4.FSGSBASE stays off), so these copies are always current. */                   \
	uint64_t fsbase, gsbase;                                                                   \
	/* own: rdtsc faults (PR_TSC_SIGSEGV: CR4.TSD while it runs; prctl). */                    \
	bool tsc_sigsegv;                                                                          \
	/* own: an io_uring inline attempt in progress (async/io_uring_req.c):                     \
	 * the calls that honour O_NONBLOCK return -EAGAIN rather than wait                        \
	 * (file_nonblock, fs/file.h), as Linux's IOCB_NOWAIT. */                                  \
	bool nowait;                                                                               \
	TASK_SCHED_LOCKDEP

/* The scheduler's part of a task: what sched/ reads and writes. */
struct task_sched {
	TASK_SCHED_FIELDS
};

/* t's scheduler part, and back: struct task begins with it (proc/task.h
 * asserts the offset), so these are casts. */
static inline struct task_sched *task_sched(struct task *t)
{
	return (struct task_sched *)(void *)t;
}

static inline struct task *sched_task(struct task_sched *s)
{
	return (struct task *)(void *)s;
}

/* The task running on this CPU. */
static inline struct task *current(void)
{
	return this_cpu_current();
}

#endif
