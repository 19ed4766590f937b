/* Kernel timers: the heap of armed timers and the tick's run of it (see
 * ktimer.h). */
#include "sched/ktimer.h"
#include <stddef.h>
#include "arch/x86_64/timer.h"
#include "arch/x86_64/cpu.h"
#include "lib/spinlock.h"

/* Protects the heap and every armed timer's links, expires and seq.  Also
 * taken from the tick: spinlocks keep interrupts off while held. */
static struct spinlock ktimer_lock = SPINLOCK_INIT("ktimer");
/*
 * Armed timers as a pairing heap, earliest deadline at the root.  Each
 * timer links to its first child and to its next sibling; prev is the left
 * sibling, or the parent for a first child (NULL for the root), so any
 * timer can be cut out in O(1) before its children are merged back.
 */
static struct ktimer *root;
/* Arming order: equal deadlines fire first-armed first. */
static uint64_t arm_seq;
/* The timer whose callback the tick is running, or NULL (ktimer_lock):
 * ktimer_cancel_sync waits while it is the one to cancel.  One at a time:
 * only CPU 0's tick runs callbacks. */
static struct ktimer *running;

void ktimer_init(struct ktimer *t, void (*fn)(struct ktimer *t))
{
	*t = (struct ktimer){.fn = fn};
}

static bool earlier(const struct ktimer *a, const struct ktimer *b)
{
	return a->expires < b->expires || (a->expires == b->expires && a->seq < b->seq);
}

/* Two heaps (roots, no siblings) into one: the later root becomes the
 * first child of the earlier. */
static struct ktimer *meld(struct ktimer *a, struct ktimer *b)
{
	if (!a || !b)
		return a ? a : b;
	if (earlier(b, a)) {
		struct ktimer *tmp = a;
		a = b;
		b = tmp;
	}
	b->prev = a;
	b->next = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	a->next = a->prev = NULL;
	return a;
}

/*
 * A sibling list into one heap, the classic two passes: meld neighbours
 * left to right (the pairs are kept on a stack through next), then meld
 * the pairs right to left.  Amortised O(log n).
 */
static struct ktimer *merge_pairs(struct ktimer *first)
{
	struct ktimer *pairs = NULL, *heap = NULL;

	while (first) {
		struct ktimer *a = first, *b = a->next;
		first = b ? b->next : NULL;
		a->next = a->prev = NULL;
		if (b)
			b->next = b->prev = NULL;
		a = meld(a, b);
		a->next = pairs;
		pairs = a;
	}
	while (pairs) {
		struct ktimer *p = pairs;
		pairs = p->next;
		p->next = NULL;
		heap = meld(heap, p);
	}
	return heap;
}

/* Takes armed t out of the heap (ktimer_lock held). */
static void unlink_timer(struct ktimer *t)
{
	struct ktimer *children = t->child;

	if (t == root) {
		root = NULL;
	} else {
		if (t->prev->child == t)
			t->prev->child = t->next;
		else
			t->prev->next = t->next;
		if (t->next)
			t->next->prev = t->prev;
	}
	t->child = t->next = t->prev = NULL;
	t->armed = false;
	root = meld(root, merge_pairs(children));
}

void ktimer_arm(struct ktimer *t, uint64_t expires)
{
	spin_lock(&ktimer_lock);
	if (t->armed)
		unlink_timer(t);
	t->expires = expires;
	t->seq = arm_seq++;
	t->armed = true;
	root = meld(root, t);
	spin_unlock(&ktimer_lock);
}

bool ktimer_cancel(struct ktimer *t)
{
	bool was_armed;

	spin_lock(&ktimer_lock);
	was_armed = t->armed;
	if (was_armed)
		unlink_timer(t);
	spin_unlock(&ktimer_lock);
	return was_armed;
}

void ktimer_cancel_sync(struct ktimer *t)
{
	for (;;) {
		spin_lock(&ktimer_lock);
		if (running != t) {
			if (t->armed)
				unlink_timer(t);
			spin_unlock(&ktimer_lock);
			return;
		}
		spin_unlock(&ktimer_lock);
		cpu_relax(); /* its callback runs on CPU 0: let it finish */
	}
}

bool ktimer_busy(struct ktimer *t)
{
	bool busy;

	spin_lock(&ktimer_lock);
	busy = t->armed || running == t;
	spin_unlock(&ktimer_lock);
	return busy;
}

uint64_t ktimer_expires(struct ktimer *t)
{
	uint64_t expires;

	spin_lock(&ktimer_lock);
	expires = t->armed ? t->expires : 0;
	spin_unlock(&ktimer_lock);
	return expires;
}

void ktimer_run_expired(void)
{
	uint64_t now = clock_monotonic_ns();

	spin_lock(&ktimer_lock);
	while (root && root->expires <= now) {
		struct ktimer *t = root;
		unlink_timer(t);
		running = t;
		/* Unlocked: the callback may arm timers, this one included. */
		spin_unlock(&ktimer_lock);
		t->fn(t);
		spin_lock(&ktimer_lock);
		running = NULL;
	}
	spin_unlock(&ktimer_lock);
}
