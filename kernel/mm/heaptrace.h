/*
 * Where each live heap allocation and each allocated page frame was made:
 * the kmalloc or frame_alloc caller's chain of return addresses, kept while
 * tracing is on (test mode, or the boot word `heaptrace`).  When a leak
 * check finds heap bytes or frames missing, the report names the
 * allocations made since the check's first reading that are still live:
 * the leaker is among them.  A frame is keyed by its physical address,
 * which is never a heap pointer (those are kernel-half addresses).
 */
#ifndef MM_HEAPTRACE_H
#define MM_HEAPTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEAPTRACE_FRAMES 6

/* One live allocation. */
struct heap_site {
	uint64_t ptr;			/* a heap pointer, or a frame's physical address */
	uint64_t serial;		/* the allocation's number, counted from 1 */
	uint32_t size;			/* as requested */
	uint32_t ret[HEAPTRACE_FRAMES]; /* return addresses, less KERNEL_VMA; 0 ends */
};

extern bool heaptrace_on;

/* Allocates the table and turns tracing on (at boot, before any reading). */
void heaptrace_start(void);
/* For kmalloc, after it allocated ptr, and kfree, before it frees ptr: so
 * a pointer is forgotten before another CPU can be handed it again.  rbp
 * is kmalloc's own frame (the chain starts at its caller).  The frame
 * allocator passes a frame's physical address as ptr, in the same order
 * (after the allocation, before the free list takes it back). */
void heaptrace_add(const void *ptr, size_t size, uint64_t rbp);
void heaptrace_del(const void *ptr);
/* Allocations made so far: a reading to pass to heaptrace_report later. */
uint64_t heaptrace_serial(void);
/* Copies at most max of the allocations made after serial since that are
 * still live, oldest first, into out; returns how many there are in all. */
size_t heaptrace_collect(uint64_t since, struct heap_site *out, size_t max);
/* Prints them, symbolised (the leak check's report). */
void heaptrace_report(uint64_t since);

#endif
