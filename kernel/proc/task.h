/*
 * Tasks: one per process (fdkernel has no threads).  A task owns a kernel
 * stack, an address space, a files table and a working directory; the
 * parent/child links support wait4 and reparenting to init.
 */
#ifndef PROC_TASK_H
#define PROC_TASK_H

#include <stdbool.h>
#include <stdint.h>
#include "arch/x86_64/fpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/trapframe.h"
#include "lib/list.h"
#include "proc/itimer.h"
#include "proc/ktimer.h"
#include "proc/signal.h"
#include "sched/wait.h"

struct vm_space;
struct files_table;
struct inode;

enum task_state {
	TASK_RUNNABLE, /* on the run queue or running */
	TASK_SLEEPING, /* waiting (wait queue, sleep timer), woken by them or a signal */
	TASK_ZOMBIE,   /* exited; waiting for its parent's wait4 */
	TASK_DEAD,     /* exited, nobody waits: freed once switched away from */
	TASK_NEW,      /* being built (task_alloc): no wake-up starts it, only
			* sched_make_runnable */
};

#define TASK_NAME_MAX 32
#define TASK_MAX      1024 /* live tasks (zombies included); fork gives EAGAIN past it */
#define PID_MAX	      32768
#define KSTACK_SIZE   (16 * 1024)

/*
 * Who may touch what.  "Own" fields are used only by the task itself, or
 * by fork, exec and exit on its behalf while no one else can reach them;
 * one task is one thread, so they need no lock.
 */
struct task {
	int pid; /* set under proc_lock in task_alloc, then constant */
	/* Changed under sched_lock (sched/sched.c); the exits (ZOMBIE, DEAD) also
	 * under proc_lock, so wait4 and kill read it under proc_lock. */
	enum task_state state;
	char name[TASK_NAME_MAX]; /* own (exec renames); others only print it */

	/* Scheduling (sched_lock). */
	uint64_t ctx_rsp;	   /* kernel rsp saved by switch_to */
	struct list_head run_link; /* run queue membership */
	struct ktimer sleep_timer; /* ends a deadline sleep (ktimer_lock) */

	/* Kernel stack: the user trapframe sits at its top.  kstack, kslot
	 * and tf are set by task_alloc, then constant until task_free. */
	void *kstack;		   /* NULL until mapped */
	int kslot;		   /* its slot in the kernel-stack region */
	struct list_head all_link; /* on the task list (proc_lock) */
	struct trapframe *tf;

	/* Written only through task_swap_vm (fork, exec, exit: under proc_lock);
	 * other tasks (the OOM killer) read it under proc_lock. */
	struct vm_space *vm;
	struct files_table *files; /* own (the table has its own lock) */
	struct inode *cwd;	   /* own */
	unsigned int umask;	   /* own: creation mode mask (umask(2)); fork copies it */
	/* own: the program file (referenced; fork shares it, execve replaces
	 * it, exit drops it), read for fault reports; NULL before the first exec. */
	struct inode *exe;

	/* User memory layout: own (brk, mmap; exec sets, fork copies them). */
	uint64_t brk_start, brk;
	uint64_t mmap_next; /* where the next anonymous mmap goes */

	/* Family: read and written under proc_lock (task.c, exit.c, reap.c,
	 * pgrp.c), exit_status included; child_exit has its own lock. */
	struct task *parent;
	struct list_head children;
	struct list_head sibling;
	struct wait_queue child_exit; /* the parent sleeps here in wait4 */
	int exit_status;	      /* wait status encoding */
	int pgid, sid;		      /* process group and session (inherited) */

	struct fpu_state fpu; /* own: user FPU/SSE registers while switched out */
	/* own: user FS and GS bases (arch_prctl, CLONE_SETTLS), loaded into
	 * the MSRs when the task is switched in; user mode cannot change them
	 * (CR4.FSGSBASE stays off), so these copies are always current. */
	uint64_t fsbase, gsbase;
	/* own: set_tid_address / CLONE_CHILD_CLEARTID: the user word zeroed
	 * (and its futex waiters woken) when this thread exits; 0 if none. */
	uint64_t clear_child_tid;
	/* own: set_robust_list's head (user address), walked when the thread
	 * exits or execs (proc/futex_exit.c); 0 if none, and for a new task.
	 * get_robust_list reads another task's under proc_lock. */
	uint64_t robust_list;

	struct signal_state sig;      /* its rules are in proc/signal.h */
	unsigned long indirect_flags; /* own: SYSIND_* of a syscall_indirect() in progress */
#define SYSIND_ACTIVE (1UL << 63)     /* ... with no flag at all: still "in progress" */
	unsigned strace_session; /* own: traced while it equals the trace session (sys/strace.c) */
	uint64_t utime_ticks, stime_ticks; /* counted by the tick of the CPU running it */
	/*
	 * SCM_RIGHTS sets this task is dropping (net/scm.c), or NULL: a drop
	 * that releases a socket queues that socket's sets here rather than
	 * recursing.  Only the task itself touches it.
	 */
	struct list_head *scm_dropping;
	struct itimers itimers; /* alarm, setitimer (itimer_lock, proc/itimer.c) */
};

/* True once t has exited (a zombie, or dead and about to be freed). */
static inline bool task_exited(const struct task *t)
{
	return t->state == TASK_ZOMBIE || t->state == TASK_DEAD;
}

/* The task running on this CPU. */
static inline struct task *current(void)
{
	return this_cpu()->current;
}

#endif
