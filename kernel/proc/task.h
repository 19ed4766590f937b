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
#include "proc/signal.h"
#include "proc/wait.h"

struct vm_space;
struct files_table;
struct inode;

enum task_state {
	TASK_RUNNABLE, /* on the run queue or running */
	TASK_SLEEPING, /* on a wait queue, woken by wake_up or a signal */
	TASK_ZOMBIE,   /* exited; waiting for its parent's wait4 */
};

#define TASK_NAME_MAX 32
#define TASK_MAX      1024 /* live tasks (zombies included); fork gives EAGAIN past it */
#define PID_MAX	      32768
#define KSTACK_SIZE   (16 * 1024)

struct task {
	int pid;
	enum task_state state;
	char name[TASK_NAME_MAX];

	/* Scheduling (all protected by the scheduler lock). */
	uint64_t ctx_rsp;	   /* kernel rsp saved by switch_to */
	struct list_head run_link; /* run queue membership */
	uint64_t wake_at_ns;	   /* nanosleep deadline, 0 if none */

	/* Kernel stack: the user trapframe sits at its top. */
	void *kstack;		   /* NULL until mapped */
	int kslot;		   /* its slot in the kernel-stack region */
	struct list_head all_link; /* on the task list (proc_lock) */
	struct trapframe *tf;

	/* Written only through task_swap_vm (fork, exec, exit: under proc_lock);
	 * other tasks (the OOM killer) read it under proc_lock. */
	struct vm_space *vm;
	struct files_table *files;
	struct inode *cwd;
	/* The program file (referenced; fork shares it, execve replaces it,
	 * exit drops it), read for fault reports; NULL before the first exec. */
	struct inode *exe;

	/* User memory layout (protected by vm's lock for changes). */
	uint64_t brk_start, brk;
	uint64_t mmap_next; /* where the next anonymous mmap goes */

	/* Family (protected by the process-tree lock, proc/task.c). */
	struct task *parent;
	struct list_head children;
	struct list_head sibling;
	struct wait_queue child_exit; /* the parent sleeps here in wait4 */
	int exit_status;	      /* wait status encoding */
	int pgid, sid;		      /* process group and session (inherited) */

	struct fpu_state fpu; /* user FPU/SSE registers while switched out */

	struct signal_state sig;
	unsigned long indirect_flags; /* SYSIND_* of a syscall_indirect() in progress */
#define SYSIND_ACTIVE (1UL << 63)     /* ... with no flag at all: still "in progress" */
	unsigned strace_session;      /* traced while it equals the trace session (sys/strace.c) */
	uint64_t utime_ticks, stime_ticks;
	/*
	 * SCM_RIGHTS sets this task is dropping (net/scm.c), or NULL: a drop
	 * that releases a socket queues that socket's sets here rather than
	 * recursing.  Only the task itself touches it.
	 */
	struct list_head *scm_dropping;
};

/* The task running on this CPU. */
static inline struct task *current(void)
{
	return this_cpu()->current;
}

#endif
