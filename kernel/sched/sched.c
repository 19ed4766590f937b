/*
 * Round-robin scheduler (see sched.h).  A running task is never on the run
 * queue; schedule() puts it back at the tail if it is still runnable and
 * switches to the head.  The boot context is the idle task: it runs only
 * when nothing else can.
 */
#include "sched/sched.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/timer.h"
#include "lib/printk.h"
#include "mm/paging.h"
#include "proc/proc.h"
#include "proc/group.h"
#include "proc/signal.h"
#include "sched/grace.h"
#include <uapi/errno.h>

/*
 * Protects the run queue, every task's state and run_link, and the switch
 * itself: it is held across switch_to and released by the task that wakes
 * up on the other side (in schedule() or, for a new task, sched_tail()).
 */
static struct spinlock sched_lock = SPINLOCK_INIT("sched");
static struct list_head run_queue = LIST_HEAD_INIT(run_queue);
static struct task idle_task = {.pid = 0, .state = TASK_RUNNABLE, .name = "idle"};

void switch_to(uint64_t *save_rsp, uint64_t next_rsp);

void sched_init(void)
{
	list_init(&idle_task.run_link);
	idle_task.vm = vm_kernel();
	idle_task.on_cpu = 1;
	this_cpu()->current = &idle_task;
}

/* Caller holds sched_lock. */
static void enqueue(struct task *t)
{
	if (t != &idle_task && list_empty(&t->run_link))
		list_add_tail(&t->run_link, &run_queue);
}

void sched_make_runnable(struct task *t)
{
	spin_lock(&sched_lock);
	t->state = TASK_RUNNABLE;
	enqueue(t);
	spin_unlock(&sched_lock);
}

void sched_wake(struct task *t)
{
	spin_lock(&sched_lock);
	if (t->state == TASK_SLEEPING) {
		t->state = TASK_RUNNABLE;
		enqueue(t);
	}
	spin_unlock(&sched_lock);
}

void sched_set_state(struct task *t, enum task_state state)
{
	if (state == TASK_SLEEPING)
		might_sleep(); /* every sleep (wait queues, futexes, poll) marks it */
	spin_lock(&sched_lock);
	t->state = state;
	spin_unlock(&sched_lock);
}

/* Caller holds sched_lock. */
static struct task *pick_next(void)
{
	struct task *t;

	if (list_empty(&run_queue))
		return &idle_task;
	t = list_first_entry(&run_queue, struct task, run_link);
	list_del(&t->run_link);
	return t;
}

/* The user GS base waits in KERNEL_GS_BASE while the kernel runs (swapgs
 * exchanges them on the way out).  Written only when they change: a WRMSR
 * is not free, and most tasks leave both at 0. */
void user_bases_load(const struct task *t)
{
	struct cpu *c = this_cpu();

	if (t->fsbase != c->user_fsbase)
		wrmsr(MSR_FS_BASE, c->user_fsbase = t->fsbase);
	if (t->gsbase != c->user_gsbase)
		wrmsr(MSR_KERNEL_GS_BASE, c->user_gsbase = t->gsbase);
}

/* Loads next's address space and kernel stack into this CPU. */
static void switch_cpu_state(struct task *next)
{
	uint64_t kstack_top = (uint64_t)next->kstack + KSTACK_SIZE;

	if (next->vm && next->vm != current()->vm)
		vm_switch(next->vm);
	next->on_cpu = 1;
	if (next != &idle_task) {
		tss_set_kernel_stack(kstack_top);
		this_cpu()->kstack_top = kstack_top;
		user_bases_load(next);
	}
	this_cpu()->current = next;
}

/*
 * The switch away from prev is complete: this CPU runs on the next task's
 * stack and prev's registers are saved.  Clears prev->on_cpu (xv6's
 * handshake), still under sched_lock, which a wake-up takes: from then on
 * a reaper on another CPU may free prev's stack (task_free waits for it).
 */
static void finish_switch(struct task *prev)
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
		task_free(dead);
	}
}

void schedule(void)
{
	struct task *prev = current(), *next;

	/* switch_to keeps RFLAGS: AC set here would open the SMAP window in
	 * the next task's kernel code.  Only user copies set it, and every
	 * kernel entry clears it (isr.asm, syscall FMASK). */
	kassert(!(read_rflags() & RFLAGS_AC));
	grace_quiescent(); /* a switch: no lock-free read spans it */
	spin_lock(&sched_lock);
	this_cpu()->need_resched = false;
	if (prev->state == TASK_RUNNABLE)
		enqueue(prev);
	next = pick_next();
	if (next != prev) {
		/* A dead task cannot free the stack it runs on: the next one does. */
		if (prev->state == TASK_DEAD)
			this_cpu()->dead = prev;
		/* The interrupt state to restore belongs to this task, not the CPU. */
		bool irq_were_on = this_cpu()->irq_were_on;
		fpu_save(&prev->fpu);
		fpu_restore(&next->fpu);
		this_cpu()->prev = prev;
		switch_cpu_state(next);
		switch_to(&prev->ctx_rsp, next->ctx_rsp);
		this_cpu()->irq_were_on = irq_were_on;
		finish_switch(this_cpu()->prev);
	}
	spin_unlock(&sched_lock);
	free_dead_task();
}

/* First code a new task runs (from task_first_run): finish schedule(). */
void sched_tail(void)
{
	this_cpu()->irq_were_on = false; /* returns to user with IRET/SYSRET flags */
	finish_switch(this_cpu()->prev);
	spin_unlock(&sched_lock);
	free_dead_task();
	/* Like any system call's way out: interrupts on (the child's tid
	 * write may fault) until syscall_exit turns them off. */
	irq_enable();
	if (current()->set_child_tid)
		clone_child_start(current());
}

void sched_yield(void)
{
	schedule();
}

void sched_tick(struct trapframe *tf)
{
	struct task *t = current();
	bool user = trapframe_from_user(tf);

	if (user)
		t->utime_ticks++;
	else
		t->stime_ticks++;
	itimer_tick(t, user);
	this_cpu()->need_resched = true;
}

/* A task's sleep timer: its deadline passed. */
static void sleep_timer_fired(struct ktimer *k)
{
	sched_wake(container_of(k, struct task, sleep_timer));
}

void sched_task_init(struct task *t)
{
	list_init(&t->run_link);
	ktimer_init(&t->sleep_timer, sleep_timer_fired);
}

void sched_arm_deadline(uint64_t deadline_ns)
{
	struct task *t = current();

	/* Sleeping first: a timer that fires before schedule() is not lost. */
	sched_set_state(t, TASK_SLEEPING);
	ktimer_arm(&t->sleep_timer, deadline_ns);
}

void sched_disarm_deadline(void)
{
	struct task *t = current();

	ktimer_cancel(&t->sleep_timer);
	sched_set_state(t, TASK_RUNNABLE);
}

int sched_sleep_until(uint64_t deadline_ns)
{
	int ret = 0;

	might_sleep();
	for (;;) {
		sched_arm_deadline(deadline_ns);
		if (clock_monotonic_ns() >= deadline_ns)
			break;
		if (signal_pending()) {
			ret = -EINTR;
			break;
		}
		schedule();
	}
	sched_disarm_deadline();
	return ret;
}

void return_to_user_work(struct trapframe *tf)
{
	grace_quiescent(); /* leaving for user mode: no lock-free read spans it */
	if (this_cpu()->need_resched)
		schedule();
	if (task_signal_work(current(), tf))
		signal_deliver(tf);
}

__attribute__((noreturn)) void sched_idle_loop(void)
{
	for (;;) {
		/* sti; hlt is atomic: no wake-up slips in between. */
		grace_idle_enter();
		asm volatile("sti; hlt" ::: "memory");
		grace_idle_exit();
		if (!list_empty(&run_queue))
			schedule();
	}
}
