/*
 * The reverse map of shared file mappings (rmap.h): a list per inode,
 * threaded through its tracked vmas, under one lock.  Shared writable
 * mappings of disk files are few; a walk visits the vmas of one file.
 */
#include "mm/rmap.h"
#include "fs/inode.h"
#include "lib/spinlock.h"
#include "mm/layout.h"
#include "mm/paging.h"
#include "mm/vma.h"

/* Protects every inode's mmaps list, every tracked vma's rmap links and,
 * for a tracked vma, its start, end and off and its table's space. */
static struct spinlock rmap_spin = SPINLOCK_INIT("rmap");

bool vma_tracks_dirty(const struct vma *v)
{
	return v->file && (v->flags & (VMA_SHARED | VMA_MAYWRITE)) == (VMA_SHARED | VMA_MAYWRITE) &&
	       v->file->op->page_mkwrite;
}

void rmap_lock(void)
{
	spin_lock(&rmap_spin);
}

void rmap_unlock(void)
{
	spin_unlock(&rmap_spin);
}

void rmap_link(struct vma *v)
{
	struct inode *ip = v->file;

	spin_lock(&rmap_spin);
	if ((v->rmap_next = ip->mmaps))
		ip->mmaps->rmap_pprev = &v->rmap_next;
	ip->mmaps = v;
	v->rmap_pprev = &ip->mmaps;
	spin_unlock(&rmap_spin);
}

void rmap_unlink(struct vma *v)
{
	if (!v->rmap_pprev)
		return;
	spin_lock(&rmap_spin);
	if ((*v->rmap_pprev = v->rmap_next))
		v->rmap_next->rmap_pprev = v->rmap_pprev;
	spin_unlock(&rmap_spin);
	v->rmap_pprev = NULL;
}

void rmap_mkclean(struct inode *ip, uint64_t idx, uint64_t pa)
{
	uint64_t off = idx * PAGE_SIZE;

	spin_lock(&rmap_spin);
	for (struct vma *v = ip->mmaps; v; v = v->rmap_next) {
		/* A fork's copy has no space until its entries are copied
		 * (under this lock): nothing of it to clean yet. */
		if (off < v->off || off - v->off >= v->end - v->start || !v->vt->space)
			continue;
		vm_page_mkclean(v->vt->space, v->start + (off - v->off), pa);
	}
	spin_unlock(&rmap_spin);
}
