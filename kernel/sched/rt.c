/*
 * The real-time class: SCHED_FIFO and SCHED_RR tasks, priorities 1..99,
 * the highest first, in order of arrival among equals; RR's quantum; and
 * RT throttling, each CPU's real-time share of every period
 * (docs/processes.md).  Everything here but the sched_* calls runs under
 * sched_lock (sched_class.h).
 */
#include "arch/x86_64/timer.h"
#include "sched/rt_tunables.h"
#include "sched/sched_class.h"

/* The real-time tasks (run_link): highest rt_prio first, in order of
 * arrival among equals. */
struct list_head rt_queue = LIST_HEAD_INIT(rt_queue);
/* Each CPU's RT throttling: ticks into the current period, and ticks of
 * it that real-time tasks ran. */
static struct {
	int elapsed, used;
} rt_band[MAX_CPUS];

void rt_enqueue(struct task_sched *t, bool head)
{
	struct list_head *before = &rt_queue;
	struct task_sched *q;

	list_for_each_entry(q, &rt_queue, run_link)
	{
		if (q->rt_prio < t->rt_prio || (head && q->rt_prio == t->rt_prio)) {
			before = &q->run_link;
			break;
		}
	}
	list_add_tail(&t->run_link, before);
}

bool rt_throttled(const struct cpu *c)
{
	int runtime = rt_runtime_ticks();

	return runtime >= 0 && rt_band[c->id].used >= runtime;
}

void rt_period_tick(const struct cpu *c)
{
	if (++rt_band[c->id].elapsed >= rt_period_ticks())
		rt_band[c->id].elapsed = rt_band[c->id].used = 0;
}

bool rt_tick(const struct cpu *c, struct task_sched *t)
{
	bool ends = false;

	rt_band[c->id].used++;
	if (t->rt_rr && --t->rr_left <= 0) {
		t->rr_left = rr_quantum_ticks();
		t->rt_tail = ends = true;
	}
	return ends || rt_throttled(c);
}

void sched_set_rt(struct task *task, int prio, bool rr)
{
	struct task_sched *t = task_sched(task);

	spin_lock(&sched_lock);
	bool lowered = prio < t->rt_prio || t->dl, was_fair = fair_task(t);
	dl_leave(t);
	t->rt_prio = prio;
	t->rt_rr = rr;
	t->rr_left = rr_quantum_ticks();
	if (!was_fair && fair_task(t))
		fair_place(t, false); /* back from another class */
	sched_requeue(t, lowered);
	spin_unlock(&sched_lock);
}

int sched_rt_prio(struct task *t)
{
	spin_lock(&sched_lock);
	int prio = task_sched(t)->rt_prio;
	spin_unlock(&sched_lock);
	return prio;
}

uint64_t sched_rr_quantum_ns(void)
{
	return (uint64_t)rr_quantum_ticks() * TICK_NS;
}
