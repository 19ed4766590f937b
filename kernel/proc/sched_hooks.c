/*
 * The process model's side of the scheduler: the idle tasks, what the
 * scheduler calls up for (sched.h, struct sched_hooks: the tick's CPU-time
 * accounting and timers, freeing a dead task, a new task's first step,
 * whether a signal ends a wait), and the way back to user mode, where a
 * reschedule comes before the signals.  sched/ stays below proc/: it
 * reaches these only through the hooks.
 */
#include "arch/x86_64/percpu.h"
#include "async/async.h"
#include "lib/printk.h"
#include "proc/cpu_timer.h"
#include "proc/group.h"
#include "proc/itimer.h"
#include "proc/proc.h"
#include "proc/signal.h"
#include "sched/grace.h"
#include "sched/sched.h"

/* One per CPU, made current by sched_init_cpu; never freed, never on the
 * task list, no group: the tick's timers pass them by. */
static struct task idle_tasks[MAX_CPUS];

static struct task *idle_task(int cpu)
{
	return &idle_tasks[cpu];
}

/* Charges the tick to t (the CPU's idle task too), then runs the timers
 * that count CPU time. */
static void task_tick(struct task *t, bool user)
{
	if (user)
		t->utime_ticks++;
	else
		t->stime_ticks++;
	itimer_tick(t, user);
	cpu_timers_tick(t);
}

static void task_first_step(struct task *t)
{
	if (t->async_serve)
		async_worker_main(); /* an engine worker: never leaves the kernel */
	if (t->kthread_fn) {
		t->kthread_fn();
		panic("kernel thread %s returned", t->name);
	}
	if (t->set_child_tid)
		clone_child_start(t);
}

/*
 * A wait ends for a signal, and for woken io_uring requests of the task
 * (task work: Linux's TIF_NOTIFY_SIGNAL): their wake-up woke it
 * (async_wake).  A wait that restarts (ERESTARTSYS and the like) returns,
 * its request is retried on the way out and the call restarts, as no
 * handler ran (return_to_user_work); one that would fail with EINTR runs
 * it where it is and goes on (sched_run_task_work).  So a request armed
 * by a thread that then blocks elsewhere completes while it blocks.
 */
static bool wait_interrupted(struct task *t)
{
	return signal_is_pending(t) || async_ready_pending();
}

static bool run_task_work(void)
{
	if (!async_ready_pending())
		return false;
	async_run_ready();
	return true;
}

const struct sched_hooks task_sched_hooks = {
    .idle_task = idle_task,
    .tick = task_tick,
    .free_dead = task_free,
    .first_run = task_first_step,
    .signal_pending = wait_interrupted,
    .run_task_work = run_task_work,
};

void return_to_user_work(struct trapframe *tf)
{
	grace_quiescent(); /* leaving for user mode: no lock-free read spans it */
	if (this_cpu()->need_resched)
		schedule();
	if (async_ready_pending())
		async_run_ready(); /* woken io_uring requests: their CQEs first */
	if (task_signal_work(current(), tf))
		signal_deliver(tf);
}
