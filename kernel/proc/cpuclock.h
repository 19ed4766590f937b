/*
 * CPU-time clocks: CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID and
 * the clock ids clock_getcpuclockid and pthread_getcpuclockid make for
 * another process or thread (Linux's encoding: the pid in the high bits,
 * negated; the thread bit; which of PROF, VIRT, SCHED).  Their time is
 * what the tick charged, so their resolution is the tick.
 */
#ifndef PROC_CPUCLOCK_H
#define PROC_CPUCLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <uapi/time.h>

#define CPUCLOCK_PROF	      0 /* user and system time */
#define CPUCLOCK_VIRT	      1 /* user time */
#define CPUCLOCK_SCHED	      2 /* run time: user and system here */
#define CPUCLOCK_WHICH(c)     ((c)&3)
#define CPUCLOCK_PERTHREAD(c) (((c)&4) != 0)
#define CPUCLOCK_PID(c)	      ((int)~((c) >> 3))

/* clk is a CPU-time clock id, valid or not (2, 3, or negative and not a
 * clock fd's). */
bool cpuclock_id(int clk);
/* The time of CPU clock clk in ns: 0, or -EINVAL for no such task (a
 * thread of another process, a process id that is not a leader's). */
int cpuclock_read(int clk, uint64_t *ns);
/* The thread clock clk names the caller's own thread (clock_nanosleep
 * refuses to sleep on it, as Linux). */
bool cpuclock_is_own_thread(int clk);
/* The clock of a process (thread false) or thread, and which of
 * CPUCLOCK_*, for the static ids 2 and 3 as for the encoded ones. */
int cpuclock_normalise(int clk);

#endif
