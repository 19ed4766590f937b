/*
 * mremap, madvise and msync: argument checks in Linux's order, then whole vmas
 * of the mapping list (mm/vma.c) under the uvm lock; pages move or go
 * through mm/paging.c.
 */
#include "fs/inode.h"
#include "mm/commit.h"
#include "mm/paging.h"
#include "proc/task.h"
#include "mm/uvm.h"
#include "mm/vma.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/mman.h>

#define MREMAP_KNOWN (MREMAP_MAYMOVE | MREMAP_FIXED)

/* The vma holding [addr, addr+len) whole, as its own vma: -EFAULT if the
 * range is not inside one mapping (Linux's vma_to_resize), -ENOMEM. */
static int remap_source(struct uvm *u, uint64_t addr, uint64_t len, struct vma **out)
{
	struct vma *v = vma_at(u, addr);
	int err;

	if (!v || len > v->end - addr)
		return -EFAULT;
	if ((err = vma_split_range(u, addr, addr + len)))
		return err;
	*out = vma_at(u, addr);
	return 0;
}

/* Grows or moves [addr, addr+old_len) to new_len bytes (u locked): the new
 * address or -errno.  Growth into another mapping needs MREMAP_MAYMOVE. */
static long remap_locked(struct uvm *u, uint64_t addr, uint64_t old_len, uint64_t new_len,
			 int flags, uint64_t new_addr)
{
	struct vma *v;
	int64_t more = (int64_t)((new_len - old_len) / PAGE_SIZE);
	int err;

	if (flags & MREMAP_FIXED) {
		if ((err = vma_remove(u, new_addr, new_addr + new_len)))
			return err;
		if (old_len > new_len && (err = vma_remove(u, addr + new_len, addr + old_len)))
			return err;
		if (old_len > new_len)
			old_len = new_len, more = 0;
	}
	if ((err = remap_source(u, addr, old_len, &v)))
		return err;
	if ((v->flags & VMA_SPECIAL) && new_len > old_len)
		return -EFAULT; /* Linux's VM_DONTEXPAND */
	if (!vm_commit_allowed(vma_charge(v) ? more : 0))
		return -ENOMEM;
	/* Growth needs no pages: anonymous memory comes on touch, and shared
	 * anonymous memory is a file of its old length (mm/mmap.c), so a
	 * touch past it is SIGBUS, as Linux's shmem. */
	if (flags & MREMAP_FIXED)
		return (err = vma_move(u, v, new_addr, new_len)) ? err : (long)new_addr;
	if (addr + new_len <= USER_STACK_TOP && vma_range_free(u, v->end, addr + new_len))
		return (err = vma_move(u, v, addr, new_len)) ? err : (long)addr;
	if (!(flags & MREMAP_MAYMOVE) || !(new_addr = vma_place(u, new_len, 0)))
		return -ENOMEM;
	return (err = vma_move(u, v, new_addr, new_len)) ? err : (long)new_addr;
}

SYSCALL_DEFINE5(mremap, uint64_t, addr, uint64_t, old_len, uint64_t, new_len, int, flags, uint64_t,
		new_addr)
{
	struct uvm *u = current()->uvm;
	long ret;

	if ((flags & ~MREMAP_KNOWN) || ((flags & MREMAP_FIXED) && !(flags & MREMAP_MAYMOVE)))
		return -EINVAL; /* MREMAP_DONTUNMAP too: not implemented */
	if (addr & PAGE_MASK)
		return -EINVAL;
	old_len = PAGE_ALIGN_UP(old_len);
	new_len = PAGE_ALIGN_UP(new_len);
	if (!new_len || !old_len) /* old_len 0 duplicates shared memory: not here */
		return -EINVAL;
	if ((flags & MREMAP_FIXED) && ((new_addr & PAGE_MASK) || !uvm_range_ok(new_addr, new_len) ||
				       (addr + old_len > new_addr && new_addr + new_len > addr)))
		return -EINVAL;
	spin_lock(&u->lock);
	if (!vma_at(u, addr))
		ret = -EFAULT;
	else if (!(flags & MREMAP_FIXED) && old_len == new_len)
		ret = (long)addr; /* as Linux: nothing to do, nothing split */
	else if (!(flags & MREMAP_FIXED) && old_len > new_len)
		ret = vma_remove(u, addr + new_len, addr + old_len) ?: (long)addr;
	else
		ret = remap_locked(u, addr, old_len, new_len, flags, new_addr);
	spin_unlock(&u->lock);
	return ret;
}

/* Advice Linux accepts on x86_64 and fdkernel follows (most are hints);
 * MADV_DONTFORK, WIPEONFORK, REMOVE, MERGEABLE and POPULATE_* are not
 * implemented and get EINVAL. */
static bool advice_known(int advice)
{
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
	case MADV_DONTNEED:
	case MADV_FREE:
	case MADV_DOFORK:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
	case MADV_KEEPONFORK:
	case MADV_COLD:
	case MADV_PAGEOUT:
		return true;
	default:
		return false;
	}
}

/*
 * The advice on [from, to) of v.  DONTNEED drops the pages: anonymous
 * private memory reads back zeroes, a file mapping re-reads the file;
 * shared anonymous memory keeps its frames (Linux re-reads the same
 * shared page).  FREE is DONTNEED for anonymous private memory only.
 */
static int advise(struct uvm *u, struct vma *v, uint64_t from, uint64_t to, int advice)
{
	bool anon_private = !v->file && !(v->flags & VMA_SHARED);

	if (advice == MADV_FREE && !anon_private)
		return -EINVAL;
	/* Locked pages stay (Linux's can_madv_lru_vma). */
	if ((advice == MADV_DONTNEED || advice == MADV_FREE) && (v->flags & VMA_LOCKED))
		return -EINVAL;
	if ((advice == MADV_DONTNEED || advice == MADV_FREE) && (v->file || anon_private))
		vm_unmap_range(u->space, from, to - from);
	return 0;
}

/* Every mapped part of [start, end) gets the advice; a hole makes the
 * answer ENOMEM, as Linux, after the rest is done. */
static int advise_range(struct uvm *u, uint64_t start, uint64_t end, int advice)
{
	struct vma *v = vma_find(u, start);
	int err = 0, hole = 0;

	for (uint64_t at = start; at < end; v = vma_next(u, v)) {
		if (!v || v->start >= end)
			return -ENOMEM;
		if (v->start > at)
			hole = -ENOMEM, at = v->start;
		uint64_t to = v->end < end ? v->end : end;
		if ((err = advise(u, v, at, to, advice)))
			return err;
		at = to;
	}
	return hole;
}

SYSCALL_DEFINE3(madvise, uint64_t, start, uint64_t, len, int, advice)
{
	struct uvm *u = current()->uvm;
	uint64_t end;
	int err;

	if (!advice_known(advice) || (start & PAGE_MASK))
		return -EINVAL;
	end = start + PAGE_ALIGN_UP(len);
	if ((len && !PAGE_ALIGN_UP(len)) || end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	spin_lock(&u->lock);
	if (advice == MADV_DONTDUMP || advice == MADV_DODUMP) /* the core dump's filter */
		err = vma_set_bits(u, start, end, VMA_DONTDUMP,
				   advice == MADV_DONTDUMP ? VMA_DONTDUMP : 0, true);
	else
		err = advise_range(u, start, end, advice);
	spin_unlock(&u->lock);
	return err;
}

/*
 * Under u->lock: the file of the first shared file mapping overlapping
 * [*from, end), held, with the file range it maps there in *fstart and
 * *fend (inclusive); *from moves past the mapping.  NULL when none is left.
 */
static struct inode *next_shared_file(struct uvm *u, uint64_t *from, uint64_t end, uint64_t *fstart,
				      uint64_t *fend)
{
	/* Past end: a mapping reaching beyond it was the last (its part
	 * from end on is no part of the range: msync of part of a mapping
	 * once looped here for ever). */
	if (*from >= end)
		return NULL;
	for (struct vma *v = vma_find(u, *from); v && v->start < end; v = vma_next(u, v)) {
		uint64_t a = v->start > *from ? v->start : *from, b = v->end < end ? v->end : end;

		if (!v->file || !(v->flags & VMA_SHARED))
			continue;
		*fstart = v->off + (a - v->start);
		*fend = v->off + (b - v->start) - 1;
		*from = b;
		inode_get(v->file);
		return v->file;
	}
	return NULL;
}

/* MS_SYNC: each shared file mapping's range written back (its file's
 * fsync, the lock dropped: it sleeps).  -EIO for a failed write. */
static int msync_files(struct uvm *u, uint64_t start, uint64_t end)
{
	uint64_t fstart, fend;
	struct inode *ip;
	int err = 0;

	for (;;) {
		spin_lock(&u->lock);
		ip = next_shared_file(u, &start, end, &fstart, &fend);
		spin_unlock(&u->lock);
		if (!ip)
			return err;
		if (!err)
			err = inode_fsync(ip, fstart, fend, 0);
		inode_put(ip);
	}
}

/* Shared file mappings write the file's own pages (the page cache's, or
 * the ramfs's); MS_SYNC writes a disk file's back (MS_ASYNC has nothing
 * to start: write-back is synchronous).  First Linux's checks. */
SYSCALL_DEFINE3(msync, uint64_t, start, uint64_t, len, int, flags)
{
	struct uvm *u = current()->uvm;
	uint64_t end;
	int err;

	if ((flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) || (start & PAGE_MASK) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)))
		return -EINVAL;
	end = start + PAGE_ALIGN_UP(len);
	if (end < start)
		return -ENOMEM;
	if (end == start)
		return 0;
	spin_lock(&u->lock);
	if ((flags & MS_INVALIDATE) && vma_range_has(u, start, end, VMA_LOCKED))
		err = -EBUSY; /* locked pages cannot be dropped */
	else
		err = advise_range(u, start, end, MADV_NORMAL); /* ENOMEM for a hole */
	spin_unlock(&u->lock);
	if (!err && (flags & MS_SYNC))
		err = msync_files(u, start, end);
	return err;
}
