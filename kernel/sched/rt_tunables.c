/*
 * The real-time class's tunables in /proc/sys/kernel, as Linux's:
 * sched_rr_timeslice_ms (SCHED_RR's quantum), sched_rt_period_us and
 * sched_rt_runtime_us (RT throttling: real-time tasks get at most runtime
 * of each period on a CPU where normal tasks wait; -1: no limit; the
 * same share bounds the deadline class's admission control), and
 * sched_deadline_period_min_us / _max_us (the periods SCHED_DEADLINE
 * takes).  The scheduler counts in ticks (TICK_NS): a quantum rounds up
 * to whole ticks, as Linux's to jiffies, and so do the period and runtime.
 */
#include "arch/x86_64/timer.h"
#include "fs/proc/proc_sys.h"
#include "lib/spinlock.h"
#include "sched/rt_tunables.h"
#include "sched/sched.h"
#include <uapi/errno.h>

#define RR_TIMESLICE_MS 100 /* Linux's RR_TIMESLICE */
#define TICK_US		(TICK_NS / 1000)

static int rr_timeslice_ms = RR_TIMESLICE_MS;
static int rt_period_us = 1000000, rt_runtime_us = 950000;
/* Linux's sysctl_sched_dl_period_min and _max: 100 us, 2^22 us (~4 s). */
static int dl_period_min_us = 100, dl_period_max_us = 1 << 22;

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

/* A CPU's share for real-time work of runtime_us in period_us. */
static uint64_t bandwidth_of(int period_us, int runtime_us)
{
	if (runtime_us < 0)
		return DL_BW_UNLIMITED;
	return ((uint64_t)runtime_us << DL_BW_SHIFT) / (uint64_t)period_us;
}

uint64_t rt_bandwidth_lock(void)
{
	spin_lock(&proc_sys_lock); /* the pair as one write left it */
	return bandwidth_of(rt_period_us, rt_runtime_us);
}

void rt_bandwidth_unlock(void)
{
	spin_unlock(&proc_sys_lock);
}

bool dl_period_allowed(uint64_t period_ns)
{
	spin_lock(&proc_sys_lock);
	bool ok = period_ns >= (uint64_t)dl_period_min_us * 1000 &&
		  period_ns <= (uint64_t)dl_period_max_us * 1000;
	spin_unlock(&proc_sys_lock);
	return ok;
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
 * Stores a write of row's int as proc_sys_int_store does, then keeps it
 * only if check() passes (0), else puts the old value back and returns
 * its -errno.  Under proc_sys_lock, so the writes of related rows are
 * checked and stored one at a time.
 */
static long store_checked(const struct proc_sys_row *row, const char *text, size_t len,
			  uint64_t *pos, int (*check)(void))
{
	int *v = row->data, old, err;
	long r;

	spin_lock(&proc_sys_lock);
	old = *v;
	r = proc_sys_int_store(row, text, len, pos);
	if (r > 0 && (err = check())) {
		__atomic_store_n(v, old, __ATOMIC_RELAXED);
		r = err;
	}
	spin_unlock(&proc_sys_lock);
	return r;
}

/* Linux's sched_rt_handler: the period at least 1, the runtime -1 or at
 * most the period, else EINVAL; EBUSY if the deadline tasks admitted
 * would no longer fit. */
static int rt_bandwidth_check(void)
{
	if (rt_period_us < 1 || (rt_runtime_us != -1 && rt_runtime_us > rt_period_us))
		return -EINVAL;
	return sched_dl_admits(bandwidth_of(rt_period_us, rt_runtime_us)) ? 0 : -EBUSY;
}

static long rt_bandwidth_store(const struct proc_sys_row *row, const char *text, size_t len,
			       uint64_t *pos)
{
	return store_checked(row, text, len, pos, rt_bandwidth_check);
}
PROC_SYS_ROW(rt_period_row, .path = "kernel/sched_rt_period_us", .mode = 0644,
	     .show = proc_sys_int_show, .store = rt_bandwidth_store, .data = &rt_period_us,
	     .min = 1, .max = INT32_MAX);
PROC_SYS_ROW(rt_runtime_row, .path = "kernel/sched_rt_runtime_us", .mode = 0644,
	     .show = proc_sys_int_show, .store = rt_bandwidth_store, .data = &rt_runtime_us,
	     .min = -1, .max = INT32_MAX);

/* The deadline periods' bounds: min at most max, as Linux's
 * proc_douintvec_minmax with each bounding the other. */
static int dl_period_check(void)
{
	return dl_period_min_us > dl_period_max_us ? -EINVAL : 0;
}

static long dl_period_store(const struct proc_sys_row *row, const char *text, size_t len,
			    uint64_t *pos)
{
	return store_checked(row, text, len, pos, dl_period_check);
}
PROC_SYS_ROW(dl_period_min_row, .path = "kernel/sched_deadline_period_min_us", .mode = 0644,
	     .show = proc_sys_int_show, .store = dl_period_store, .data = &dl_period_min_us,
	     .min = 0, .max = INT32_MAX);
PROC_SYS_ROW(dl_period_max_row, .path = "kernel/sched_deadline_period_max_us", .mode = 0644,
	     .show = proc_sys_int_show, .store = dl_period_store, .data = &dl_period_max_us,
	     .min = 0, .max = INT32_MAX);
