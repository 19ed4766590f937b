/*
 * Kernel threads: tasks that do the kernel's own work (the flusher,
 * mm/writeback.c) and never enter user mode.  docs/processes.md.
 */
#ifndef PROC_KTHREAD_H
#define PROC_KTHREAD_H

struct task;

/*
 * A new kernel thread running fn, runnable: NULL when no task can be
 * made.  It has no thread group (task_find and /proc pass it by, no
 * signal reaches it, its credentials read as init's: cred_current), the
 * kernel's address space, no files and no fs context.  fn never returns:
 * a kernel thread lives until the machine stops.
 */
struct task *kthread_start(const char *name, __attribute__((noreturn)) void (*fn)(void));
/* The kernel's own threads, started once at boot, right after init took
 * pid 1 (proc_start_init) and before its counters are read. */
void kthreads_boot(void);

#endif
