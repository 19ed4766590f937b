/*
 * The reverse map of shared file mappings (docs/memory.md, "Dirty
 * tracking"), Linux's i_mmap in small: each inode whose pages are written
 * back (a disk file system's: it has page_mkwrite) lists the vmas that
 * map it shared and writable (struct inode.mmaps), so that a write-back
 * finds every page-table entry of a page and write-protects it: the next
 * store faults and dirties the page again (Linux's page_mkclean).
 *
 * The rule that keeps an entry alive: a vma is on its file's list from
 * vma_set to vma_free, both under rmap_lock, and the vma holds its inode
 * (the list's head); its table's space (the page tables holding its
 * entries) outlives its vmas (uvm_put drops the table first).  A tracked
 * vma's range and offset change only under rmap_lock (vma.c's set_range,
 * vma_move with the pages it moves), so a walker holding the lock reads
 * where each entry is.  A table holding tracked vmas is never shared by
 * fork (it is copied, as one holding vmas with ops), so each vma's
 * entries are in one space.
 *
 * Lock order: a uvm's lock, then rmap_lock, then a space's lock.
 */
#ifndef MM_RMAP_H
#define MM_RMAP_H

#include <stdbool.h>
#include <stdint.h>

struct inode;
struct vma;

/* Whether v's pages are tracked: a shared mapping, of an fd open for
 * writing, of a file whose pages are written back. */
bool vma_tracks_dirty(const struct vma *v);
/* Puts the tracked v (its fields set) on its file's list; rmap_unlink
 * takes it off (nothing if it is not on one). */
void rmap_link(struct vma *v);
void rmap_unlink(struct vma *v);
/* Held across a change of a tracked vma's range or of where its pages
 * are mapped (set_range, mremap's move, fork's copy of the entries). */
void rmap_lock(void);
void rmap_unlock(void);
/*
 * Page idx of ip, frame pa, is being written back (its dirty state just
 * cleared, under its page lock): every entry mapping it writable becomes
 * read-only and clean, shot down on every CPU, so a store after this
 * faults and dirties the page again.
 */
void rmap_mkclean(struct inode *ip, uint64_t idx, uint64_t pa);

#endif
