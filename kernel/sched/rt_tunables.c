/*
 * The real-time class's tunables in /proc/sys/kernel, as Linux's:
 * sched_rr_timeslice_ms (SCHED_RR's quantum), sched_rt_period_us and
 * sched_rt_runtime_us (RT throttling: real-time tasks get at most runtime
 * of each period on a CPU where normal tasks wait; -1: no limit).  The
 * scheduler counts in ticks (TICK_NS): a quantum rounds up to whole
 * ticks, as Linux's to jiffies, and so do the period and runtime.
 */
#include "arch/x86_64/timer.h"
#include "fs/proc/proc_sys.h"
#include "lib/spinlock.h"
#include "sched/rt_tunables.h"
#include <uapi/errno.h>

#define RR_TIMESLICE_MS 100 /* Linux's RR_TIMESLICE */
#define TICK_US		(TICK_NS / 1000)

static int rr_timeslice_ms = RR_TIMESLICE_MS;
static int rt_period_us = 1000000, rt_runtime_us = 950000;

static int ticks_of_us(long us)
{
	long ticks = (us + (long)TICK_US - 1) / (long)TICK_US;

	return ticks < 1 ? 1 : (int)ticks;
}

int rr_quantum_ticks(void)
{
	return ticks_of_us(1000L * __atomic_load_n(&rr_timeslice_ms, __ATOMIC_RELAXED));
}

int rt_period_ticks(void)
{
	return ticks_of_us(__atomic_load_n(&rt_period_us, __ATOMIC_RELAXED));
}

int rt_runtime_ticks(void)
{
	int us = __atomic_load_n(&rt_runtime_us, __ATOMIC_RELAXED);

	return us < 0 ? -1 : us == 0 ? 0 : ticks_of_us(us);
}

/* Linux's sched_rr_handler: any int; 0 or less sets the default back. */
static long rr_timeslice_store(const struct proc_sys_row *row, const char *text, size_t len,
			       uint64_t *pos)
{
	long r = proc_sys_int_store(row, text, len, pos);

	if (r > 0 && __atomic_load_n(&rr_timeslice_ms, __ATOMIC_RELAXED) <= 0)
		__atomic_store_n(&rr_timeslice_ms, RR_TIMESLICE_MS, __ATOMIC_RELAXED);
	return r;
}
PROC_SYS_ROW(rr_timeslice_row, .path = "kernel/sched_rr_timeslice_ms", .mode = 0644,
	     .show = proc_sys_int_show, .store = rr_timeslice_store, .data = &rr_timeslice_ms,
	     .min = INT32_MIN, .max = INT32_MAX);

/*
 * Linux's sched_rt_handler: the period at least 1, the runtime -1 or at
 * most the period, else EINVAL and the old pair stays.  Writes of the
 * two files do not race here: both are checked and stored under
 * proc_sys_lock.
 */
static long rt_bandwidth_store(const struct proc_sys_row *row, const char *text, size_t len,
			       uint64_t *pos)
{
	int *v = row->data, old;
	long r;

	spin_lock(&proc_sys_lock);
	old = *v;
	r = proc_sys_int_store(row, text, len, pos);
	if (r > 0 && (rt_period_us < 1 || (rt_runtime_us != -1 && rt_runtime_us > rt_period_us))) {
		__atomic_store_n(v, old, __ATOMIC_RELAXED);
		r = -EINVAL;
	}
	spin_unlock(&proc_sys_lock);
	return r;
}
PROC_SYS_ROW(rt_period_row, .path = "kernel/sched_rt_period_us", .mode = 0644,
	     .show = proc_sys_int_show, .store = rt_bandwidth_store, .data = &rt_period_us,
	     .min = 1, .max = INT32_MAX);
PROC_SYS_ROW(rt_runtime_row, .path = "kernel/sched_rt_runtime_us", .mode = 0644,
	     .show = proc_sys_int_show, .store = rt_bandwidth_store, .data = &rt_runtime_us,
	     .min = -1, .max = INT32_MAX);
