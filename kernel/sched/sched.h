/*
 * The scheduler: three classes over one set of queues that every CPU
 * takes from.  Deadline tasks (SCHED_DEADLINE) run first, earliest
 * deadline first.  Real-time tasks (SCHED_FIFO, SCHED_RR; priorities
 * 1..99) run before every normal one, the highest priority first; a FIFO
 * task keeps its CPU until it blocks, yields or a higher one comes, an RR
 * task also until its quantum (sched_rr_timeslice_ms) is spent.  Normal
 * tasks (SCHED_OTHER, BATCH, IDLE) share what is left in proportion to
 * weights from their nice values (sched/fair.c).  Real-time tasks get at most sched_rt_runtime_us of each
 * sched_rt_period_us on a CPU while normal tasks wait there (Linux's RT
 * throttling).  The timer asks for a reschedule; the switch happens on
 * the way back to user mode or when a task sleeps.  The kernel itself is
 * not preempted.
 */
#ifndef SCHED_SCHED_H
#define SCHED_SCHED_H

#include <stdint.h>
#include "arch/x86_64/trapframe.h"
#include "sched/task_sched.h"

/*
 * What the process model does at the scheduler's moments, set once at
 * boot (sched_init) and constant after: the scheduler calls up into
 * proc/ only through these (proc/sched_hooks.c fills them).
 */
struct sched_hooks {
	/* CPU cpu's idle task (sched_init_cpu makes it current). */
	struct task *(*idle_task)(int cpu);
	/* Every tick, for the task it interrupted (user: in user mode):
	 * CPU-time accounting and the timers that count it. */
	void (*tick)(struct task *t, bool user);
	/* A TASK_DEAD task this CPU just switched away from: frees it. */
	void (*free_dead)(struct task *t);
	/* A new task's first step, before it first leaves the kernel. */
	void (*first_run)(struct task *t);
	/* Whether t, the current task, has a signal that should end a wait,
	 * or work to run before it sleeps on (run_task_work). */
	bool (*signal_pending)(struct task *t);
	/* Runs the current task's work that a wait may run itself, with no
	 * lock held: false if there was none (a signal ended the wait). */
	bool (*run_task_work)(void);
};
extern const struct sched_hooks *sched_hooks;

/* Sets the hooks, before the first sched_init_cpu. */
void sched_init(const struct sched_hooks *hooks);

/* This CPU's idle task, as current (kmain, then each AP at start-up). */
void sched_init_cpu(void);
/* Makes t runnable and queues it (t must not be queued already). */
void sched_make_runnable(struct task *t);
/* Gives up the CPU; returns when the current task is chosen again. */
void schedule(void);
void sched_yield(void);
/* Between two steps of a long loop in the kernel, which is not preempted:
 * gives up the CPU if the timer asked for a reschedule. */
void cond_resched(void);
/* Timer interrupt: accounting, preemption request. */
void sched_tick(struct trapframe *tf);
/* A new task's scheduler state: off the run queue, no sleep timer armed. */
void sched_task_init(struct task *t);
/* True if the current task has a signal that should end a wait (-EINTR;
 * also declared in wait.h, for its wait loop). */
bool signal_pending(void);
/* Sleeps until the monotonic clock reaches deadline_ns: 0 or -EINTR.
 * Task work that comes meanwhile runs and the sleep goes on. */
int sched_sleep_until(uint64_t deadline_ns);
/* For a wait that holds no lock and would fail with EINTR (not restart)
 * when signal_pending() says so: runs the task work that made it say so,
 * true if there was some (the wait goes on, as if nothing happened). */
bool sched_run_task_work(void);
/*
 * A wait with a deadline (poll's timeout): marks the current task sleeping
 * and arms its sleep timer (a ktimer), which wakes it once the clock
 * reaches deadline_ns.  Call again before each sleep of the wait loop
 * (after any prepare_to_wait); sched_disarm_deadline() ends it and makes
 * the task runnable.
 */
void sched_arm_deadline(uint64_t deadline_ns);
void sched_disarm_deadline(void);
/* The boot context becomes the idle task: never returns. */
__attribute__((noreturn)) void sched_idle_loop(void);
/* Wakes t if it sleeps (wait queues, timers, futexes). */
void sched_wake(struct task *t);
/* Sets the CPUs t may run on (a mask of online ones, bit n for CPU n);
 * t leaves a CPU outside it at once if it is the caller, else at that
 * CPU's next way out of the kernel.  -EBUSY for a deadline task if the
 * mask leaves a CPU out, then -EINVAL if it is empty. */
int sched_set_affinity(struct task *t, uint64_t mask);
/* The CPUs t may run on, as set (all bits until it is). */
uint64_t sched_affinity(struct task *t);
/* Wakes t for a signal or stop it must take: also interrupts its CPU if it
 * runs on another one. */
void sched_wake_signal(struct task *t);
/* Sets t's state under the scheduler lock (wait queues, exit). */
void sched_set_state(struct task *t, enum task_state state);
/* Puts t in the real-time class at priority prio (1..99; rr: SCHED_RR),
 * or back in the normal one (prio 0).  It moves in the queues at once; a
 * CPU that should now run something else reschedules. */
void sched_set_rt(struct task *t, int prio, bool rr);
/* t's normal policy (SCHED_OTHER, BATCH or IDLE; a real-time or deadline
 * one counts as SCHED_OTHER) and nice value (-20..19): its weight in the
 * fair class, now or once it is back in it. */
void sched_set_fair(struct task *t, int policy, int nice);
/*
 * Puts t in the deadline class (SCHED_DEADLINE): runtime ns of every
 * period, due deadline ns after each period starts (parameters checked by
 * the caller), its instance starting now.  -EPERM if t may not run on
 * every CPU or the RT tunables leave real-time work nothing; -EBUSY if
 * the class's bandwidth would exceed what they give it on all CPUs
 * (admission control); -ESRCH if t exited.  sched_set_rt takes it out
 * again; so does sched_exit.  The caller serialises it with t's exit
 * (proc_lock).
 */
int sched_set_dl(struct task *t, uint64_t runtime, uint64_t deadline, uint64_t period);
/* Whether t is a deadline task, with its parameters if it is. */
bool sched_dl_params(struct task *t, uint64_t *runtime, uint64_t *deadline, uint64_t *period);
/* Whether the admitted deadline bandwidth fits in cap per CPU (units of
 * rt_tunables.h): the RT tunables may change to it. */
bool sched_dl_admits(uint64_t cap);
/* t exits (before its state becomes TASK_ZOMBIE or TASK_DEAD, under the
 * lock that serialises sched_set_dl): it leaves its class (its deadline
 * bandwidth is freed) and no timer of the scheduler's refers to it once
 * this returns. */
void sched_exit(struct task *t);
/* t's real-time priority: 0 for a normal task. */
int sched_rt_prio(struct task *t);
/* The round-robin quantum of SCHED_RR, in nanoseconds. */
uint64_t sched_rr_quantum_ns(void);
/* Loads t's user FS and GS bases into this CPU (switch, exec, arch_prctl). */
void user_bases_load(struct task *t);
/* Makes rdtsc in user mode fault on this CPU (CR4.TSD) if t asked for it
 * with PR_SET_TSC, or work if not: at each switch and at the prctl. */
void tsc_mode_load(struct task *t);

#endif
