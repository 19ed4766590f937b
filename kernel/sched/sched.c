/*
 * The scheduler's core (see sched.h).  A running task is never queued;
 * schedule() queues it again if it is still runnable and switches to the
 * first task this CPU may run: from the deadline queue, earliest deadline
 * first (deadline.c), then from the real-time queue, ordered by priority
 * (rt.c), then the fair class's task of least virtual runtime (fair.c).  One set of queues for
 * every CPU (docs/smp.md measures it); each CPU has an idle task, which runs only when nothing else
 * can: the boot context on CPU 0, the start-up stack on the others.
 */
#include "sched/sched_class.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/smp.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/paging.h"
#include "sched/grace.h"
#include <uapi/errno.h>

/*
 * Protects the run queue, every task's state and run_link, and the switch
 * itself: it is held across switch_to and released by the task that wakes
 * up on the other side (in schedule() or, for a new task, sched_tail()).
 */
struct spinlock sched_lock = SPINLOCK_INIT("sched");
/* CPUs running their idle task that no wake-up has kicked yet (bit n:
 * CPU n; sched_lock): a task queued on a busy CPU kicks one of them. */
static uint32_t idle_cpus;

const struct sched_hooks *sched_hooks;

void switch_to(uint64_t *save_rsp, uint64_t next_rsp);

void sched_init(const struct sched_hooks *hooks)
{
	sched_hooks = hooks;
}

/* t is c's current task from now on: lockdep follows it. */
static void set_current(struct cpu *c, struct task_sched *t)
{
	c->current = sched_task(t);
#ifdef LOCKDEP
	c->lockdep = &t->lockdep;
#endif
}

void sched_init_cpu(void)
{
	struct cpu *c = this_cpu();
	struct task *idle = sched_hooks->idle_task(c->id);
	struct task_sched *s = task_sched(idle);

	s->state = TASK_RUNNABLE;
	s->is_idle = true;
	strlcpy(s->name, "idle", sizeof(s->name));
	list_init(&s->run_link);
	s->vm = vm_kernel();
	s->on_cpu = c->id + 1;
#ifdef LOCKDEP
	s->lockdep.name = s->name;
#endif
	c->idle = idle;
	set_current(c, s);
}

static bool run_queue_empty(void)
{
	return fair_empty() && __atomic_load_n(&rt_queue.next, __ATOMIC_RELAXED) == &rt_queue &&
	       __atomic_load_n(&dl_queue.next, __ATOMIC_RELAXED) == &dl_queue;
}

/* Whether t waits in a queue (sched_lock held). */
static bool queued(const struct task_sched *t)
{
	return t->fair_queued || !list_empty(&t->run_link);
}

/* t leaves the queue it waits in, if any (sched_lock held). */
static void dequeue(struct task_sched *t)
{
	if (t->fair_queued)
		fair_dequeue(t);
	else
		list_del(&t->run_link);
}

/* Caller holds sched_lock.  t goes in its class's queue; a real-time
 * task in front of its equals if head (it was preempted, as POSIX wants). */
static void enqueue_at(struct task_sched *t, bool head)
{
	if (t->is_idle || queued(t) || t->dl_throttled)
		return;
	if (t->dl)
		dl_enqueue(t);
	else if (t->rt_prio)
		rt_enqueue(t, head);
	else
		fair_enqueue(t);
}

void sched_enqueue(struct task_sched *t)
{
	enqueue_at(t, false);
}

static bool may_run_on(const struct task_sched *t, const struct cpu *c)
{
	return t->cpus_allowed & (1ull << c->id);
}

/* Tasks wait in the queue: an idle CPU of mask other than this one
 * (sched_lock held) is sent a reschedule IPI and takes one.  False if
 * there was none.  Inline: each wake-up and switch asks, and with no
 * idle CPU the answer is a mask test, cheaper than the call. */
static inline __attribute__((always_inline)) bool kick_idle_cpu(struct cpu *c, uint64_t mask)
{
	uint32_t others = idle_cpus & (uint32_t)mask & ~(1u << c->id);

	if (!others || run_queue_empty())
		return false;
	int cpu = __builtin_ctz(others);
	idle_cpus &= ~(1u << cpu);
	smp_resched(cpu);
	return true;
}

/* The CPU c reschedules at its next way out of the kernel (sched_lock). */
static void resched_cpu(int cpu)
{
	if (cpu == this_cpu()->id) {
		this_cpu()->need_resched = true;
	} else {
		idle_cpus &= ~(1u << cpu);
		smp_resched(cpu);
	}
}

/* How urgent t is, to compare with another task (sched_lock held): the
 * deadline class first, the earlier deadline before the later, then the
 * real-time one by priority, then the normal tasks, the idle task last. */
struct urgency {
	int class;
	uint64_t key;
};

static struct urgency urgency_of(const struct task_sched *t)
{
	if (t->is_idle)
		return (struct urgency){0, 0};
	if (t->dl)
		return (struct urgency){3, ~t->dl_abs};
	return (struct urgency){t->rt_prio ? 2 : 1, (uint64_t)t->rt_prio};
}

static int urgency_cmp(struct urgency a, struct urgency b)
{
	if (a.class != b.class)
		return a.class < b.class ? -1 : 1;
	return a.key < b.key ? -1 : a.key > b.key;
}

/*
 * t, a real-time or deadline task, was queued (sched_lock held): the CPU
 * of its mask that runs the least urgent task below it, an idle one
 * first, takes it (Linux's check_preempt_curr and push to the lowest CPU).
 */
void sched_preempt_for(struct task_sched *t)
{
	int me = this_cpu()->id, best = -1;
	struct urgency best_u = urgency_of(t);
	uint64_t mask = t->cpus_allowed & smp_task_cpus();

	for (int cpu = 0; cpu < smp_cpus_online; cpu++) {
		if (!(mask & (1ull << cpu)))
			continue;
		struct urgency u = urgency_of(task_sched(cpu_get(cpu)->current));
		int cmp = urgency_cmp(u, best_u);
		if (cmp < 0 || (cmp == 0 && cpu == me))
			best = cpu, best_u = u;
	}
	if (best >= 0)
		resched_cpu(best);
}

/*
 * t, a fair task, was queued and no idle CPU takes it (sched_lock held):
 * a CPU of its mask whose task it should preempt reschedules, this one
 * first (no IPI), another by a reschedule IPI (Linux's
 * check_preempt_wakeup and resched_curr).  Without the IPI it would wait
 * for that CPU's next tick, as long as the tick's period.
 */
static void fair_preempt_for(struct task_sched *t)
{
	struct cpu *c = this_cpu();

	if (may_run_on(t, c) && fair_wakeup_preempts(task_sched(c->current), t)) {
		c->need_resched = true;
		return;
	}
	for (uint64_t cpus = t->cpus_allowed & smp_task_cpus() & ~(1ull << c->id); cpus;
	     cpus &= cpus - 1) {
		struct cpu *other = cpu_get(__builtin_ctzll(cpus));
		if (fair_wakeup_preempts(task_sched(other->current), t)) {
			if (!other->need_resched) /* else it reschedules already */
				resched_cpu(other->id);
			return;
		}
	}
}

/*
 * t became runnable (sched_lock held).  A task still on a CPU (it marked
 * itself sleeping and has not switched away yet) is not queued: its own
 * schedule() sees it runnable and queues it, while holding the lock
 * across the switch, so no CPU picks it before it is off its CPU.  A
 * queued task goes to an idle CPU it may run on, unless this CPU is idle
 * itself and will take it (its idle loop looks at the queue); a fair one
 * with no idle CPU to go to may preempt a CPU's task.
 */
static void make_runnable_locked(struct task_sched *t)
{
	struct cpu *c = this_cpu();
	bool fresh = t->state == TASK_NEW;

	t->state = TASK_RUNNABLE;
	if (t->on_cpu || t->dl_throttled)
		return;
	if (t->dl)
		dl_wakeup(t, clock_monotonic_ns());
	else if (!t->rt_prio)
		fair_place(t, fresh);
	sched_enqueue(t);
	if (t->rt_prio || t->dl)
		sched_preempt_for(t);
	else if ((c->current != c->idle || !may_run_on(t, c)) && !kick_idle_cpu(c, t->cpus_allowed))
		fair_preempt_for(t);
}

void sched_make_runnable(struct task *t)
{
	spin_lock(&sched_lock);
	make_runnable_locked(task_sched(t));
	spin_unlock(&sched_lock);
}

void sched_wake(struct task *task)
{
	struct task_sched *t = task_sched(task);

	spin_lock(&sched_lock);
	if (t->state == TASK_SLEEPING)
		make_runnable_locked(t);
	spin_unlock(&sched_lock);
}

/*
 * t has a signal or a stop to take (its TASK_WORK_SIGNAL is set): wakes it
 * if it sleeps, and if it runs on another CPU, interrupts that CPU, whose
 * way back to user mode takes it (Linux's signal_wake_up and
 * kick_process).  Without the kick a thread computing in user mode would
 * see it only at its CPU's next tick, up to 10 ms later.  Under
 * sched_lock, on_cpu names the CPU t runs on, or is switching away from
 * (a kick it no longer needs).
 */
void sched_wake_signal(struct task *task)
{
	struct task_sched *t = task_sched(task);

	spin_lock(&sched_lock);
	if (t->state == TASK_SLEEPING)
		make_runnable_locked(t);
	else if (t->on_cpu && t->on_cpu - 1 != this_cpu()->id)
		smp_kick(t->on_cpu - 1);
	spin_unlock(&sched_lock);
}

int sched_set_affinity(struct task *task, uint64_t mask)
{
	struct task_sched *t = task_sched(task);
	uint64_t cpus = smp_task_cpus();
	bool move_self = false;

	spin_lock(&sched_lock);
	/* Linux's dl_task_check_affinity: admission counted every CPU. */
	if (t->dl && (mask & cpus) != cpus) {
		spin_unlock(&sched_lock);
		return -EBUSY;
	}
	if (!mask) {
		spin_unlock(&sched_lock);
		return -EINVAL;
	}
	t->cpus_allowed = mask;
	if (t->on_cpu && !(mask & (1ull << (t->on_cpu - 1)))) {
		if (task == current())
			move_self = true;
		else
			smp_resched(t->on_cpu - 1); /* its CPU schedules, and leaves it queued */
	} else if (queued(t)) {
		kick_idle_cpu(this_cpu(), mask); /* queued: an idle CPU of mask takes it */
	}
	spin_unlock(&sched_lock);
	if (move_self)
		schedule(); /* queued, for a CPU of mask to take */
	return 0;
}

uint64_t sched_affinity(struct task *t)
{
	spin_lock(&sched_lock);
	uint64_t mask = task_sched(t)->cpus_allowed;
	spin_unlock(&sched_lock);
	return mask;
}

void sched_set_state(struct task *t, enum task_state state)
{
	if (state == TASK_SLEEPING)
		might_sleep(); /* every sleep (wait queues, futexes, poll) marks it */
	spin_lock(&sched_lock);
	task_sched(t)->state = state;
	spin_unlock(&sched_lock);
}

static struct task_sched *first_in(struct list_head *queue, const struct cpu *c)
{
	struct task_sched *t;

	list_for_each_entry(t, queue, run_link) if (may_run_on(t, c)) return t;
	return NULL;
}

/* The task c runs next, or NULL (sched_lock held): a deadline one, else
 * a real-time one, but a normal one first while c's real-time share is
 * spent; skip, a normal task that yielded, only if no other normal one
 * may run on c.  A throttled CPU with no normal task to run keeps running
 * real-time ones (Linux idles it). */
static struct task_sched *first_for(const struct cpu *c, const struct task_sched *skip)
{
	struct task_sched *t;

	if ((t = first_in(&dl_queue, c)))
		return t;
	/* The share's test (two calls, a division) only if one waits. */
	if (!list_empty(&rt_queue) && !rt_throttled(c) && (t = first_in(&rt_queue, c)))
		return t;
	if ((t = fair_pick(c, skip)))
		return t;
	return first_in(&rt_queue, c);
}

/* Caller holds sched_lock.  An idle CPU is marked so in idle_cpus. */
static struct task_sched *pick_next(struct cpu *c, const struct task_sched *skip)
{
	struct task_sched *t = first_for(c, skip);

	if (!t) {
		idle_cpus |= 1u << c->id;
		return task_sched(c->idle);
	}
	idle_cpus &= ~(1u << c->id);
	dequeue(t);
	return t;
}

/* The user GS base waits in KERNEL_GS_BASE while the kernel runs (swapgs
 * exchanges them on the way out).  Written only when they change: a WRMSR
 * is not free, and most tasks leave both at 0. */
void user_bases_load(struct task *task)
{
	const struct task_sched *t = task_sched(task);
	struct cpu *c = this_cpu();

	if (t->fsbase != c->user_fsbase)
		wrmsr(MSR_FS_BASE, c->user_fsbase = t->fsbase);
	if (t->gsbase != c->user_gsbase)
		wrmsr(MSR_KERNEL_GS_BASE, c->user_gsbase = t->gsbase);
}

#define CR4_TSD (1UL << 2) /* rdtsc only in ring 0 */

/* CR4 is written only when the mode changes: most tasks keep rdtsc. */
void tsc_mode_load(struct task *t)
{
	uint64_t cr4 = read_cr4();

	if (!!(cr4 & CR4_TSD) != task_sched(t)->tsc_sigsegv)
		write_cr4(cr4 ^ CR4_TSD);
}

/* Loads next's address space and kernel stack into this CPU. */
static void switch_cpu_state(struct task_sched *next)
{
	uint64_t kstack_top = (uint64_t)next->kstack + KSTACK_SIZE;

	if (next->vm && next->vm != task_sched(current())->vm)
		vm_switch(next->vm);
	next->on_cpu = this_cpu()->id + 1;
	if (!next->is_idle) {
		tss_set_kernel_stack(kstack_top);
		this_cpu()->kstack_top = kstack_top;
		user_bases_load(sched_task(next));
		tsc_mode_load(sched_task(next));
	}
	set_current(this_cpu(), next);
}

/*
 * The switch away from prev is complete: this CPU runs on the next task's
 * stack and prev's registers and FPU state are saved.  Clears prev->on_cpu
 * (xv6's handshake), still under sched_lock, which a wake-up takes: from
 * then on another CPU may run prev, and a reaper may free its stack
 * (task_free waits for it).
 */
static void finish_switch(struct task_sched *prev)
{
	/* Release: pairs with the acquire in task_free's wait; every use of
	 * prev's stack (switch_to's pushes) happens before the free. */
	__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
}

/* Frees the TASK_DEAD task this CPU just left: it has no reaper. */
static void free_dead_task(void)
{
	struct task *dead = this_cpu()->dead;

	if (dead) {
		this_cpu()->dead = NULL;
		sched_hooks->free_dead(dead);
	}
}

void schedule(void)
{
	struct task_sched *prev = task_sched(current()), *next;
	struct cpu *c;

	/* switch_to keeps RFLAGS: AC set here would open the SMAP window in
	 * the next task's kernel code.  Only user copies set it, and every
	 * kernel entry clears it (isr.asm, syscall FMASK). */
	kassert(!(read_rflags() & RFLAGS_AC));
	grace_quiescent(); /* a switch: no lock-free read spans it */
	spin_lock(&sched_lock);
	c = this_cpu(); /* interrupts are off: no migration until the switch */
	c->need_resched = false;
	if (prev->state == TASK_RUNNABLE)
		enqueue_at(prev, !prev->rt_tail);
	next = pick_next(c, prev->rt_tail ? prev : NULL);
	prev->rt_tail = false;
	if (next != prev) {
		/* A dead task cannot free the stack it runs on: the next one does. */
		if (prev->state == TASK_DEAD)
			c->dead = sched_task(prev);
		/* The interrupt state to restore belongs to this task, not the CPU. */
		bool irq_were_on = c->irq_were_on;
		kick_idle_cpu(c, ~0ull); /* more work than this CPU takes */
		if (prev->state == TASK_RUNNABLE && !may_run_on(prev, c))
			kick_idle_cpu(c, prev->cpus_allowed); /* it must move */
		while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE)) {
			smp_call_poll(c);
			cpu_relax();
		}
		fpu_save(&prev->fpu);
		fpu_restore(&next->fpu);
		c->prev = sched_task(prev);
		c->switches++;
		switch_cpu_state(next);
		switch_to(&prev->ctx_rsp, next->ctx_rsp);
		/* Now the next task: maybe on another CPU than it left. */
		c = this_cpu();
		c->irq_were_on = irq_were_on;
		finish_switch(task_sched(c->prev));
	}
	spin_unlock(&sched_lock);
	free_dead_task();
}

/* First code a new task runs (from task_first_run): finish schedule(). */
void sched_tail(void)
{
	this_cpu()->irq_were_on = false; /* returns to user with IRET/SYSRET flags */
	finish_switch(task_sched(this_cpu()->prev));
	spin_unlock(&sched_lock);
	free_dead_task();
	/* Like any system call's way out: interrupts on (the child's tid
	 * write may fault) until syscall_exit turns them off. */
	irq_enable();
	sched_hooks->first_run(current());
}

void sched_yield(void)
{
	struct task_sched *t = task_sched(current());

	/* A deadline task ends its instance: it waits for its next period
	 * (Linux's yield_task_dl). */
	spin_lock(&sched_lock);
	if (t->dl) {
		t->dl_left = 0;
		dl_throttle(t);
	}
	spin_unlock(&sched_lock);
	/* Only the task itself and its CPU's tick (interrupts off) set it. */
	t->rt_tail = true;
	schedule();
}

void cond_resched(void)
{
	if (this_cpu()->need_resched)
		schedule();
}

/*
 * Whether the task t running on c gives its turn up at this tick: the
 * idle task always, a fair one when a waiting fair task is behind it in
 * virtual runtime or a real-time or deadline task waits, an RR task when
 * its quantum is spent, a real-time one when c's real-time share of the
 * period is, a deadline one when its runtime is (it is charged the whole
 * tick).  Counts the period and the share.
 */
static bool tick_ends_turn(struct cpu *c, struct task_sched *t)
{
	bool ends = t->is_idle;

	spin_lock(&sched_lock);
	rt_period_tick(c);
	if (t->dl && !t->dl_throttled) {
		t->dl_left -= (int64_t)TICK_NS;
		if ((ends = t->dl_left <= 0)) /* throttled, or due later */
			dl_throttle(t);
	} else if (t->rt_prio) {
		ends = rt_tick(c, t);
	} else if (fair_task(t)) {
		ends = fair_tick(t) || !list_empty(&rt_queue) || !list_empty(&dl_queue);
	}
	spin_unlock(&sched_lock);
	return ends;
}

void sched_tick(struct trapframe *tf)
{
	struct task *t = current();
	struct cpu *c = this_cpu();
	bool user = trapframe_from_user(tf);

	if (task_sched(t)->is_idle)
		c->idle_ticks++;
	else if (user)
		c->user_ticks++;
	else
		c->system_ticks++;
	sched_hooks->tick(t, user);
	if (tick_ends_turn(c, task_sched(t)))
		c->need_resched = true;
}

/*
 * t changed class or place in it (sched_lock held; lowered: it is less
 * urgent than it was).  A waiting task moves in the queues at once: a
 * queued one, or a throttled deadline task that left its class (runnable,
 * on no CPU); a lowered one goes in front of its new equals (POSIX).  A
 * CPU that should now run something else reschedules.
 */
void sched_requeue(struct task_sched *t, bool lowered)
{
	if (t->state == TASK_RUNNABLE && !t->on_cpu && !t->is_idle) {
		dequeue(t);
		enqueue_at(t, lowered);
		if (t->rt_prio || t->dl)
			sched_preempt_for(t);
		else
			kick_idle_cpu(this_cpu(), t->cpus_allowed);
	} else if (t->on_cpu && lowered) { /* someone queued may come first now */
		resched_cpu(t->on_cpu - 1);
	}
}

void sched_set_fair(struct task *t, int policy, int nice)
{
	spin_lock(&sched_lock);
	fair_set(task_sched(t), policy, nice);
	spin_unlock(&sched_lock);
}

void sched_exit(struct task *task)
{
	struct task_sched *t = task_sched(task);

	spin_lock(&sched_lock);
	dl_leave(t);
	spin_unlock(&sched_lock);
	ktimer_cancel_sync(&t->dl_timer); /* then t may go */
	/* Its deadline sleeps' timer too: a sleep that ended another way (a
	 * wake-up, a kill) disarmed it with ktimer_cancel, which does not
	 * wait for a callback CPU 0's tick has already taken; that callback,
	 * still to read t, met t freed (a jump to the poison, 2026-12-07). */
	ktimer_cancel_sync(&t->sleep_timer);
}

/* A task's sleep timer: its deadline passed. */
static void sleep_timer_fired(struct ktimer *k)
{
	sched_wake(sched_task(container_of(k, struct task_sched, sleep_timer)));
}

void sched_task_init(struct task *task)
{
	struct task_sched *t = task_sched(task);

	t->cpus_allowed = ~0ull; /* clone copies its parent's */
#ifdef LOCKDEP
	t->lockdep.name = t->name;
#endif
	list_init(&t->run_link);
	ktimer_init(&t->sleep_timer, sleep_timer_fired);
	dl_task_init(t);
	fair_task_init(t);
}

/* A queued task may run on c: looked at by its idle loop, so that a task
 * bound to other CPUs does not keep it awake. */
static bool work_for(const struct cpu *c)
{
	if (run_queue_empty())
		return false;
	spin_lock(&sched_lock);
	bool found = first_for(c, NULL) != NULL;
	spin_unlock(&sched_lock);
	return found;
}

__attribute__((noreturn)) void sched_idle_loop(void)
{
	for (;;) {
		/* Idle with interrupts on first: an extended quiescent state,
		 * so a CPU asleep in hlt never holds a grace period up (and
		 * the callbacks this may run see interrupts on). */
		grace_idle_enter();
		/* Looked at with interrupts off, and sti; hlt is atomic: a
		 * wake-up (or a reschedule IPI) cannot slip in between.  A
		 * kicked CPU schedules even if another took the task first,
		 * so it is marked idle again. */
		irq_disable();
		if (!work_for(this_cpu()) && !(smp_sched_on && this_cpu()->need_resched)) {
			asm volatile("sti; hlt" ::: "memory");
			grace_idle_exit();
			continue;
		}
		irq_enable();
		grace_idle_exit();
		schedule();
	}
}
