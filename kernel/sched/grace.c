/*
 * Grace periods (sched/grace.h): a grace-period number, a per-CPU record
 * of the last number each CPU saw at a quiescent state, and two callback
 * lists.  One grace period runs at a time; callbacks queued meanwhile wait
 * for the next, as in classic RCU.
 *
 * Uniprocessor cost: a context switch loads the grace-period number and
 * compares it with this CPU's record; everything else happens only when
 * something was retired.
 */
#include "sched/grace.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smp.h"
#include "lib/ktest.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "sched/sched.h"

/* One CPU's view, on its own cache line: only that CPU writes it. */
struct grace_cpu {
	unsigned long seen; /* the grace period current at its last quiescent state */
	bool idle;	    /* in the idle loop: holds nothing (extended quiescent state) */
} __attribute__((aligned(64)));

struct grace {
	/* Protects the lists, ncpus and the start and end of a grace period. */
	struct spinlock lock;
	/* The grace period in progress, or the last one if done == seq.  Written
	 * under lock; read without it by quiescent CPUs (acquire). */
	unsigned long seq, done;
	int ncpus; /* CPUs the grace period in progress waits for (0 ..< ncpus) */
	struct grace_head *next, **next_tail; /* queued: wait for a later period */
	struct grace_head *wait, **wait_tail; /* wait for period seq */
	unsigned long pending;		      /* queued and not yet run (atomic) */
	struct grace_cpu cpu[MAX_CPUS];
};

static struct grace grace = {
    .lock = SPINLOCK_INIT("grace"),
    .next_tail = &grace.next,
    .wait_tail = &grace.wait,
};

/* Starts a grace period for the callbacks on next (lock held). */
static void start_locked(struct grace *g, int ncpus)
{
	g->wait = g->next;
	g->wait_tail = g->next_tail;
	g->next = NULL;
	g->next_tail = &g->next;
	g->ncpus = ncpus;
	/* Release: pairs with the acquire in report(); a CPU that sees the new
	 * number also sees every pointer its callers unpublished before. */
	__atomic_store_n(&g->seq, g->seq + 1, __ATOMIC_RELEASE);
}

/* True once every CPU of the grace period passed a quiescent state (lock held). */
static bool complete_locked(struct grace *g)
{
	/* Full barrier: orders the new seq (and the unpublishing stores before
	 * it) against the loads of idle below; pairs with the fence in
	 * grace_idle_exit (Dekker: a CPU seen idle reads the new pointers). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (int i = 0; i < g->ncpus; i++) {
		/* Acquire: pairs with the release in report(), so everything that
		 * CPU's readers did happens before the callbacks run. */
		if (__atomic_load_n(&g->cpu[i].seen, __ATOMIC_ACQUIRE) != g->seq &&
		    !__atomic_load_n(&g->cpu[i].idle, __ATOMIC_ACQUIRE))
			return false;
	}
	return true;
}

/*
 * Runs the callbacks whose grace period is over and starts the next one,
 * as long as periods end.  self is the CPU calling from a quiescent state
 * (or -1): everything on next was unpublished before it was queued, so
 * before now, and self counts for the new period at once.  With one CPU
 * a switch thus frees everything retired before it.
 */
static void poll(struct grace *g, int ncpus, int self)
{
	struct grace_head *h, *next;

	for (;;) {
		/* No period in progress (every idle CPU's tick): no lock.  A
		 * period that starts meanwhile counts this CPU idle or gets
		 * its report, which polls again. */
		if (__atomic_load_n(&g->done, __ATOMIC_RELAXED) ==
		    __atomic_load_n(&g->seq, __ATOMIC_RELAXED))
			return;
		spin_lock(&g->lock);
		if (g->done == g->seq || !complete_locked(g)) {
			spin_unlock(&g->lock);
			return;
		}
		h = g->wait;
		g->wait = NULL;
		g->wait_tail = &g->wait;
		__atomic_store_n(&g->done, g->seq, __ATOMIC_RELAXED); /* read unlocked above */
		if (g->next) {
			start_locked(g, ncpus);
			if (self >= 0) /* release: as in report() */
				__atomic_store_n(&g->cpu[self].seen, g->seq, __ATOMIC_RELEASE);
		}
		spin_unlock(&g->lock);
		for (; h; h = next) {
			next = h->next;
			h->fn(h);
			/* Release: grace_drain's acquire sees the callback done. */
			__atomic_sub_fetch(&g->pending, 1, __ATOMIC_RELEASE);
		}
	}
}

static void queue(struct grace *g, struct grace_head *head, void (*fn)(struct grace_head *),
		  int ncpus)
{
	head->fn = fn;
	head->next = NULL;
	spin_lock(&g->lock);
	__atomic_add_fetch(&g->pending, 1, __ATOMIC_RELAXED);
	*g->next_tail = head;
	g->next_tail = &head->next;
	if (g->done == g->seq)
		start_locked(g, ncpus);
	spin_unlock(&g->lock);
}

/* cpu passed a quiescent state: its readers before now are done. */
static void report(struct grace *g, int cpu, int ncpus)
{
	struct grace_cpu *c = &g->cpu[cpu];
	/* Acquire: pairs with start_locked; this CPU's readers from now on
	 * see what was unpublished before the period started. */
	unsigned long seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);

	if (c->seen == seq)
		return; /* the fast path: nothing new since the last report */
	/* Release: this CPU's reads so far happen before the callbacks. */
	__atomic_store_n(&c->seen, seq, __ATOMIC_RELEASE);
	poll(g, ncpus, cpu);
}

void grace_defer(struct grace_head *head, void (*fn)(struct grace_head *head))
{
	queue(&grace, head, fn, smp_cpus_online);
}

void grace_quiescent(void)
{
	report(&grace, this_cpu()->id, smp_cpus_online);
}

void grace_idle_enter(void)
{
	/* Release: the reads this CPU did before idling happen before the
	 * callbacks of a period that counts it as idle. */
	__atomic_store_n(&grace.cpu[this_cpu()->id].idle, true, __ATOMIC_RELEASE);
	poll(&grace, smp_cpus_online, this_cpu()->id); /* this CPU may have been the last one */
}

void grace_idle_exit(void)
{
	__atomic_store_n(&grace.cpu[this_cpu()->id].idle, false, __ATOMIC_RELAXED);
	/* Full barrier: the store above before any read of a pointer; pairs
	 * with the fence in complete_locked. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void grace_drain(void)
{
	might_sleep();
	/* Each yield is a quiescent state of this CPU; idle CPUs count as
	 * quiescent and busy ones switch or return to user within a tick. */
	while (__atomic_load_n(&grace.pending, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* Self-tests: a private instance with three CPUs shows the rules; then
 * the kernel's own. */
struct probe {
	struct grace_head head;
	int *log, *n, id;
};

static void probe_ran(struct grace_head *h)
{
	struct probe *p = container_of(h, struct probe, head);

	p->log[(*p->n)++] = p->id;
}

static void grace_rules_selftest(void)
{
	static struct grace g = {
	    .lock = SPINLOCK_INIT("grace_test"), .next_tail = &g.next, .wait_tail = &g.wait};
	int log[3] = {0}, n = 0;
	struct probe p[3];

	for (int i = 0; i < 3; i++)
		p[i] = (struct probe){.log = log, .n = &n, .id = i + 1};
	queue(&g, &p[0].head, probe_ran, 3); /* starts period 1 */
	queue(&g, &p[1].head, probe_ran, 3); /* waits for period 2 */
	report(&g, 0, 3);
	report(&g, 2, 3);
	KTEST_OK(n == 0, "grace: no callback runs before every online CPU reported (2 of 3)");
	report(&g, 1, 3); /* ends period 1, starts 2, which CPU 1 has passed */
	KTEST_OK(n == 1 && log[0] == 1,
		 "grace: it runs after the last report; one queued during the period waits");
	report(&g, 1, 3);
	report(&g, 1, 3);
	KTEST_OK(n == 1, "grace: more reports of one CPU do not end a period");
	g.cpu[2].idle = true;
	report(&g, 0, 3);
	KTEST_OK(n == 2 && log[1] == 2,
		 "grace: an idle CPU does not hold a period up; callbacks run in queue order");
	g.cpu[2].idle = false;
	queue(&g, &p[2].head, probe_ran, 2);
	report(&g, 0, 2);
	report(&g, 1, 2);
	KTEST_OK(n == 3 && log[2] == 3 && g.pending == 0,
		 "grace: only the CPUs online when a period starts are waited for");
}

static void flag_ran(struct grace_head *h)
{
	(void)h;
}

void grace_selftest(void)
{
	struct grace_head h = {0};

	grace_rules_selftest();
	grace_drain();
	grace_defer(&h, flag_ran);
	KTEST_OK(__atomic_load_n(&grace.pending, __ATOMIC_ACQUIRE) == 1,
		 "grace: the kernel's callback waits for this CPU's quiescent state");
	grace_drain();
	KTEST_OK(grace.pending == 0 && grace.done == grace.seq,
		 "grace: grace_drain ran it (%d CPUs online)", smp_cpus_online);
}
