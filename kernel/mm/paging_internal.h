/*
 * The page tables' own parts (mm/paging.c, mm/vm_space.c,
 * mm/pte_protect.c): the walk and the entry helpers the three share.
 * Nothing else includes it.
 */
#ifndef MM_PAGING_INTERNAL_H
#define MM_PAGING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "mm/layout.h"
#include "mm/paging.h"

#define KERNEL_PML4_LO 256 /* first kernel-half PML4 entry */
#define TABLE_ENTRIES  512

/* A leaf entry that maps a frame: present, or a PROT_NONE page. */
static inline bool pte_mapped(uint64_t e)
{
	return e & (PTE_PRESENT | PTE_PROTNONE);
}

/* The table an entry points at, through the direct map. */
static inline uint64_t *table(uint64_t entry)
{
	return P2V(entry & PTE_ADDR);
}

static inline bool canonical(uint64_t va)
{
	return va < USER_END || in_kernel_half(va);
}

/* Panics unless [va, va+len) lies in as's own half. */
void pt_check_range(struct vm_space *as, uint64_t va, uint64_t len);
/* The entry of va at level leaf in *out: 0, -EFAULT, -EEXIST or -ENOMEM.
 * Caller holds the lock. */
int pt_walk(uint64_t pml4, uint64_t va, int leaf, bool create, uint64_t **out);
/* A leaf entry mapping va to pa with flags, as this CPU accepts them. */
uint64_t pt_make_entry(uint64_t va, uint64_t pa, uint64_t flags);
/* The next address after va whose level-leaf entry may exist.  Caller
 * holds the lock. */
uint64_t pt_next_candidate(struct vm_space *as, uint64_t va, int leaf);

#endif
