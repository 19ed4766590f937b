/* Kernel timers: the sorted list of armed timers and the tick's run of it
 * (see ktimer.h). */
#include "proc/ktimer.h"
#include "arch/x86_64/timer.h"
#include "lib/spinlock.h"

/* Protects the armed list and every armed timer's link and expires.  Also
 * taken from the tick: spinlocks keep interrupts off while held. */
static struct spinlock ktimer_lock = SPINLOCK_INIT("ktimer");
/* Armed timers, earliest deadline first. */
static struct list_head armed = LIST_HEAD_INIT(armed);

void ktimer_init(struct ktimer *t, void (*fn)(struct ktimer *t))
{
	t->expires = 0;
	t->fn = fn;
	list_init(&t->link);
}

void ktimer_arm(struct ktimer *t, uint64_t expires)
{
	struct ktimer *pos;

	spin_lock(&ktimer_lock);
	list_del(&t->link);
	t->expires = expires;
	/* After every timer due no later: equal deadlines fire in arming order. */
	list_for_each_entry(pos, &armed, link)
	{
		if (pos->expires > expires)
			break;
	}
	list_add_tail(&t->link, &pos->link); /* before pos, or last */
	spin_unlock(&ktimer_lock);
}

bool ktimer_cancel(struct ktimer *t)
{
	bool was_armed;

	spin_lock(&ktimer_lock);
	was_armed = !list_empty(&t->link);
	list_del(&t->link);
	spin_unlock(&ktimer_lock);
	return was_armed;
}

uint64_t ktimer_expires(struct ktimer *t)
{
	uint64_t expires;

	spin_lock(&ktimer_lock);
	expires = list_empty(&t->link) ? 0 : t->expires;
	spin_unlock(&ktimer_lock);
	return expires;
}

void ktimer_run_expired(void)
{
	uint64_t now = clock_monotonic_ns();

	spin_lock(&ktimer_lock);
	while (!list_empty(&armed)) {
		struct ktimer *t = list_first_entry(&armed, struct ktimer, link);
		if (t->expires > now)
			break;
		list_del(&t->link);
		/* Unlocked: the callback may arm timers, this one included. */
		spin_unlock(&ktimer_lock);
		t->fn(t);
		spin_lock(&ktimer_lock);
	}
	spin_unlock(&ktimer_lock);
}
