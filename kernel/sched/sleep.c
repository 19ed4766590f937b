/*
 * A task's timed sleeps (sched.h): its sleep timer armed before a wait's
 * sleep and disarmed after it (sched_arm_deadline), sched_sleep_until,
 * and what a sleeping wait asks the process layer through the hooks:
 * whether a signal is pending, and its task work run.  The timer itself
 * is set up with the task (sched.c, sched_task_init).
 */
#include "arch/x86_64/timer.h"
#include "lib/lockdep.h"
#include "sched/sched.h"
#include "sched/task_sched.h"
#include <uapi/errno.h>

void sched_arm_deadline(uint64_t deadline_ns)
{
	struct task *t = current();

	/* Sleeping first: a timer that fires before schedule() is not lost. */
	sched_set_state(t, TASK_SLEEPING);
	ktimer_arm(&task_sched(t)->sleep_timer, deadline_ns);
}

void sched_disarm_deadline(void)
{
	struct task *t = current();

	ktimer_cancel(&task_sched(t)->sleep_timer);
	sched_set_state(t, TASK_RUNNABLE);
}

bool signal_pending(void)
{
	return sched_hooks->signal_pending(current());
}

bool sched_run_task_work(void)
{
	return sched_hooks->run_task_work();
}

int sched_sleep_until(uint64_t deadline_ns)
{
	might_sleep();
	for (;;) {
		sched_arm_deadline(deadline_ns);
		if (clock_monotonic_ns() >= deadline_ns)
			break;
		if (signal_pending()) {
			sched_disarm_deadline(); /* awake: the task work may sleep */
			if (sched_run_task_work())
				continue;
			return -EINTR;
		}
		schedule();
	}
	sched_disarm_deadline();
	return 0;
}
