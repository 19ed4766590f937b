/*
 * Write protection of user entries: mprotect, the write-back's mkclean and
 * mkwrite of shared pages, and copy-on-write breaking.  Each change is
 * flushed under the space lock, so a fault on another CPU waits for it.
 */
#include "mm/paging.h"
#include "mm/paging_internal.h"

#include "lib/string.h"
#include "mm/frame.h"
#include "mm/tlb.h"
#include "uapi/errno.h"

/* The entry *e with protection flags: a private page shared with other
 * owners must not become writable in place, so it gets PTE_COW. */
static uint64_t protected_entry(uint64_t va, uint64_t e, uint64_t flags)
{
	uint64_t pa = e & PTE_ADDR;
	flags = (flags & ~(PTE_COW | PTE_SHARED)) | (e & PTE_SHARED);
	if ((flags & PTE_WRITE) && !(flags & PTE_SHARED) && frame_refcount(pa) > 1)
		flags = (flags & ~PTE_WRITE) | PTE_COW;
	return pt_make_entry(va, pa, flags);
}

void vm_protect(struct vm_space *as, uint64_t va, uint64_t len, uint64_t flags)
{
	struct tlb_gather g;
	uint64_t *e;
	pt_check_range(as, va, len);
	gather_init(&g, as);
	spin_lock(&as->lock);
	for (uint64_t a = va, next; a - va < len; a = next) {
		if (!pt_walk(as->pml4, a, 1, false, &e) && pte_mapped(*e)) {
			*e = protected_entry(a, *e, flags);
			gather_page(&g, a);
		}
		next = pt_next_candidate(as, a, 1);
	}
	gather_flush(&g); /* under the lock: a fault on another CPU waits for it */
	spin_unlock(&as->lock);
}

void vm_page_mkclean(struct vm_space *as, uint64_t va, uint64_t pa)
{
	struct tlb_gather g;
	uint64_t *e;

	gather_init(&g, as);
	spin_lock(&as->lock);
	if (!pt_walk(as->pml4, va, 1, false, &e) && pte_mapped(*e) && (*e & PTE_ADDR) == pa &&
	    (*e & PTE_WRITE)) {
		*e &= ~(PTE_WRITE | PTE_DIRTY);
		gather_page(&g, va);
	}
	/* Under the lock: the write fault that makes it writable again
	 * waits for every CPU to have dropped it. */
	gather_flush(&g);
	spin_unlock(&as->lock);
}

bool vm_page_mkwrite(struct vm_space *as, uint64_t va)
{
	uint64_t *e;
	bool ok;

	spin_lock(&as->lock);
	ok = !pt_walk(as->pml4, va, 1, false, &e) &&
	     (*e & (PTE_PRESENT | PTE_SHARED)) == (PTE_PRESENT | PTE_SHARED);
	if (ok)
		*e |= PTE_WRITE;
	spin_unlock(&as->lock);
	return ok;
}

/* Makes the COW entry *e writable, on a private copy unless it is the frame's
 * last owner; the frame copied from goes to g.  Caller holds the space lock. */
static int break_cow(struct tlb_gather *g, uint64_t va, uint64_t *e)
{
	uint64_t old = *e & PTE_ADDR;
	uint64_t flags = (*e & PTE_FLAGS & ~PTE_COW) | PTE_WRITE;
	if (frame_refcount(old) == 1) {
		*e = old | flags;
		return 0;
	}
	uint64_t copy = frame_alloc();
	if (!copy)
		return -ENOMEM;
	memcpy(P2V(copy), P2V(old), PAGE_SIZE);
	*e = copy | flags;
	gather_frame(g, va, old);
	return 0;
}

int vm_resolve_cow(struct vm_space *as, uint64_t va)
{
	va = PAGE_ALIGN_DOWN(va);
	if (in_kernel_half(va) || !canonical(va))
		return -EFAULT;
	struct tlb_gather g;
	uint64_t *e;
	gather_init(&g, as);
	spin_lock(&as->lock);
	int err = pt_walk(as->pml4, va, 1, false, &e);
	if (!err && (*e & (PTE_PRESENT | PTE_WRITE)) == (PTE_PRESENT | PTE_WRITE)) {
		spin_unlock(&as->lock); /* another CPU's thread broke it first */
		return 0;
	}
	if (!err && (*e & (PTE_PRESENT | PTE_COW)) != (PTE_PRESENT | PTE_COW))
		err = -EFAULT;
	if (!err)
		err = break_cow(&g, va, e);
	if (!err)
		gather_page(&g, va); /* the last owner's entry became writable */
	/* Under the lock: another thread's write fault waits for the flush,
	 * so no CPU reads the old frame after this one wrote the copy. */
	gather_flush(&g);
	spin_unlock(&as->lock);
	return err;
}
