/*
 * The fair class: the normal policies, SCHED_OTHER, SCHED_BATCH and
 * SCHED_IDLE, sharing what the deadline and real-time classes leave of
 * the CPUs in proportion to their weights, as Linux's CFS does.
 *
 * A task's weight comes from its nice value (Linux's table: nice 0 is
 * 1024, each step about 1.25 times more or less); SCHED_IDLE weighs 3.
 * Its virtual runtime grows by the time it ran times 1024 / weight, so a
 * heavier task's grows slower; the CPU runs the waiting task with the
 * smallest, so over time each task's share is its weight over the sum of
 * the weights that compete.  The tick charges the running task a tick,
 * as it charges its CPU time (proc/sched_hooks.c), and hands the CPU on
 * once someone waiting is behind it: the shares the class gives are the
 * shares of CPU time that the CPU clocks, getrusage and /proc report.
 * The switch itself reads no clock.  As with that accounting, a task that
 * always sleeps before the tick comes is charged nothing; what it can
 * take is bounded by where it comes back (below).
 *
 * The queue is a red-black tree ordered by virtual runtime (equals in
 * order of arrival): queueing and taking a task out cost O(log n); the
 * leftmost task is kept at hand for the pick and the tick.  One tree for
 * every CPU, as the other classes' lists: a CPU takes the leftmost task
 * it may run, so a task bound elsewhere is passed over (a walk in order,
 * past the tasks of other CPUs only).
 *
 * min_vruntime follows the smallest virtual runtime of the queue and of
 * the tasks the CPUs run, at each tick and pick, never going back.  A
 * task that waited (slept, or ran in another class) comes back at no less than
 * min_vruntime - FAIR_SLEEPER_CREDIT_NS, so a sleeper cannot bank credit
 * and then hold a CPU for as long as it slept; a new task starts a tick
 * of its own weight behind min_vruntime, so a forking loop cannot starve
 * the tasks already there.  A woken SCHED_OTHER task preempts a running
 * fair task that is more than FAIR_WAKEUP_GRAN_NS (a tick, of the woken
 * task's weight) ahead of it, as a nice 19 one soon is, and any running
 * SCHED_IDLE task, on this CPU or, by a reschedule IPI, on another one
 * (sched.c); SCHED_BATCH and SCHED_IDLE tasks never preempt on waking.
 *
 * Everything here runs under sched_lock (sched_class.h).
 */
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "sched/sched_class.h"
#include <uapi/sched.h>

#define NICE_0_WEIGHT	       1024
#define IDLE_POLICY_WEIGHT     3	     /* SCHED_IDLE, as Linux's WEIGHT_IDLEPRIO */
#define FAIR_SLEEPER_CREDIT_NS (TICK_NS / 2) /* Linux: half its 6 ms latency */
/* A woken task preempts only a task a tick ahead of it: the charges come
 * by the tick, so a sleeper is seldom charged and would otherwise preempt
 * at every wake-up (a pipe's reader, its writer at each write). */
#define FAIR_WAKEUP_GRAN_NS TICK_NS

/* Linux's sched_prio_to_weight: the weight of nice -20..19. */
static const uint32_t nice_weight[40] = {
    88761, 71755, 56483, 46273, 36291, /* nice -20..-16 */
    29154, 23254, 18705, 14949, 11916, /* nice -15..-11 */
    9548,  7620,  6100,	 4904,	3906,  /* nice -10..-6 */
    3121,  2501,  1991,	 1586,	1277,  /* nice -5..-1 */
    1024,  820,	  655,	 526,	423,   /* nice 0..4 */
    335,   272,	  215,	 172,	137,   /* nice 5..9 */
    110,   87,	  70,	 56,	45,    /* nice 10..14 */
    36,	   29,	  23,	 18,	15,    /* nice 15..19 */
};

/* The waiting fair tasks (task_sched.fair_node), by vruntime, and the
 * leftmost of them (NULL: none), kept so that a pick and a tick do not
 * walk down the tree. */
static struct rb_root fair_tree;
static struct task_sched *leftmost;
/* The floor where waiting tasks come back (above): never decreases. */
static uint64_t min_vruntime;

void fair_set(struct task_sched *t, int policy, int nice)
{
	t->fair_policy =
	    policy == SCHED_BATCH || policy == SCHED_IDLE ? (uint8_t)policy : SCHED_OTHER;
	t->weight = policy == SCHED_IDLE ? IDLE_POLICY_WEIGHT : nice_weight[nice + 20];
}

void fair_task_init(struct task_sched *t)
{
	fair_set(t, SCHED_OTHER, 0);
}

bool fair_task(const struct task_sched *t)
{
	return !t->is_idle && !t->rt_prio && !t->dl;
}

/* Whether a's virtual runtime is below b's (wrap-safe). */
static bool vruntime_before(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b) < 0;
}

/* ns of t's running, in virtual time. */
static uint64_t to_virtual(const struct task_sched *t, uint64_t ns)
{
	return t->weight == NICE_0_WEIGHT ? ns : ns * NICE_0_WEIGHT / t->weight;
}

void fair_enqueue(struct task_sched *t)
{
	struct rb_node **link = &fair_tree.node, *parent = NULL;
	bool left = true;

	while (*link) {
		parent = *link;
		if (vruntime_before(t->vruntime,
				    rb_entry(parent, struct task_sched, fair_node)->vruntime)) {
			link = &parent->left;
		} else {
			link = &parent->right;
			left = false;
		}
	}
	rb_insert(&fair_tree, &t->fair_node, parent, link);
	t->fair_queued = true;
	if (left)
		leftmost = t;
}

void fair_dequeue(struct task_sched *t)
{
	t->fair_queued = false;
	if (fair_tree.node == &t->fair_node && !t->fair_node.left && !t->fair_node.right) {
		fair_tree.node = NULL; /* it was alone: the common case, made cheap */
		leftmost = NULL;
		return;
	}
	if (t == leftmost) {
		struct rb_node *n = rb_next(&t->fair_node);
		leftmost = n ? rb_entry(n, struct task_sched, fair_node) : NULL;
	}
	rb_erase(&fair_tree, &t->fair_node);
}

bool fair_empty(void)
{
	return !__atomic_load_n(&fair_tree.node, __ATOMIC_RELAXED);
}

/*
 * min_vruntime moves up to the least virtual runtime of the waiting
 * tasks, of curr (the task c runs at its tick; NULL at a pick, which
 * takes the leftmost task or one after it) and of the fair tasks the
 * other CPUs run.  Those count too: the queue is every CPU's, so a task
 * woken or new here may wait for any of them, and placed above a
 * CPU-bound one it waits until that one catches up, at its weight's pace.
 */
static void update_min_vruntime(const struct cpu *c, const struct task_sched *curr)
{
	const struct task_sched *least = leftmost;

	if (curr && (!least || vruntime_before(curr->vruntime, least->vruntime)))
		least = curr;
	for (uint64_t cpus = smp_task_cpus() & ~(1ull << c->id); cpus; cpus &= cpus - 1) {
		const struct task_sched *t = task_sched(cpu_get(__builtin_ctzll(cpus))->current);
		if (fair_task(t) && (!least || vruntime_before(t->vruntime, least->vruntime)))
			least = t;
	}
	if (least && vruntime_before(min_vruntime, least->vruntime))
		min_vruntime = least->vruntime;
}

struct task_sched *fair_pick(const struct cpu *c, const struct task_sched *skip)
{
	struct task_sched *skipped = NULL;

	if (!leftmost)
		return NULL;
	/* Only a leftmost task ahead of it may move it: a woken task that
	 * slept before any tick charged it seldom is. */
	if (vruntime_before(min_vruntime, leftmost->vruntime))
		update_min_vruntime(c, NULL);
	for (struct rb_node *n = &leftmost->fair_node; n; n = rb_next(n)) {
		struct task_sched *t = rb_entry(n, struct task_sched, fair_node);
		if (!(t->cpus_allowed & (1ull << c->id)))
			continue;
		if (t != skip)
			return t;
		skipped = t; /* it yielded: anyone else first */
	}
	return skipped;
}

bool fair_tick(struct task_sched *curr)
{
	curr->vruntime += to_virtual(curr, TICK_NS);
	update_min_vruntime(this_cpu(), curr);
	return leftmost && vruntime_before(leftmost->vruntime, curr->vruntime);
}

void fair_place(struct task_sched *t, bool fresh)
{
	if (fresh) {
		t->vruntime = min_vruntime + to_virtual(t, TICK_NS);
		return;
	}
	uint64_t floor = min_vruntime - FAIR_SLEEPER_CREDIT_NS;
	if (vruntime_before(t->vruntime, floor))
		t->vruntime = floor;
}

bool fair_wakeup_preempts(struct task_sched *curr, const struct task_sched *t)
{
	if (!fair_task(curr) || t->fair_policy != SCHED_OTHER)
		return false;
	if (curr->fair_policy == SCHED_IDLE)
		return true;
	return (int64_t)(curr->vruntime - t->vruntime) >
	       (int64_t)to_virtual(t, FAIR_WAKEUP_GRAN_NS);
}
