/*
 * A process's resource limits (getrlimit, setrlimit, prlimit64): stored in
 * its thread group, inherited by fork, kept by exec, as Linux's
 * signal->rlim.  RLIMIT_NOFILE lives in the files table, which enforces it
 * (fd/fdtable.c).  Which limits the kernel enforces, and how, is in
 * docs/processes.md ("Limits").
 */
#ifndef PROC_RLIMIT_H
#define PROC_RLIMIT_H

#include <stddef.h>
#include <stdint.h>
#include <uapi/resource.h>

struct thread_group;

/*
 * RLIMIT_SIGPENDING's default and ceiling: signals queued with their
 * information and POSIX timers, all processes together (Linux: per user).
 * Root may not raise it past the ceiling (EPERM, as RLIMIT_NOFILE past
 * nr_open), so the queued signals of the whole system stay bounded.
 */
#define SIGPENDING_MAX 8192

/* g's limits: its parent's (the creating task's process), or the
 * defaults for the first process. */
void rlimit_inherit(struct thread_group *g, const struct thread_group *parent);
struct files_table;
struct rlimit;
/* Limit res (< RLIM_NLIMITS) of process g, whose files table is files
 * (RLIMIT_NOFILE is the table's): /proc/<pid>/limits. */
void rlimit_of(const struct thread_group *g, struct files_table *files, unsigned int res,
	       struct rlimit *r);
/* g's soft limit of res (res < RLIM_NLIMITS, not RLIMIT_NOFILE): read
 * without a lock, as Linux's task_rlimit. */
uint64_t rlimit_soft(const struct thread_group *g, unsigned int res);

/*
 * RLIMIT_FSIZE of the calling process for a write of *len bytes at pos in
 * a regular file: *len cut to end at the limit, or -EFBIG with SIGXFSZ to
 * the caller when pos is at or past it (Linux's
 * generic_write_check_limits).  rlimit_fsize_grow: the same for making a
 * file size bytes long (truncate, fallocate): past the limit, -EFBIG and
 * SIGXFSZ.  Kernel threads have no limit.
 */
long rlimit_fsize_write(uint64_t pos, size_t *len);
long rlimit_fsize_grow(uint64_t size);

#endif
