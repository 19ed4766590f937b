/*
 * A memory budget: the bytes of kernel memory one kind of object that
 * user space makes may hold system-wide, a fixed share of the frames
 * (System V IPC's, io_uring's).  Past it the kind's allocations fail as
 * they would out of memory, and the rest of the kernel keeps its own.
 */
#ifndef MM_BUDGET_H
#define MM_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include "mm/frame.h"
#include "mm/layout.h"

struct mem_budget {
	size_t used;	   /* bytes charged (atomic) */
	unsigned int part; /* the budget is 1/part of the frames */
};

static inline void mem_budget_uncharge(struct mem_budget *b, size_t bytes)
{
	__atomic_sub_fetch(&b->used, bytes, __ATOMIC_RELAXED);
}

/* Charges bytes: false, and nothing charged, past the budget. */
static inline bool mem_budget_charge(struct mem_budget *b, size_t bytes)
{
	size_t limit = frame_total_count() / b->part * PAGE_SIZE;

	if (__atomic_add_fetch(&b->used, bytes, __ATOMIC_RELAXED) <= limit)
		return true;
	mem_budget_uncharge(b, bytes);
	return false;
}

static inline size_t mem_budget_used(struct mem_budget *b)
{
	return __atomic_load_n(&b->used, __ATOMIC_RELAXED);
}

#endif
