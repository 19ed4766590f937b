/*
 * The page cache's own parts (mm/filemap.c, mm/filemap_write.c): the
 * pages and the helpers both files use.  Nothing else includes it.
 */
#ifndef MM_FILEMAP_INTERNAL_H
#define MM_FILEMAP_INTERNAL_H

#include "mm/filemap.h"
#include "lib/spinlock.h"
#include "sched/wait.h"

/* A cached page of a file. */
struct page {
	/* Under pagecache_lock: the file, or NULL once the page left the
	 * cache (truncated, reclaimed, a failed read): freed at the last
	 * reference then. */
	struct address_space *mapping;
	uint64_t index; /* page index in the file: constant */
	uint64_t pa;	/* its frame (one reference the page's): constant */
	/* Under pagecache_lock: one for being cached, one per holder (a
	 * reader between lookup and put). */
	uint32_t refcnt;
	uint32_t flags;		       /* PG_*, under pagecache_lock */
	struct list_head hash_link;    /* in its hash chain */
	struct list_head mapping_link; /* in mapping->pages */
	struct list_head lru_link;     /* in lru, most recently used first */
};

#define PG_UPTODATE  1U /* the frame holds the file's data */
#define PG_DIRTY     4U /* newer than the disk: on mapping->dirty */
#define PG_WRITEBACK 8U /* being written (under the page lock) */
/* The page lock (Linux's PG_locked): held while the page is read in; the
 * holder may sleep, others wait on page_wq.  A bit, not a mutex, so a
 * readahead can hold its 32 pages' locks (lockdep bounds held mutexes). */
#define PG_LOCKED 2U

extern struct spinlock pagecache_lock;
/* Under pagecache_lock: the counts of dirty pages and pages being written. */
extern unsigned long ndirty, nwriteback;
/* Under pagecache_lock: the mappings with dirty pages, oldest first
 * (struct address_space.dirty_link), and how many. */
extern struct list_head dirty_mappings;
extern unsigned long ndirty_mappings;
/* Tasks waiting for the flusher to end with a mapping (m->flushing). */
extern struct wait_queue flush_wq;

/* Page idx of m, uptodate and held, or NULL with *err (read if need be). */
struct page *filemap_get_page(struct address_space *m, struct inode *ip, uint64_t idx,
			      uint64_t size, int *err);
/* A new page of m at idx, locked, cached and held, or NULL when idx is
 * cached already or memory ran out (*err -ENOMEM). */
struct page *filemap_page_new_locked(struct address_space *m, uint64_t idx, int *err);
void filemap_page_put(struct page *pg);
void filemap_page_lock(struct page *pg);
void filemap_page_unlock(struct page *pg);
/* Under pagecache_lock: pg (cached) becomes dirty, or clean. */
void filemap_set_dirty(struct page *pg, bool dirty);
/* Waits while the flusher writes m back (m->flushing): ip's free_inode
 * must not free ip under it. */
void filemap_flush_wait(struct address_space *m);
/* Under pagecache_lock: page idx of m, or NULL. */
struct page *filemap_lookup(struct address_space *m, uint64_t idx);

#endif
