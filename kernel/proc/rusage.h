/*
 * Resource usage: getrusage(2) and the rusage wait4/waitid return.  The
 * CPU times (in timer ticks) and the high-water resident size are
 * counted; the other fields are 0.
 */
#ifndef PROC_RUSAGE_H
#define PROC_RUSAGE_H

#include <stddef.h>
#include <stdint.h>

struct thread_group;

/* CPU ticks of a process: its threads, live and exited (proc_lock held). */
void group_cpu_ticks_locked(struct thread_group *g, uint64_t *uticks, uint64_t *sticks);
/* Writes Linux's struct rusage with these CPU times and maxrss (pages)
 * to urusage: 0 or -EFAULT. */
int put_rusage(void *urusage, uint64_t uticks, uint64_t sticks, size_t maxrss);

#endif
