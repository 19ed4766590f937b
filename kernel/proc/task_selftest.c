/*
 * Self-test of the zombie-stack handshake (task.c): the reaper's wait for
 * on_cpu ends only once the task's CPU cleared it, and it waits with
 * interrupts on.  A timer stands for the other CPU's finish_switch: were
 * interrupts off, it would never fire and the boot would hang.
 */
#include "arch/x86_64/timer.h"
#include "lib/ktest.h"
#include "sched/ktimer.h"
#include "proc/proc.h"
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
