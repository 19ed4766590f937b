/*
 * TLB shootdown for paging.c (mm/tlb.h): what a change of a space's
 * entries must drop from this and the other CPUs' TLBs, and when the
 * frames it freed may be reused.
 */
#include "mm/tlb.h"
#include "arch/x86_64/cpu.h"
#include "arch/x86_64/smp.h"
#include "mm/frame.h"
#include "mm/layout.h"

/* Above this many pages a shootdown reloads the whole TLB. */
#define FLUSH_PAGES_MAX 32

/* Drops a changed entry from this CPU's TLB.  Kernel-half and global
 * entries may be cached whichever space is loaded.  Other CPUs: see
 * struct tlb_gather. */
static void flush(struct vm_space *as, uint64_t va)
{
	if (in_kernel_half(va) || loaded(as))
		invlpg(va);
}

void gather_init(struct tlb_gather *g, struct vm_space *as)
{
	g->range = (struct tlb_range){.as = as, .start = ~0UL, .end = 0};
	g->nframes = 0; /* frames[] is not cleared: every unmap would pay for it */
}

/* Other CPUs that may cache entries of as at va. */
static uint32_t other_cpus(struct vm_space *as, uint64_t va)
{
	if (smp_cpus_online == 1)
		return 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* entries written, then the mask read */
	uint32_t cpus =
	    in_kernel_half(va) ? smp_online_mask : __atomic_load_n(&as->cpus, __ATOMIC_RELAXED);
	return cpus & ~(1u << this_cpu()->id);
}

/* Drops [start, end) from this CPU's TLB (global entries too). */
static void flush_local(uint64_t start, uint64_t end)
{
	if ((end - start) / PAGE_SIZE <= FLUSH_PAGES_MAX) {
		for (uint64_t a = start; a < end; a += PAGE_SIZE)
			invlpg(a);
	} else if (in_kernel_half(start)) {
		uint64_t cr4 = read_cr4();
		write_cr4(cr4 & ~CR4_PGE); /* toggling PGE drops global entries */
		write_cr4(cr4);
	} else {
		write_cr3(read_cr3());
	}
}

/* On the called CPU (interrupt context): its part of gather_flush. */
static void flush_remote(void *arg)
{
	const struct tlb_range *r = arg;

	/* A CPU that left the space since reloaded CR3: nothing to drop. */
	if (in_kernel_half(r->start) || this_cpu()->vm == r->as)
		flush_local(r->start, r->end);
}

/* Flushes the range from the other CPUs, then frees the frames. */
void gather_flush(struct tlb_gather *g)
{
	struct tlb_range *r = &g->range;

	if (r->start < r->end) {
		uint32_t cpus = other_cpus(r->as, r->start);
		if (cpus)
			smp_call_many(cpus, flush_remote, r);
	}
	for (int i = 0; i < g->nframes; i++)
		frame_unref(g->frames[i]);
	gather_init(g, r->as);
}

/* The entry of page va changed (and left this CPU's TLB). */
void gather_page(struct tlb_gather *g, uint64_t va)
{
	flush(g->range.as, va);
	if (va < g->range.start)
		g->range.start = va;
	if (va + PAGE_SIZE > g->range.end)
		g->range.end = va + PAGE_SIZE;
}

/* The entry of page va, which mapped frame pa, was cleared: pa's reference
 * is dropped once no CPU can reach it. */
void gather_frame(struct tlb_gather *g, uint64_t va, uint64_t pa)
{
	if (g->nframes == GATHER_FRAMES)
		gather_flush(g); /* under the caller's lock: fine, see smp_call_many */
	gather_page(g, va);
	if (other_cpus(g->range.as, va))
		g->frames[g->nframes++] = pa;
	else
		frame_unref(pa);
}
