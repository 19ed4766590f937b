/*
 * Tasks: one per thread.  A task owns its kernel stack, registers, FPU
 * state, TLS bases, blocked mask and private pending signals; what a
 * process shares is referenced: its thread group (proc/group.h: ids,
 * family, exit state, shared signals, itimers), signal handlers
 * (struct sighand), files table, fs context (cwd) and user memory
 * (struct uvm).  docs/processes.md, "Threads".
 */
#ifndef PROC_TASK_H
#define PROC_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arch/x86_64/trapframe.h"
#include "lib/list.h"
#include "proc/itimer.h"
#include "proc/signal.h"
#include "proc/task_io.h"
#include "sched/task_sched.h"
#include "sched/wait.h"

struct files_table;
struct sem_undo_list;
struct fs_struct;
struct nsproxy;
struct pid_numbers;
struct async_ctx;
struct io_tw;
struct fd_redirect;
struct inode;
struct sighand;
struct thread_group;
struct uvm;

#define TASK_MAX	1024	  /* tasks (threads and zombies); fork/clone give EAGAIN past it */
#define PID_MAX_DEFAULT 32768	  /* pid_max at boot (Linux's) */
#define PID_MAX_LIMIT	(1 << 22) /* the most pid_max may be (Linux's, 64-bit) */

/*
 * Who may touch what.  "Own" fields are used only by the task itself, or
 * by clone, exec and exit on its behalf while no one else can reach them;
 * they need no lock.
 */
struct task {
	/* The scheduler's part, first (task_sched() is a cast), by name and
	 * unnamed: t->sched is a struct task_sched, t->state its state. */
	union {
		struct task_sched sched;
		struct {
			TASK_SCHED_FIELDS
		};
	};
#define SYSIND_ACTIVE (1UL << 63) /* ... with no flag at all: still "in progress" */
	/* The thread id (gettid); the process id is group->tgid.  Set under
	 * proc_lock in task_alloc; changed only by de_thread (exec.c, under
	 * proc_lock), which gives the exec'ing thread its leader's. */
	int pid;
	/* Its numbers in its pid namespace and their ancestors
	 * (proc/pid_ns.h), NULL in the initial namespace (pid is all it
	 * has): set by clone before the task is visible, swapped with pid
	 * by de_thread, freed by task_free. */
	struct pid_numbers *pidnums;
	/* Referenced (group->refs): set before the task is visible, dropped by
	 * task_free.  group_link is on group->threads while the task has not
	 * exited (proc_lock). */
	struct thread_group *group;
	struct list_head group_link;

	/* References (atomic): one for being a task (dropped by task_free)
	 * and one per holder from task_find/task_get.  The struct is freed at
	 * the last task_put; the task may have exited and been reaped long
	 * before, so a holder checks task_exited() under proc_lock. */
	int refs;

	/* Kernel stack (kstack, in the scheduler's part): the user trapframe
	 * sits at its top.  kslot and tf are set by task_alloc, then constant
	 * until task_free. */
	int kslot;		   /* its slot in the kernel-stack region */
	struct list_head all_link; /* on the task list (proc_lock) */
	struct trapframe *tf;

	/*
	 * User memory (referenced: uvm->users), whose space is the vm the CPU
	 * loads (in the scheduler's part).  Written only through
	 * task_swap_uvm (clone, exec, exit: under proc_lock); other tasks
	 * (the OOM killer) read it under proc_lock.
	 */
	struct uvm *uvm;
	/* Referenced (CLONE_FILES / CLONE_FS share them), NULL once exited;
	 * own: only the task replaces its pointer (exec unshares).  files is
	 * replaced under proc_lock (task_swap_files), so another task (/proc/
	 * <pid>/fd) may borrow it there (files_borrow); fs too (task_swap_fs:
	 * /proc/<pid>/cwd). */
	struct files_table *files;
	struct fs_struct *fs;
	struct task_io io; /* own (proc/task_io.h) */
	/* Its namespaces but mnt (proc/nsproxy.h: the rules there). */
	struct nsproxy *nsproxy;
	/* Referenced (CLONE_SIGHAND shares it) until task_free, so a zombie
	 * leader still answers for its group's dispositions. */
	struct sighand *sighand;
	/* vfork: the parent sleeps on its vfork_wait while vfork_pending;
	 * the child's vfork_parent points at it until the child execs or
	 * exits, or the parent, killed, stops waiting: both clear the two
	 * together under proc_lock, so neither outlives the other's task. */
	struct task *vfork_parent;
	bool vfork_pending;
	struct wait_queue vfork_wait;

	/* own: set_tid_address / CLONE_CHILD_CLEARTID: the user word zeroed
	 * (and its futex waiters woken) when this thread exits; 0 if none. */
	uint64_t clear_child_tid;
	/* own: set_robust_list's head (user address), walked when the thread
	 * exits or execs (proc/futex_exit.c); 0 if none, and for a new task.
	 * get_robust_list reads another task's under proc_lock. */
	uint64_t robust_list;
	/* The PI futex locks the kernel holds this task for the owner of
	 * (struct futex_pi_state, proc/futex_pi.c), and whether more may
	 * attach (FUTEX_STATE_*, proc/futex_internal.h): both under
	 * futex_pi_lock.  Emptied by its exit or exec. */
	struct list_head futex_pi_states;
	int futex_state;
	/* own: CLONE_CHILD_SETTID: where the child writes its tid as it
	 * first runs (sched_tail), then 0. */
	uint64_t set_child_tid;

	/* Nice value, -20..19, per thread as Linux (proc/sys_priority.c):
	 * written under proc_lock (setpriority; clone copies the parent's),
	 * read under it.  Kept by exec.  Its weight in the scheduler's fair
	 * class follows it (sched_set_fair). */
	int nice;
	/* Scheduling policy (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE: the
	 * scheduler's fair class; SCHED_FIFO, SCHED_RR: with the
	 * real-time priority in sched.rt_prio) and SCHED_RESET_ON_FORK, as
	 * nice: under proc_lock, copied by clone (proc/sys_sched_policy.c). */
	int policy;
	bool reset_on_fork;
	/* prctl state (proc/sys_prctl.c), own, copied by clone but for
	 * pdeath_signal, which a child starts without: the signal its
	 * process gets when the thread that forked it exits
	 * (PR_SET_PDEATHSIG; read under proc_lock by that exit); the timer
	 * slack in ns (rdtsc faults, tsc_sigsegv, are the scheduler's part). */
	int pdeath_signal;
	uint64_t timer_slack_ns, default_slack_ns;
	/* personality(2)'s persona (uapi/personality.h: STICKY_TIMEOUTS and
	 * ADDR_NO_RANDOMIZE act). */
	unsigned int personality;
	/* PR_SET_NO_NEW_PRIVS (proc/capability.c), own: set once, never
	 * cleared, inherited by clone, kept by execve (which then grants no
	 * privilege, proc/cred.c); /proc/<pid>/status reads it. */
	bool no_new_privs;
	/* In a buffer-cache write-back of make_room (block/bcache.c): a
	 * buffer it needs itself (a loop device over a disk) only frees
	 * clean ones, so the write-backs do not nest down the stack.  Its
	 * own task's. */
	bool bcache_evicting;
	/* A change of real uid found the new user past RLIMIT_NPROC: the
	 * next execve fails with EAGAIN if it still is (Linux's
	 * PF_NPROC_EXCEEDED: the set*id call itself succeeds, as daemons
	 * that ignore its result expect).  The task's own. */
	bool nproc_exceeded;

	struct signal_state sig; /* per thread; its rules are in proc/signal.h */
	unsigned strace_session; /* own: traced while it equals the trace session (sys/strace.c) */
	uint64_t utime_ticks, stime_ticks; /* counted by the tick of the CPU running it */
	/*
	 * SCM_RIGHTS sets this task is dropping (net/scm.c), or NULL: a drop
	 * that releases a socket queues that socket's sets here rather than
	 * recursing.  Only the task itself touches it.
	 */
	struct list_head *scm_dropping;
	/*
	 * System V semaphore undo list (ipc/sem.h), referenced: shared by
	 * CLONE_SYSVSEM (threads), none after a plain fork; the last task to
	 * drop it at exit applies it.  Own: only the task sets its pointer.
	 */
	struct sem_undo_list *sysvsem;
	/* The asynchronous-call engine this task submits to (async/async.h),
	 * made at its first punt, ended by its exit or exec; own. */
	struct async_ctx *async;
	/* Set by its exit's async_task_exit (and for the fallback thread):
	 * the task never gets another engine and issues no io_uring request
	 * (what its exit then closes may complete one whose chain must not
	 * go on with the task's files going, or on a new engine nobody would
	 * end); own. */
	bool async_gone;
	/* Set for an engine worker: the engine it serves, which outlives it
	 * (its owner waits for every worker before freeing it); constant.
	 * A worker never enters user mode (proc/sched_hooks.c). */
	struct async_ctx *async_serve;
	/* An io_uring request's fd redirection while the task runs its call
	 * (fd/fd_install.h, async/io_uring_req.c), else NULL; own. */
	struct fd_redirect *fd_redirect;
	/* Linux's override_creds: the creds an io_uring request with a
	 * personality runs with (async/io_uring_req.c), which cred_current()
	 * answers instead of the process's while it runs, else NULL.
	 * Lifetime: borrowed from the request, which holds a reference while
	 * it runs and clears this before that reference can go; own. */
	const struct cred *cred_override;
	/* io_uring rings registered by IORING_REGISTER_RING_FDS
	 * (async/io_uring_ringfd.c): IO_RINGFD_MAX files, each referenced,
	 * or NULL until the first; dropped at the task's exit and exec.
	 * Own: only the task reads or changes it. */
	struct file **uring_rings;
	/* While the task retries its woken io_uring requests in
	 * io_uring_enter or an SQ thread (async/io_uring.c, io_run_ready):
	 * the ring whose lock its retries hold, on its stack; else NULL.
	 * Own. */
	struct io_tw *uring_tw;
	/* Set for a kernel thread (proc/kthread.h): the function that is its
	 * whole life, called at its first step; constant. */
	void (*kthread_fn)(void);
	/* What kthread_fn works on (an io_uring SQ thread's ring); constant. */
	void *kthread_arg;
};

/* The calling thread's I/O counters (proc/task_io.h). */
static inline struct task_io *task_io_current(void)
{
	return &current()->io;
}

/* A signal for the task, or a change of its mask or of its stop state:
 * signal_work (proc/signal.h) may hold.  Setters set it after the state
 * it announces (release). */
#define TASK_WORK_SIGNAL (1UL << 0)
/* The system call rewrote its own frame (execve, rt_sigreturn): the
 * frame's rcx and r11 are no longer what SYSRET would load, so it
 * leaves by the exit that checks the frame. */
#define TASK_WORK_FRAME (1UL << 1)
/* A parked asynchronous request woke (async/async.h): the owner retries
 * it on its way back to user mode. */
#define TASK_WORK_ASYNC (1UL << 2)

static inline void task_work_set(struct task *t, unsigned long bits)
{
	__atomic_or_fetch(&t->work, bits, __ATOMIC_RELEASE);
}

/* True once t has exited (a zombie, or dead and about to be freed). */
static inline bool task_exited(const struct task *t)
{
	return t->state == TASK_ZOMBIE || t->state == TASK_DEAD;
}

_Static_assert(offsetof(struct task, sched) == 0, "task_sched() is a cast");

#endif
