/*
 * Self-test of the timer heap (ktimer.c): timers armed out of order, with
 * equal deadlines, re-armed and cancelled, must fire earliest first, equal
 * deadlines in arming order, each armed one exactly once.
 */
#include "lib/ktest.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "sched/ktimer.h"
#include "selftest.h"

#define NTIMERS 300

static struct ktimer timers[NTIMERS];
static int fired[NTIMERS], nfired;

static void record(struct ktimer *t)
{
	fired[nfired++] = (int)(t - timers);
}

/* Fire order is sorted by deadline, then by the order of arming. */
static bool in_order(const int *armed_at)
{
	for (int i = 1; i < nfired; i++) {
		const struct ktimer *a = &timers[fired[i - 1]], *b = &timers[fired[i]];
		if (a->expires > b->expires ||
		    (a->expires == b->expires && armed_at[fired[i - 1]] > armed_at[fired[i]]))
			return false;
	}
	return true;
}

void ktimer_selftest(void)
{
	static int armed_at[NTIMERS];
	int order = 0, expected = 0;
	bool cancelled_ok = true;

	/* Deadlines 1..97 ns are long past: the run below fires every one.
	 * Interrupts off, so the tick cannot run them before the check. */
	irq_push_off();
	for (int i = 0; i < NTIMERS; i++) {
		ktimer_init(&timers[i], record);
		ktimer_arm(&timers[i], (uint64_t)(i * 7919) % 97 + 1);
		armed_at[i] = order++;
	}
	for (int i = 0; i < NTIMERS; i += 3) { /* moved: now the last of its deadline */
		ktimer_arm(&timers[i], (uint64_t)(i * 31) % 97 + 1);
		armed_at[i] = order++;
	}
	for (int i = 0; i < NTIMERS; i += 5)
		cancelled_ok &= ktimer_cancel(&timers[i]);
	cancelled_ok &= !ktimer_cancel(&timers[0]); /* twice: no longer armed */
	for (int i = 0; i < NTIMERS; i++)
		expected += i % 5 != 0;
	nfired = 0;
	ktimer_run_expired();
	irq_pop_off();
	KTEST_OK(cancelled_ok, "ktimer: cancel reports armed timers, and a second cancel none");
	KTEST_OK(nfired == expected, "ktimer: %d of %d armed timers fired once each", nfired,
		 expected);
	KTEST_OK(in_order(armed_at),
		 "ktimer: earliest deadline first, equal deadlines in arming order");
}
