/*
 * What the tick does for CPU time: it counts down the POSIX timers of
 * CPU-time clocks and enforces RLIMIT_CPU (SIGXCPU at the soft limit and
 * each second after it, SIGKILL at the hard one), for the process of the
 * task it charged.  A process with neither costs the tick one load.
 */
#ifndef PROC_CPU_TIMER_H
#define PROC_CPU_TIMER_H

#include <stdbool.h>

struct task;
struct posix_timer;

/* The tick charged t (running) with one tick. */
void cpu_timers_tick(struct task *t);
/* pt, a CPU timer of its group, was armed or disarmed (siglock held):
 * the tick looks at the group's timers while any is armed. */
void cpu_timer_armed_locked(struct posix_timer *pt, bool armed);
/* The current value of pt's clock in ns (proc_lock held). */
unsigned long cpu_timer_clock_locked(const struct posix_timer *pt);

#endif
