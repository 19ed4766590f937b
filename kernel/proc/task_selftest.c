/*
 * Self-tests of a task's end: the zombie-stack handshake (task.c), whose
 * reaper's wait for on_cpu ends only once the task's CPU cleared it, and
 * waits with interrupts on (a timer stands for the other CPU's
 * finish_switch: were interrupts off, it would never fire and the boot
 * would hang); and sched_exit, after which no timer refers to the task,
 * even one whose callback the tick is running while another CPU exits.
 */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "lib/ktest.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
#include "sched/sched.h"
#include "selftest.h"

#define SWITCH_AFTER_NS (20 * 1000 * 1000)

static struct task zombie; /* only its on_cpu is used */

static void switched_away(struct ktimer *k)
{
	(void)k;
	__atomic_store_n(&zombie.on_cpu, 0, __ATOMIC_RELEASE); /* as finish_switch */
}

void task_handshake_selftest(void)
{
	static struct ktimer k;
	uint64_t t0 = clock_monotonic_ns(), waited;

	zombie.on_cpu = 1;
	ktimer_init(&k, switched_away);
	ktimer_arm(&k, t0 + SWITCH_AFTER_NS);
	task_wait_switched_out(&zombie);
	waited = clock_monotonic_ns() - t0;
	KTEST_OK(waited >= SWITCH_AFTER_NS && !zombie.on_cpu,
		 "task: the reaper waits for on_cpu to clear (%lu ms), interrupts on",
		 waited / 1000000);
}

/* sched_exit leaves neither of the task's timers armed, nor its callback
 * running (ktimer_cancel_sync): the task may be freed right after.  Its
 * sleep timer was once left to a callback the tick had taken, which then
 * ran on the freed task. */
void task_exit_timers_selftest(void)
{
	static struct task t; /* never runs: its timers only */
	struct ktimer *sleep = &task_sched(&t)->sleep_timer;

	sched_task_init(&t);
	ktimer_arm(sleep, clock_monotonic_ns() + 1000ULL * 1000 * 1000 * 1000);
	sched_exit(&t);
	KTEST_OK(!ktimer_expires(sleep), "task: sched_exit leaves its sleep timer disarmed");
	ktimer_cancel_sync(sleep); /* if the check failed: never fire into t */
}

/*
 * The race sched_exit must win, forced: CPU 0's tick has taken the
 * exiting task's sleep timer and runs its callback (held for a while),
 * while an AP ends the task.  sched_exit must not return before the
 * callback has, or the task would be freed under it (an engine worker,
 * whose end skipped sched_exit, was: the tick jumped to the poison of a
 * freed task, 2026-12-07).  An AP slow to come only shortens the overlap.
 */
#define HOLD_NS (20 * 1000 * 1000)

static struct task racer; /* never runs: its sleep timer only */
static int in_callback, exiting, callback_done, exit_saw_done, ap_done;

static void held_callback(struct ktimer *k)
{
	(void)k;
	__atomic_store_n(&in_callback, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&exiting, __ATOMIC_ACQUIRE))
		cpu_relax();
	for (uint64_t t0 = clock_monotonic_ns(); clock_monotonic_ns() - t0 < HOLD_NS;)
		cpu_relax(); /* the AP is in sched_exit meanwhile */
	__atomic_store_n(&callback_done, 1, __ATOMIC_RELEASE);
}

static void exit_on_ap(void)
{
	while (!__atomic_load_n(&in_callback, __ATOMIC_ACQUIRE))
		cpu_relax();
	__atomic_store_n(&exiting, 1, __ATOMIC_RELEASE);
	sched_exit(&racer);
	exit_saw_done = __atomic_load_n(&callback_done, __ATOMIC_ACQUIRE);
	__atomic_store_n(&ap_done, 1, __ATOMIC_RELEASE);
}

void task_exit_running_timer_selftest(void)
{
	struct ktimer *sleep = &task_sched(&racer)->sleep_timer;

	if (smp_cpus_online < 2)
		return;
	sched_task_init(&racer);
	ktimer_init(sleep, held_callback); /* sleep_timer_fired would wake it */
	smp_park_run(1, exit_on_ap);
	ktimer_arm(sleep, clock_monotonic_ns()); /* the next tick of CPU 0 runs it */
	while (!__atomic_load_n(&ap_done, __ATOMIC_ACQUIRE))
		cpu_relax();
	KTEST_OK(exit_saw_done,
		 "task: sched_exit on CPU 1 waits for the sleep timer's callback on CPU 0");
}
