/*
 * Self-tests of a task's end: the zombie-stack handshake (task.c), whose
 * reaper's wait for on_cpu ends only once the task's CPU cleared it, and
 * waits with interrupts on (a timer stands for the other CPU's
 * finish_switch: were interrupts off, it would never fire and the boot
 * would hang); and sched_exit, after which no timer refers to the task.
 */
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
