/*
 * Memory overcommit (Linux's vm.overcommit_memory and Committed_AS): the
 * private writable memory processes have mapped, charged when a mapping
 * is made or grows, whether or not its pages were touched, against a
 * policy.  Pages themselves come on first touch; when frames run out
 * there, the OOM killer decides (mm/oom.c).  docs/memory.md, "Overcommit".
 */
#ifndef MM_COMMIT_H
#define MM_COMMIT_H

#include <stdbool.h>
#include <stdint.h>

/* vm_overcommit_memory's values, Linux's. */
#define OVERCOMMIT_GUESS  0 /* refuse only a mapping larger than RAM + swap */
#define OVERCOMMIT_ALWAYS 1 /* never refuse */
#define OVERCOMMIT_NEVER  2 /* strict: Committed_AS may not pass CommitLimit */

/*
 * The policy, /proc/sys/vm/overcommit_memory (0..2), and the share of RAM
 * strict mode allows, /proc/sys/vm/overcommit_ratio (percent, Linux's
 * default 50): written by those files (atomic stores), read with relaxed
 * atomic loads at each charge, so a change applies to the next mapping,
 * never to the charges already made.
 */
extern int vm_overcommit_memory;
extern int vm_overcommit_ratio;

/* Whether the policy lets pages more be charged (Linux's
 * __vm_enough_memory); pages <= 0 always may. */
bool vm_commit_allowed(int64_t pages);
/* Committed_AS += pages (negative: the charge given back). */
void vm_commit_add(int64_t pages);
/* Committed_AS and CommitLimit, in pages, for /proc/meminfo. */
int64_t vm_committed_pages(void);
uint64_t vm_commit_limit_pages(void);

#endif
