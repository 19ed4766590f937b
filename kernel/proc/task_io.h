/*
 * Per-thread I/O accounting, Linux's task_io_accounting, which
 * /proc/<pid>/io and /proc/<pid>/task/<tid>/io show: bytes the read and
 * write calls moved and how many calls there were (rchar, wchar, syscr,
 * syscw), bytes the thread made the page cache fetch from a disk
 * (read_bytes) or dirty for one (write_bytes), and dirty bytes its
 * truncations threw away (cancelled_write_bytes).  A thread adds only to
 * its own (no lock: relaxed stores); /proc reads them with relaxed loads,
 * and an exiting thread's go to its process (thread_group.exited_io).
 */
#ifndef PROC_TASK_IO_H
#define PROC_TASK_IO_H

#include <stdint.h>

struct task_io {
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled_write_bytes;
};

/* Adds n to the caller's counter c (a field of task_io_current(),
 * proc/task.h). */
static inline void task_io_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* *sum += *io, each counter read once. */
static inline void task_io_sum(struct task_io *sum, const struct task_io *io)
{
	const uint64_t *from = (const uint64_t *)io;
	uint64_t *to = (uint64_t *)sum;

	for (unsigned int i = 0; i < sizeof(*io) / sizeof(uint64_t); i++)
		to[i] += __atomic_load_n(&from[i], __ATOMIC_RELAXED);
}

#endif
