/*
 * Process life cycle: creation (task_alloc, fork), the first process, and
 * lookup.  Exit and wait are in exit.h.
 */
#ifndef PROC_PROC_H
#define PROC_PROC_H

#include "lib/spinlock.h"
#include "proc/task.h"

extern struct spinlock proc_lock;

/* A task with a pid, a mapped kernel stack and an empty trapframe; not yet
 * runnable and not linked to a parent.  NULL if out of memory or tasks. */
struct task *task_alloc(const char *name);
/* Ends a task that never ran, was reaped or died: waits until no CPU runs
 * on its stack, frees the stack and its pid, and drops the task's own
 * reference (the struct, its group and handlers go with the last one).
 * Its other resources were released before (exit) or never taken.
 * Interrupts on, no lock held. */
void task_free(struct task *t);
/* Returns once no CPU runs on t's stack (on_cpu clear): task_free's wait. */
void task_wait_switched_out(struct task *t);
/* Unmaps the stacks task_free kept mapped for reuse (the leak check's exact count). */
void task_stack_cache_drain(void);
/* The deepest use of a kernel stack so far, in bytes, over the stacks
 * unmapped so far (Linux's DEBUG_STACK_USAGE; the drain above unmaps the
 * cached ones). */
size_t task_stack_deepest(void);
/* The task (thread) with pid, or NULL (also while clone is still building
 * it), with a reference the caller drops with task_put: the struct stays,
 * though the task may exit and be reaped meanwhile. */
struct task *task_find(int pid);
/* The same for the task numbered nr in the caller's pid namespace
 * (proc/pid_ns.h): what a pid from user space names. */
struct task *task_find_vnr(int nr);
/* task_find_vnr with 0 naming the caller (which gets a reference too). */
struct task *task_find_or_self(int nr);
void task_get(struct task *t);
/* Drops a reference (NULL: none); the last frees the struct (proc_lock
 * not held). */
void task_put(struct task *t);
/* task_find without the reference, for proc_lock's holders only: the
 * pointer is good until they drop the lock (the reaper unlists a task
 * under it before task_free). */
struct task *task_find_locked(int pid);
struct task *task_find_locked_vnr(int nr);
/* Gives t the user memory u (NULL: none, vm_kernel() loaded) and returns
 * the uvm it had, its reference now the caller's (under proc_lock, so a
 * task reading t->vm under it sees a live space). */
struct uvm *task_swap_uvm(struct task *t, struct uvm *u);
/* The same for t's files table (clone, exec, unshare, exit), so that
 * /proc/<pid>/fd may take a reference on it under proc_lock. */
struct files_table *task_swap_files(struct task *t, struct files_table *files);
/* The same for t's fs context (unshare, exit), for /proc/<pid>/cwd. */
struct fs_struct *task_swap_fs(struct task *t, struct fs_struct *fs);
/* Gives t (the caller) a table of its own if it shares one: 0, -ENOMEM. */
int task_unshare_files(struct task *t);
int task_count(void);
/* /proc/sys/kernel/pid_max now: pids are below it. */
int task_pid_max(void);
/* clone3's set_tid: t (not yet visible) takes pid instead of the one
 * task_alloc gave it: 0, or -EEXIST if another task has it. */
int task_set_pid(struct task *t, int pid);
/* The pid given out last (a snapshot: /proc/loadavg). */
int last_pid(void);

/* Reads the wall clock once for CLOCK_REALTIME (boot). */
void proc_time_init(void);
/* How far CLOCK_REALTIME runs ahead of CLOCK_MONOTONIC, in ns: fixed, since
 * nothing sets the clock (timerfd's absolute real-time deadlines). */
int64_t clock_realtime_offset_ns(void);
/* The offset from the monotonic clock to clk's scale, as the caller
 * sees it (the real time's; its time namespace's for CLOCK_MONOTONIC and
 * CLOCK_BOOTTIME), for absolute sleeps and timers: 0 and *off, or
 * -EOPNOTSUPP for the clocks without timers on Linux and the alarm
 * clocks (no RTC alarm here), -EINVAL for others (proc/sys_proc.c). */
int clock_wall_offset(int clk, int64_t *off);

/* Calls fn on every task (thread) until it returns false; tasks clone is
 * still building are skipped (proc_lock held: fn must not sleep or take
 * proc_lock).  _locked: the caller holds proc_lock. */
void task_for_each(bool (*fn)(struct task *t, void *arg), void *arg);
void task_for_each_locked(bool (*fn)(struct task *t, void *arg), void *arg);

/* A vfork child execs or exits: its parent stops waiting (clone.c). */
void vfork_done(struct task *child);
/* clone: the prctl state a child thread or process inherits
 * (proc/sys_prctl.c). */
void prctl_clone(struct task *child, const struct task *parent);
/* A CLONE_CHILD_SETTID child's first step: its tid to its memory. */
void clone_child_start(struct task *t);
/* clone: the child's policy and nice from its parent thread's, as
 * SCHED_RESET_ON_FORK asks (proc/sys_sched_policy.c; proc_lock held):
 * -EAGAIN for a deadline task without it. */
int sched_policy_clone_locked(struct task *child, struct task *parent);
/* What the scheduler calls the process model for (proc/sched_hooks.c),
 * handed to sched_init at boot. */
extern const struct sched_hooks task_sched_hooks;

/* Linux's is_nice_reduction: whether t's RLIMIT_NICE allows nice value
 * nice without CAP_SYS_NICE (sys_priority.c; proc_lock or t referenced). */
bool nice_within_rlimit(const struct task *t, int nice);

/* The caller's process group (pgrp.c). */
int current_pgid(void);

/* Starts pid 1 from path with the console as fds 0, 1 and 2. */
void proc_start_init(const char *path, const char *arg);

#endif
