/*
 * A small lockdep (lib/lockdep.h), compiled in `make LOCKDEP=1` builds only.
 *
 * A lock's class is its name: every lock named "pipe" is one class.  Each
 * acquisition adds an edge "held -> taken" for every lock the taker holds
 * (this CPU's spinlocks and the current task's mutexes); an edge that
 * closes a cycle in the graph is a possible deadlock and panics with both
 * chains: the locks held now and the known path back.  Taking a lock of
 * the class already held is not checked (no annotations to tell nested
 * instances apart), but for a class declared single (lockdep_single):
 * there a second lock of the class panics.  The graph only grows; one
 * lock protects it.
 */
#ifdef LOCKDEP
#include "lib/lockdep.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "lib/backtrace.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"

#define MAX_CLASSES 256
#define MAX_HELD    24

static const char *class_name[MAX_CLASSES];
static int nclasses;
/* after[a] has bit b when class a was held while class b was taken. */
static uint64_t after[MAX_CLASSES][MAX_CLASSES / 64];
/* Classes never held twice at once (lockdep_single). */
static uint64_t single[MAX_CLASSES / 64];
/* The graph's own lock: a bare flag, outside the graph (interrupts off). */
static int graph_lock;
/* Set once a report starts: printk and panic take locks of their own. */
static bool reporting;

/* Locks held: spinlocks per CPU (never held across a switch but by the
 * scheduler, whose lock stays on its CPU), mutexes per task (held across
 * sleeps).  A mutex is always taken before any spinlock. */
struct held {
	const void *lock;
	int cls;
};
static struct held cpu_held[MAX_CPUS][MAX_HELD];
static int cpu_depth[MAX_CPUS];

static void graph_acquire(void)
{
	while (__atomic_exchange_n(&graph_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void graph_release(void)
{
	__atomic_store_n(&graph_lock, 0, __ATOMIC_RELEASE);
}

/* The class of name, made on first sight (graph lock held). */
static int class_of(const char *name)
{
	name = name ? name : "(unnamed)";
	for (int i = 0; i < nclasses; i++)
		if (class_name[i] == name || !strcmp(class_name[i], name))
			return i;
	if (nclasses == MAX_CLASSES)
		panic("lockdep: more than %d lock classes", MAX_CLASSES);
	class_name[nclasses] = name;
	return nclasses++;
}

static bool has_edge(int a, int b)
{
	return after[a][b / 64] & (1ULL << (b % 64));
}

/* True if to is reachable from from; path[] gets the classes on the way. */
static bool reaches(int from, int to, uint64_t *seen, int *path, int *len)
{
	if (from == to) {
		path[(*len)++] = to;
		return true;
	}
	seen[from / 64] |= 1ULL << (from % 64);
	for (int c = 0; c < nclasses; c++) {
		if (!has_edge(from, c) || (seen[c / 64] & (1ULL << (c % 64))))
			continue;
		if (reaches(c, to, seen, path, len)) {
			path[(*len)++] = from;
			return true;
		}
	}
	return false;
}

static void print_held(struct held *h, int n)
{
	for (int i = 0; i < n; i++)
		printk("lockdep:   held %s\n", class_name[h[i].cls]);
}

/* held -> cls closes a cycle: both chains, then panic (graph lock held). */
static __attribute__((noreturn)) void report_cycle(int held, int cls, struct held *h, int n)
{
	uint64_t seen[MAX_CLASSES / 64] = {0};
	int path[MAX_CLASSES], len = 0;

	reaches(cls, held, seen, path, &len);
	reporting = true;
	graph_release();
	printk("lockdep: possible deadlock: taking %s while holding %s\n", class_name[cls],
	       class_name[held]);
	printk("lockdep: chain now (this CPU and task, oldest first):\n");
	print_held(h, n);
	printk("lockdep:   taking %s\n", class_name[cls]);
	printk("lockdep: chain seen before:\n");
	for (int i = len - 1; i >= 0; i--)
		printk("lockdep:   %s%s\n", i == len - 1 ? "" : "then ", class_name[path[i]]);
	backtrace_from((uint64_t)__builtin_return_address(0), 0,
		       (uint64_t)__builtin_frame_address(0));
	panic("lockdep: lock order cycle %s -> %s", class_name[held], class_name[cls]);
}

/* A second lock of a single class taken (graph lock held): panic. */
static __attribute__((noreturn)) void report_nested(int cls, struct held *h, int n)
{
	reporting = true;
	graph_release();
	printk("lockdep: possible deadlock: taking a second %s\n", class_name[cls]);
	print_held(h, n);
	backtrace_from((uint64_t)__builtin_return_address(0), 0,
		       (uint64_t)__builtin_frame_address(0));
	panic("lockdep: two locks of class %s held at once", class_name[cls]);
}

/* Adds held -> cls for each held lock, checking for a cycle first. */
static void add_order(int cls, struct held *h, int n)
{
	for (int i = 0; i < n; i++) {
		int held = h[i].cls;
		uint64_t seen[MAX_CLASSES / 64] = {0};
		int path[MAX_CLASSES], len = 0;

		if (held == cls && (single[cls / 64] & (1ULL << (cls % 64))))
			report_nested(cls, h, n);
		if (held == cls || has_edge(held, cls))
			continue;
		if (reaches(cls, held, seen, path, &len))
			report_cycle(held, cls, h, n);
		after[held][cls / 64] |= 1ULL << (cls % 64);
	}
}

/* This CPU's spinlocks after the current task's mutexes: the full chain. */
static int chain_now(struct held *out)
{
	struct lockdep_task *t = this_cpu()->lockdep;
	int cpu = this_cpu()->id, n = 0;

	for (int i = 0; t && i < t->depth; i++)
		out[n++] = (struct held){t->held[i], t->cls[i]};
	for (int i = 0; i < cpu_depth[cpu]; i++)
		out[n++] = cpu_held[cpu][i];
	return n;
}

void lockdep_acquire(const char *name, const void *lock, bool sleeping)
{
	struct held chain[2 * MAX_HELD];
	struct lockdep_task *t = this_cpu()->lockdep;
	int cpu, cls, n;

	if (__atomic_load_n(&reporting, __ATOMIC_RELAXED))
		return;
	irq_push_off();
	cpu = this_cpu()->id;
	graph_acquire();
	cls = class_of(name);
	n = chain_now(chain);
	add_order(cls, chain, n);
	graph_release();
	if (sleeping) {
		if (t->depth == LOCKDEP_TASK_HELD)
			panic("lockdep: task %s holds too many mutexes", t->name);
		t->held[t->depth] = lock;
		t->cls[t->depth++] = cls;
	} else {
		if (cpu_depth[cpu] == MAX_HELD)
			panic("lockdep: CPU %d holds too many spinlocks", cpu);
		cpu_held[cpu][cpu_depth[cpu]++] = (struct held){lock, cls};
	}
	irq_pop_off();
}

/* Takes lock out of h[0 ..< *n]; false if it is not there. */
static bool drop(const void *lock, const void **locks, int *cls, struct held *h, int *n)
{
	for (int i = *n - 1; i >= 0; i--) {
		if ((h ? h[i].lock : locks[i]) != lock)
			continue;
		for (int j = i; j + 1 < *n; j++) {
			if (h)
				h[j] = h[j + 1];
			else
				locks[j] = locks[j + 1], cls[j] = cls[j + 1];
		}
		(*n)--;
		return true;
	}
	return false;
}

void lockdep_release(const char *name, const void *lock, bool sleeping)
{
	struct lockdep_task *t = this_cpu()->lockdep;
	bool found;

	if (__atomic_load_n(&reporting, __ATOMIC_RELAXED))
		return;
	irq_push_off();
	if (sleeping)
		found = drop(lock, t->held, t->cls, NULL, &t->depth);
	else
		found =
		    drop(lock, NULL, NULL, cpu_held[this_cpu()->id], &cpu_depth[this_cpu()->id]);
	irq_pop_off();
	if (!found && !__atomic_exchange_n(&reporting, true, __ATOMIC_RELAXED))
		panic("lockdep: releasing %s, which is not held here", name ? name : "(unnamed)");
}

void lockdep_single(const char *name)
{
	int cls;

	irq_push_off();
	graph_acquire();
	cls = class_of(name);
	single[cls / 64] |= 1ULL << (cls % 64);
	graph_release();
	irq_pop_off();
}

void lockdep_print_orders(void)
{
	printk("lockdep: %d lock classes\n", nclasses);
	for (int a = 0; a < nclasses; a++)
		for (int b = 0; b < nclasses; b++)
			if (has_edge(a, b))
				printk("lockdep: order %s -> %s\n", class_name[a], class_name[b]);
}

void lockdep_misuse(const char *how)
{
	static struct spinlock a = SPINLOCK_INIT("lockdeptest_a"),
			       b = SPINLOCK_INIT("lockdeptest_b");

	printk("lockdeptest: %s\n", how);
	spin_lock(&a);
	if (!strcmp(how, "sleep"))
		might_sleep();
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	spin_lock(&b);
	spin_lock(&a); /* the cycle: panics here */
	panic("lockdeptest=%s: not reported", how);
}

void lockdep_might_sleep(const char *where)
{
	int cpu = this_cpu()->id;

	if ((!(read_rflags() & RFLAGS_IF) || this_cpu()->irq_off_depth) &&
	    !__atomic_exchange_n(&reporting, true, __ATOMIC_RELAXED)) {
		printk("lockdep: %s may sleep, called with interrupts off\n", where);
		print_held(cpu_held[cpu], cpu_depth[cpu]);
		backtrace_from((uint64_t)__builtin_return_address(0), 0,
			       (uint64_t)__builtin_frame_address(0));
		panic("lockdep: sleeping function called with interrupts off (%s)", where);
	}
}
#else
#include "lib/lockdep.h"
#include "lib/printk.h"

void lockdep_misuse(const char *how)
{
	printk("lockdeptest=%s: this kernel has no LOCKDEP (make LOCKDEP=1)\n", how);
}
#endif
