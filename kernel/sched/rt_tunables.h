/* The real-time class's tunables (/proc/sys/kernel), in ticks. */
#ifndef SCHED_RT_TUNABLES_H
#define SCHED_RT_TUNABLES_H

/* SCHED_RR's quantum (sched_rr_timeslice_ms), at least one tick. */
int rr_quantum_ticks(void);
/* The throttling period (sched_rt_period_us), at least one tick. */
int rt_period_ticks(void);
/* What real-time tasks may use of each period on a CPU
 * (sched_rt_runtime_us): -1 for no limit. */
int rt_runtime_ticks(void);

#endif
