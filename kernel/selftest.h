/* The in-kernel self-tests run by the `test` command-line word. */
#ifndef SELFTEST_H
#define SELFTEST_H

/* Runs every self-test, prints "N passed, N failed"; returns the failures. */
int selftest_run(void);

/* Interrupt entry clears RFLAGS.AC (arch/x86_64/entry_selftest.c). */
void entry_selftest(void);

/* The timer heap's order, re-arming and cancel (sched/ktimer_selftest.c). */
void ktimer_selftest(void);
/* The reaper's wait for a task's CPU to switch away (proc/task_selftest.c). */
void task_handshake_selftest(void);
/* No timer refers to a task after sched_exit (proc/task_selftest.c). */
void task_exit_timers_selftest(void);
/* ... nor while its callback runs as another CPU exits it (the same). */
void task_exit_running_timer_selftest(void);

/* The engine's worker slots, a worker exiting during a spawn
 * (async/async_worker.c). */
void async_slots_selftest(void);

#endif
