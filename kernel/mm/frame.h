/*
 * Physical frame allocator: hands out 4 KiB frames of usable RAM in O(1) and
 * keeps a reference count per frame so copy-on-write can share them.
 */
#ifndef MM_FRAME_H
#define MM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Builds the free list from boot_info: usable RAM minus reserved ranges, the
 * kernel image, frame 0 and the first MiB.  Runs once, before paging_init. */
void frame_init(void);

/*
 * What an allocated frame serves as.  A page table or a heap page is
 * tagged so while it serves: frame_unref of its one reference panics,
 * naming the caller.  A stale reference dropped twice (a double
 * kfree of a page, say) would otherwise free a live page table, whose
 * next owner zeroes it, unmapping what it mapped under every CPU, far
 * from the bug.  Its owner frees it by kind (frame_free_kind), or sets it
 * plain before a deferred drop.
 */
enum frame_kind {
	FRAME_PLAIN,	 /* user pages, file pages, kernel stacks, slabs: refcounted */
	FRAME_TABLE,	 /* a page table (paging.c) */
	FRAME_HEAP_PAGE, /* a page-sized kmalloc (heap.c) */
};

/* A free frame of kind k with reference count 1 (contents undefined), or 0
 * when no memory is left; the z variant fills it with zeroes. */
uint64_t frame_alloc_kind(enum frame_kind k);
uint64_t frame_zalloc_kind(enum frame_kind k);

static inline uint64_t frame_alloc(void)
{
	return frame_alloc_kind(FRAME_PLAIN);
}

static inline uint64_t frame_zalloc(void)
{
	return frame_zalloc_kind(FRAME_PLAIN);
}

/* Frees a frame of kind k that has no other reference; panics if it is
 * not one (a stale pointer). */
void frame_free_kind(uint64_t pa, enum frame_kind k);
/* Adds a reference to an allocated frame (a second mapping of it). */
void frame_ref(uint64_t pa);
/* Drops a reference; the frame returns to the free list at zero.  Panics on
 * a frame that is already free.  Frames the allocator does not manage (MMIO,
 * reserved RAM) are ignored by both calls, so any mapping can be dropped. */
void frame_unref(uint64_t pa);
/* Changes an allocated, unshared frame's kind; panics unless it was from. */
void frame_set_kind(uint64_t pa, enum frame_kind from, enum frame_kind to);
/* True if pa is allocated and of kind k: a lockless glance, exact for a
 * frame the caller owns (and safe in a crash report). */
bool frame_is_kind(uint64_t pa, enum frame_kind k);

/* References held on the frame: 0 if free or not managed. */
uint32_t frame_refcount(uint64_t pa);
/* One past the highest frame number of RAM (/proc/kpageflags's end). */
uint64_t frame_pfn_end(void);

/* Free frames now, and frames the allocator manages in all (leak checks). */
size_t frame_free_count(void);
size_t frame_total_count(void);

/*
 * The reserve: frames that allocations able to fail politely (mmap and brk
 * with ENOMEM, ramfs file data with ENOSPC) leave free.  Page tables, kernel
 * stacks, the heap, execve and page faults may use them, so a shell can
 * still start `rm` when user memory or the ramfs is full.
 */
size_t frame_reserve(void);
/* True if n more frames can be taken without touching the reserve. */
bool frame_spare(size_t n);

/* True if the allocator may hand out this frame (usable, not reserved). */
bool frame_is_managed(uint64_t pa);

#endif
