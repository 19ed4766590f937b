/*
 * Kernel threads (kthread.h): a task with a kernel function as its first
 * and only step (task->kthread_fn, called by task_first_step).  Unlike an
 * engine worker (async/async_worker.c) it borrows nothing from a process.
 */
#include "proc/kthread.h"
#include "async/async.h"
#include "mm/writeback.h"
#include "proc/proc.h"
#include "proc/task.h"
#include "sched/sched.h"

struct task *kthread_start(const char *name, __attribute__((noreturn)) void (*fn)(void))
{
	struct task *t = task_alloc(name);

	if (!t)
		return NULL;
	t->sig.blocked = ~0ULL; /* and no group: nothing sends it one */
	t->kthread_fn = fn;
	sched_make_runnable(t);
	return t;
}

void kthreads_boot(void)
{
	writeback_start();
	async_fallback_start();
}
