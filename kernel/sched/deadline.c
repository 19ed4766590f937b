/*
 * The deadline class: SCHED_DEADLINE tasks, earliest absolute deadline
 * first over all CPUs (global EDF), each a constant bandwidth server
 * (CBS) throttled when its runtime is spent and replenished by its
 * dl_timer at its next period, with Linux's admission control
 * (docs/processes.md).  Everything here but the timer's callback runs
 * under sched_lock (sched_class.h).
 */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "sched/rt_tunables.h"
#include "sched/sched_class.h"
#include <uapi/errno.h>

/* The deadline tasks that may run (run_link): earliest absolute deadline
 * first (EDF), in order of arrival among equals.  A throttled one is on
 * no queue until its replenishment. */
struct list_head dl_queue = LIST_HEAD_INIT(dl_queue);
/* The bandwidth admitted to the deadline class (sched_lock): the sum of
 * every deadline task's dl_bw, Linux's root domain total_bw.  All CPUs
 * are one root domain. */
static uint64_t dl_total_bw;

/* Caller holds sched_lock: deadline task t goes behind every task due no
 * later than it. */
void dl_enqueue(struct task_sched *t)
{
	struct list_head *before = &dl_queue;
	struct task_sched *q;

	list_for_each_entry(q, &dl_queue, run_link)
	{
		if (q->dl_abs > t->dl_abs) {
			before = &q->run_link;
			break;
		}
	}
	list_add_tail(&t->run_link, before);
}

/*
 * Deadline task t's next instance (sched_lock held), as Linux's
 * replenish_dl_entity: a period later and a runtime more for each period
 * its overrun spans; one that fell behind now starts afresh, due a
 * relative deadline from now.
 */
static void dl_replenish(struct task_sched *t, uint64_t now)
{
	if (t->dl_left <= 0) {
		uint64_t n = (uint64_t)-t->dl_left / t->dl_runtime + 1;
		t->dl_abs += n * t->dl_period;
		t->dl_left += (int64_t)(n * t->dl_runtime);
	}
	if (t->dl_abs < now) {
		t->dl_abs = now + t->dl_deadline;
		t->dl_left = (int64_t)t->dl_runtime;
	}
}

/*
 * Deadline task t waking at now (sched_lock held): Linux's CBS wake-up
 * rule (update_dl_entity).  If its deadline passed, or the runtime left
 * would use more than its bandwidth before that deadline, it starts a
 * fresh instance.
 */
void dl_wakeup(struct task_sched *t, uint64_t now)
{
	if (t->dl_abs <= now || (unsigned __int128)(uint64_t)t->dl_left * t->dl_deadline >
				    (unsigned __int128)(t->dl_abs - now) * t->dl_runtime) {
		t->dl_abs = now + t->dl_deadline;
		t->dl_left = (int64_t)t->dl_runtime;
	}
}

/*
 * Deadline task t has no runtime left (spent on the tick, or given up by
 * sched_yield; sched_lock held): throttled until its next period begins,
 * when dl_timer replenishes it; at once if that time has come.  True if
 * it is throttled.
 */
bool dl_throttle(struct task_sched *t)
{
	uint64_t now = clock_monotonic_ns(), next = t->dl_abs - t->dl_deadline + t->dl_period;

	if (next <= now) {
		dl_replenish(t, now);
		return false;
	}
	t->dl_throttled = true;
	ktimer_arm(&t->dl_timer, next);
	return true;
}

/* t leaves the deadline class, if in it (sched_lock held): its bandwidth
 * is free again.  A replenishment timer still running finds it not dl. */
void dl_leave(struct task_sched *t)
{
	if (!t->dl)
		return;
	dl_total_bw -= t->dl_bw;
	t->dl = t->dl_throttled = false;
	t->dl_bw = 0;
	ktimer_cancel(&t->dl_timer);
}

/* A share of a CPU, runtime of every period, in units of 1 << DL_BW_SHIFT
 * for the whole CPU (Linux's to_ratio).  runtime <= period <= INT32_MAX
 * us < 2^41 ns (sched_deadline_period_max_us): the shift cannot overflow. */
static uint64_t dl_ratio(uint64_t runtime, uint64_t period)
{
	return (runtime << DL_BW_SHIFT) / period;
}

/* Whether a deadline class of bandwidth total fits in cap of every CPU
 * that takes tasks (Linux's __dl_overflow, negated). */
static bool dl_fits(uint64_t total, uint64_t cap)
{
	uint64_t cpus = smp_sched_on ? (uint64_t)smp_cpus_online : 1;

	return cap == DL_BW_UNLIMITED || total <= cap * cpus;
}

int sched_set_dl(struct task *task, uint64_t runtime, uint64_t deadline, uint64_t period)
{
	struct task_sched *t = task_sched(task);
	uint64_t bw = dl_ratio(runtime, period), cpus = smp_task_cpus();
	uint64_t cap = rt_bandwidth_lock(); /* no write of the tunables meanwhile */
	int err = 0;

	spin_lock(&sched_lock);
	/* Linux's __sched_setscheduler and __dl_overflow: the task must be
	 * free to run on every CPU of its root domain, and the class fit in
	 * what the RT tunables give real-time work on them all. */
	if (t->state == TASK_ZOMBIE || t->state == TASK_DEAD)
		err = -ESRCH; /* past sched_exit: nothing would free the bandwidth */
	else if ((t->cpus_allowed & cpus) != cpus || cap == 0)
		err = -EPERM;
	else if (!dl_fits(dl_total_bw - t->dl_bw + bw, cap))
		err = -EBUSY;
	if (!err) {
		bool was_dl = t->dl;
		dl_total_bw += bw - t->dl_bw;
		t->dl = true;
		t->dl_bw = bw;
		t->dl_runtime = runtime, t->dl_deadline = deadline, t->dl_period = period;
		t->dl_throttled = false;
		ktimer_cancel(&t->dl_timer);
		t->dl_abs = clock_monotonic_ns() + deadline;
		t->dl_left = (int64_t)runtime;
		t->rt_prio = 0;
		t->rt_rr = false;
		sched_requeue(t, was_dl);
	}
	spin_unlock(&sched_lock);
	rt_bandwidth_unlock();
	return err;
}

bool sched_dl_params(struct task *task, uint64_t *runtime, uint64_t *deadline, uint64_t *period)
{
	const struct task_sched *t = task_sched(task);

	spin_lock(&sched_lock);
	bool dl = t->dl;
	*runtime = t->dl_runtime, *deadline = t->dl_deadline, *period = t->dl_period;
	spin_unlock(&sched_lock);
	return dl;
}

bool sched_dl_admits(uint64_t cap)
{
	spin_lock(&sched_lock);
	bool fits = dl_fits(dl_total_bw, cap);
	spin_unlock(&sched_lock);
	return fits;
}

/* A throttled deadline task's next period began: it is replenished and
 * queued again if runnable.  One that left the class (dl_leave, after
 * which sched_exit waits for this callback) is left alone. */
static void dl_timer_fired(struct ktimer *k)
{
	struct task_sched *t = container_of(k, struct task_sched, dl_timer);

	spin_lock(&sched_lock);
	if (t->dl && t->dl_throttled) {
		t->dl_throttled = false;
		dl_replenish(t, clock_monotonic_ns());
		if (t->state == TASK_RUNNABLE && !t->on_cpu) {
			sched_enqueue(t);
			sched_preempt_for(t);
		}
	}
	spin_unlock(&sched_lock);
}

void dl_task_init(struct task_sched *t)
{
	ktimer_init(&t->dl_timer, dl_timer_fired);
}
