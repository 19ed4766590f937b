/*
 * /proc/<pid>/pagemap (Linux's pagemap_read, Documentation/admin-guide/
 * mm/pagemap.rst): one 64-bit entry per virtual page, the entry of page
 * N at offset 8 * N, up to the top of user space (then EOF).  An entry:
 * bit 63 the page is mapped (PROT_NONE ones too, as Linux's pte_present),
 * bits 0-54 its frame number (to a reader with CAP_SYS_ADMIN only, 0 for
 * anyone else: physical addresses help attacks such as rowhammer; Linux
 * asks the opener, this the reader), 56 the page is mapped once (its map count
 * as smaps counts it), 61 a file's page or shared anonymous memory
 * (Linux's shmem; a private copy is anonymous).  No swap (62), no
 * soft-dirty tracking (55), no userfaultfd (57): those read 0.  An
 * unmapped page reads 0.  Reads start and end on entries (EINVAL), and
 * are made chunk by chunk under the uvm lock, then copied out without it
 * (proc_words_read, mm/kpageflags.c).
 * The file holds the pid only (fs/proc/proc_pid.c's rule): each chunk looks
 * the process up again, where Linux's keeps the address space it opened.
 */
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/kpageflags.h"
#include "mm/paging.h"
#include "proc/pid_info.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "proc/cred.h"
#include "sched/sched.h"
#include <uapi/errno.h>

#define PM_PFN_MASK	  ((1ULL << 55) - 1)
#define PM_MMAP_EXCLUSIVE (1ULL << 56)
#define PM_FILE		  (1ULL << 61)
#define PM_PRESENT	  (1ULL << 63)

/* A chunk of entries for the pages from start on, and the vma walked. */
struct pm_chunk {
	uint64_t start;
	size_t n;
	uint64_t *out; /* n entries, zeroed */
	const struct vma *v;
	bool show_pfn;
};

/* vm_walk_mapped's callback: the entry of a mapped page. */
static void pm_page(void *arg, uint64_t va, uint64_t pte)
{
	struct pm_chunk *c = arg;
	uint64_t pa = pte & PTE_ADDR, e = PM_PRESENT;
	bool file;

	if (c->show_pfn)
		e |= (pa >> PAGE_SHIFT) & PM_PFN_MASK;
	if (vma_page_mapcount(c->v, va, pa, &file) == 1)
		e |= PM_MMAP_EXCLUSIVE;
	if (file || (c->v->flags & VMA_SHARED))
		e |= PM_FILE;
	c->out[(va - c->start) / PAGE_SIZE] = e;
}

/* proc_pid_uvm_call's fn: fills the chunk from u's mappings. */
static long pm_fill(struct uvm *u, void *arg)
{
	struct pm_chunk *c = arg;
	uint64_t end = c->start + c->n * PAGE_SIZE;

	spin_lock(&u->lock);
	for (struct vma *v = vma_find(u, c->start); v && v->start < end; v = vma_next(u, v)) {
		c->v = v;
		vm_walk_mapped(u->space, v->start > c->start ? v->start : c->start,
			       v->end < end ? v->end : end, pm_page, c);
	}
	spin_unlock(&u->lock);
	return 1;
}

/* What a read asks of pm_words: whose pages, and whether frames show. */
struct pm_reader {
	int pid;
	bool show_pfn;
};

/* proc_words_read's fill: entries from page first on, from the process
 * looked up again (ESRCH when gone, 0 when it has no address space). */
static long pm_words(void *arg, uint64_t first, size_t n, uint64_t *out)
{
	struct pm_reader *r = arg;
	struct pm_chunk c = {
	    .start = first * PAGE_SIZE, .n = n, .out = out, .show_pfn = r->show_pfn};

	return proc_pid_uvm_call(r->pid, pm_fill, &c);
}

long proc_pagemap_read(int pid, struct iov_iter *to, uint64_t *pos)
{
	struct pm_reader r = {.pid = pid, .show_pfn = capable(CAP_SYS_ADMIN)};

	return proc_words_read(to, pos, USER_STACK_TOP / PAGE_SIZE, pm_words, &r);
}
