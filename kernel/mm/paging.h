/*
 * Paging: the kernel's final page tables and address spaces (struct
 * vm_space) with map, unmap, translate, copy-on-write fork and switch.
 */
#ifndef MM_PAGING_H
#define MM_PAGING_H

#include <stddef.h>
#include <stdint.h>

#include "lib/spinlock.h"

/* Page-table entry bits (Intel SDM vol. 3, 4.5). */
#define PTE_PRESENT  (1UL << 0)
#define PTE_WRITE    (1UL << 1)
#define PTE_USER     (1UL << 2)
#define PTE_PWT	     (1UL << 3)
#define PTE_PCD	     (1UL << 4) /* cache disable: MMIO */
#define PTE_ACCESSED (1UL << 5)
#define PTE_DIRTY    (1UL << 6)
#define PTE_HUGE     (1UL << 7) /* 2 MiB / 1 GiB page in a PD / PDPT entry */
#define PTE_GLOBAL   (1UL << 8)
#define PTE_COW	     (1UL << 9)	 /* software: read-only until a write copies it */
#define PTE_SHARED   (1UL << 10) /* software: MAP_SHARED, fork shares it writable */
/* software: a PROT_NONE user page.  The entry is not present, so every access
 * faults (the kernel's user copies too), but it keeps its frame and flags. */
#define PTE_PROTNONE (1UL << 11)
#define PTE_NX	     (1UL << 63)
#define PTE_ADDR     0x000ffffffffff000UL
#define PTE_FLAGS    (~PTE_ADDR)

/*
 * An address space: a PML4 whose kernel half (entries 256..511) points at the
 * same page-directory-pointer tables as every other space, so kernel mappings
 * appear everywhere at once.  Each user mapping owns one reference to its
 * frame (see frame_ref); vm_destroy drops them.
 *
 * lock protects the user half of this space's page tables.  The kernel half
 * is protected by the kernel space's lock, whichever space it is reached
 * through.  Lock order: vm_space lock, then frame_lock.
 */
struct vm_space {
	uint64_t pml4; /* physical address */
	struct spinlock lock;
	/* CPUs that have it in CR3 (bit n: CPU n), for TLB shootdown: set by
	 * vm_switch before the CR3 load, cleared after the next one. */
	uint32_t cpus;
	/* User pages mapped (PROT_NONE ones too) and the most there have
	 * been (Linux's hiwater_rss): changed under lock as leaf entries of
	 * the user half come and go; read without it. */
	size_t rss, hiwater_rss;
};

/* Enables NX and global pages, builds the kernel tables (text R+X, rodata R,
 * data RW+NX, direct map RW+NX) and switches to them.  After frame_init. */
void paging_init(void);

/* The kernel's own space: no user half; kernel threads run in it. */
struct vm_space *vm_kernel(void);
/* A new space with an empty user half, or NULL when memory runs out. */
struct vm_space *vm_create(void);
/* Frees the user half's tables and drops the references its mappings hold.
 * The space must not be loaded on any CPU. */
void vm_destroy(struct vm_space *as);
/* Loads the space into CR3 (flushes the user half of the TLB). */
void vm_switch(struct vm_space *as);

/*
 * Maps the 4 KiB page at va to frame pa with flags (PTE_WRITE, PTE_USER,
 * PTE_NX, PTE_COW, PTE_SHARED, PTE_PROTNONE, PTE_PCD ...; PTE_PRESENT is
 * implied unless PTE_PROTNONE is given, PTE_GLOBAL added in the kernel half).  Takes over one
 * reference to pa.  Returns 0, -EINVAL (unaligned, non-canonical, PTE_USER in the kernel half),
 * -EEXIST (already mapped, also by a huge page) or -ENOMEM (no frame for a table; nothing changed).
 */
int map_page(struct vm_space *as, uint64_t va, uint64_t pa, uint64_t flags);
/* Removes the 4 KiB mapping at va and flushes it from the TLB.  Returns the
 * frame it mapped, whose reference passes to the caller, or 0 if none. */
uint64_t unmap_page(struct vm_space *as, uint64_t va);
/* Prints the walk of va under the page tables at pml4 (a physical
 * address, CR3's): each level's entry and what the allocator says of the
 * table it points to (Linux's dump_pagetable), for fault reports.  Reads
 * without a lock: the report of a crash, not a lookup. */
void vm_print_walk(uint64_t pml4, uint64_t va);
/* Looks an accessible (present) va up: 0 and the physical address (with va's page offset) in *pa
 * and the entry's flags in *flags (either may be NULL), or -EFAULT if unmapped. */
int translate(struct vm_space *as, uint64_t va, uint64_t *pa, uint64_t *flags);
/*
 * The user word at va (4-byte aligned, in the user half) through the
 * direct map if its page is present, user and, for write, writable: the
 * pointer, with as's lock held until vm_user_word_unlock; else NULL,
 * unlocked.  Meanwhile no CPU can unmap the page (and free its frame),
 * fork the space or break its copy-on-write, so an access through the
 * pointer is one the page tables agree with: what futexes need on SMP.
 * Nothing that takes a lock before the space's may run in between.
 */
uint32_t *vm_user_word_lock(struct vm_space *as, uint64_t va, bool write);
static inline void vm_user_word_unlock(struct vm_space *as)
{
	spin_unlock(&as->lock);
}

/* Maps [va, va+len) to fresh zeroed frames; on -ENOMEM (or any error) maps
 * nothing.  The range must be page aligned and unmapped. */
int vm_map_anon(struct vm_space *as, uint64_t va, uint64_t len, uint64_t flags);
/* Unmaps every 4 KiB page in [va, va+len) and drops its frame reference. */
void vm_unmap_range(struct vm_space *as, uint64_t va, uint64_t len);
/* The same for n ranges of as, with one TLB shootdown for them all. */
struct vm_extent {
	uint64_t va, len;
};
void vm_unmap_ranges(struct vm_space *as, const struct vm_extent *r, int n);

/*
 * Gives every mapped page of the user range [va, va+len) the protection
 * flags (PTE_USER, PTE_WRITE, PTE_NX, PTE_PROTNONE), keeping its frame and
 * whether it is PTE_SHARED; pages not mapped yet stay so.  A private page
 * whose frame has other owners gets PTE_COW instead of PTE_WRITE.
 */
void vm_protect(struct vm_space *as, uint64_t va, uint64_t len, uint64_t flags);
/*
 * mremap: moves the pages mapped in [from, from+len) to the same offsets
 * in [to, to+len), which holds none (the ranges do not overlap), frames
 * and flags unchanged.  0, or -ENOMEM (no frame for a table) with
 * nothing moved.
 */
int vm_move_range(struct vm_space *as, uint64_t from, uint64_t to, uint64_t len);

/* Whether the user page at va is mapped (PROT_NONE ones too). */
bool vm_page_mapped(struct vm_space *as, uint64_t va);
/* The first page of [va, end) (va page aligned) that is mapped, or end:
 * costs what is mapped there, not the range's size (a core dump's walk). */
uint64_t vm_next_mapped(struct vm_space *as, uint64_t va, uint64_t end);

/* Calls fn(arg, page, entry) for each page mapped in [va, end) (va page
 * aligned; PROT_NONE ones too), in address order, under the space's lock:
 * fn may not sleep nor take a lock ordered before it (an inode's is after).
 * Costs what is mapped there (/proc/<pid>/smaps' walk). */
void vm_walk_mapped(struct vm_space *as, uint64_t va, uint64_t end,
		    void (*fn)(void *arg, uint64_t va, uint64_t pte), void *arg);

/* User pages mapped in the space (PROT_NONE ones too; a frame shared with
 * other spaces counts in each): its resident size, for the OOM killer. */
size_t vm_resident_pages(struct vm_space *as);
/* The most user pages it has had mapped at once, fork's copy included
 * (getrusage's ru_maxrss, VmHWM). */
size_t vm_hiwater_pages(struct vm_space *as);

/*
 * fork: a new space whose user half maps the same frames as src; writable
 * private pages become read-only PTE_COW in both, PTE_SHARED pages stay as
 * they are, and each frame gains a reference.  NULL on -ENOMEM (src stays valid: its COW pages
 * resolve on the next write).
 */
struct vm_space *vm_fork(struct vm_space *src);
/* Resolves a write fault at va on a PTE_COW page: the last owner keeps the
 * frame, others get a private copy.  0 (also if another thread made it
 * writable first), -EFAULT (not a COW page) or -ENOMEM. */
int vm_resolve_cow(struct vm_space *as, uint64_t va);
/* Dirty tracking of shared file pages (mm/rmap.h).  mkclean: the entry
 * of va, if it maps frame pa writable, becomes read-only and clean, shot
 * down on the other CPUs.  mkwrite: the present shared entry of va
 * becomes writable (an upgrade: a CPU holding the old one faults and
 * retries); false when va is not mapped so. */
void vm_page_mkclean(struct vm_space *as, uint64_t va, uint64_t pa);
bool vm_page_mkwrite(struct vm_space *as, uint64_t va);

#endif
