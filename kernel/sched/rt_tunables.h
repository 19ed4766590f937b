/* The real-time class's tunables (/proc/sys/kernel), in ticks. */
#ifndef SCHED_RT_TUNABLES_H
#define SCHED_RT_TUNABLES_H

#include <stdbool.h>
#include <stdint.h>

/* SCHED_RR's quantum (sched_rr_timeslice_ms), at least one tick. */
int rr_quantum_ticks(void);
/* The throttling period (sched_rt_period_us), at least one tick. */
int rt_period_ticks(void);
/* What real-time tasks may use of each period on a CPU
 * (sched_rt_runtime_us): -1 for no limit. */
int rt_runtime_ticks(void);

/* A CPU's share, in units of 1 << DL_BW_SHIFT for all of it (Linux's
 * BW_SHIFT); DL_BW_UNLIMITED: sched_rt_runtime_us is -1. */
#define DL_BW_SHIFT	20
#define DL_BW_UNLIMITED UINT64_MAX
/* The share of each CPU that real-time work may use: what the deadline
 * class is admitted up to.  It stays until rt_bandwidth_unlock (the
 * tunables' lock is held: take sched_lock only inside it). */
uint64_t rt_bandwidth_lock(void);
void rt_bandwidth_unlock(void);
/* Whether a SCHED_DEADLINE period is within
 * sched_deadline_period_min_us..max_us. */
bool dl_period_allowed(uint64_t period_ns);

#endif
