/*
 * Overcommit accounting (commit.h).  One system-wide count of charged
 * pages, moved atomically by every change to a process's charge
 * (mm/vma.c), is Linux's vm_committed_as.  The check and the charge are
 * two steps: a mapping made on another CPU between them may pass the
 * strict limit by its own size, as Linux's per-CPU counter may be off by
 * its batch.  There is no swap: RAM + swap is the frames the allocator
 * manages.  Strict mode keeps no reserves: neither Linux's admin reserve
 * (memory only CAP_SYS_ADMIN may take) nor its user reserve (a process's
 * size / 32, at most 128 MiB) is subtracted.
 */
#include "mm/commit.h"
#include "mm/frame.h"
#include "fs/proc/proc_sys.h"

int vm_overcommit_memory = OVERCOMMIT_GUESS;
int vm_overcommit_ratio = 50;
/* Linux's bounds: the mode 0..2, the ratio any int from 0. */
PROC_SYS_ROW(overcommit_memory_row, .path = "vm/overcommit_memory", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &vm_overcommit_memory,
	     .min = OVERCOMMIT_GUESS, .max = OVERCOMMIT_NEVER);
PROC_SYS_ROW(overcommit_ratio_row, .path = "vm/overcommit_ratio", .mode = 0644,
	     .show = proc_sys_int_show, .store = proc_sys_int_store, .data = &vm_overcommit_ratio,
	     .min = 0, .max = INT32_MAX);

static int64_t committed_as; /* pages, atomic */

uint64_t vm_commit_limit_pages(void)
{
	int ratio = __atomic_load_n(&vm_overcommit_ratio, __ATOMIC_RELAXED);

	return (uint64_t)frame_total_count() * (uint64_t)ratio / 100;
}

int64_t vm_committed_pages(void)
{
	int64_t n = __atomic_load_n(&committed_as, __ATOMIC_RELAXED);

	return n > 0 ? n : 0;
}

bool vm_commit_allowed(int64_t pages)
{
	if (pages <= 0)
		return true;
	switch (__atomic_load_n(&vm_overcommit_memory, __ATOMIC_RELAXED)) {
	case OVERCOMMIT_ALWAYS:
		return true;
	case OVERCOMMIT_NEVER: /* Linux's test, on the count with pages added */
		return (uint64_t)(vm_committed_pages() + pages) < vm_commit_limit_pages();
	default: /* the heuristic: only an obviously impossible request */
		return (uint64_t)pages <= frame_total_count();
	}
}

void vm_commit_add(int64_t pages)
{
	if (pages)
		__atomic_add_fetch(&committed_as, pages, __ATOMIC_RELAXED);
}
