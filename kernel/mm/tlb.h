/* TLB shootdown, for paging.c only (mm/tlb.c). */
#ifndef MM_TLB_H
#define MM_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/cpu.h"
#include "mm/paging.h"

/*
 * TLB shootdown.  An operation that removes or downgrades entries of a
 * space gathers the range it changed and the frames it freed, and ends
 * with gather_flush: one cross-CPU call to every other CPU that has the
 * space loaded (any online CPU for the kernel half), which drops the
 * range from its TLB, and only then are the frames unreferenced, so no
 * CPU reaches a frame through a stale entry after it is reused.  The
 * frames of a space loaded nowhere else are freed at once (the usual case
 * with one CPU, which then costs no call at all).
 *
 * The race with a CPU that loads the space meanwhile: vm_switch sets its
 * bit (an atomic read-modify-write, a full barrier) before it writes CR3,
 * and other_cpus reads the mask after the entries changed and a full
 * barrier, so either the mask shows the CPU or its walk sees the new
 * entries.
 */
#define GATHER_FRAMES 64

struct tlb_range {
	struct vm_space *as;
	uint64_t start, end; /* [start, end): the entries changed */
};

struct tlb_gather {
	struct tlb_range range;
	uint64_t frames[GATHER_FRAMES]; /* unreferenced after the flush */
	int nframes;
};

/* Whether as is this CPU's current space (CR3). */
static inline bool loaded(const struct vm_space *as)
{
	return (read_cr3() & PTE_ADDR) == as->pml4;
}

void gather_init(struct tlb_gather *g, struct vm_space *as);
/* Flushes the range from the other CPUs, then frees the frames. */
void gather_flush(struct tlb_gather *g);
/* The entry of page va changed (and left this CPU's TLB). */
void gather_page(struct tlb_gather *g, uint64_t va);
/* The entry of page va, which mapped frame pa, was cleared: pa's reference
 * is dropped once no CPU can reach it. */
void gather_frame(struct tlb_gather *g, uint64_t va, uint64_t pa);

#endif
