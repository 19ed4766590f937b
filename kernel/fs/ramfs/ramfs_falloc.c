/*
 * The holes of ramfs files, with tmpfs's rules.  fallocate: allocate a
 * range (zeroed pages in the holes, the size extended unless KEEP_SIZE)
 * and punch a hole (PUNCH_HOLE | KEEP_SIZE: whole pages freed, partial
 * ones zeroed).  lseek's SEEK_DATA and SEEK_HOLE find them.
 * The inode lock is taken one batch of pages at a time, so a range of
 * gigabytes never holds it long; the system call (fs/sys_fallocate.c)
 * checked the arguments.
 */
#include "fs/inode.h"
#include "fs/ramfs/memfd.h"
#include "fs/ramfs/ramfs_priv.h"
#include "fs/super.h"
#include "lib/string.h"
#include "mm/layout.h"
#include "sched/sched.h"
#include <uapi/errno.h>

#define FALLOC_BATCH 64 /* pages per hold of the inode lock */

/* The holes among pages idx..end-1, a batch per lock hold. */
static size_t count_holes(struct inode *ip, size_t idx, size_t end)
{
	size_t n = 0;

	for (size_t i = idx; i < end; i += FALLOC_BATCH) {
		size_t stop = end - i < FALLOC_BATCH ? end : i + FALLOC_BATCH;
		spin_lock(&ip->lock);
		n += ramfs_holes(ip, i, stop);
		spin_unlock(&ip->lock);
		cond_resched();
	}
	return n;
}

/*
 * Fills the holes of pages idx..end-1.  Their pages are charged to the
 * size limit first, all at once, so a range that cannot fit is ENOSPC
 * before anything changes (Linux's tmpfs undoes what it allocated);
 * holes a concurrent punch adds meanwhile are charged one by one.  Only
 * when frames run out behind the charge does it stop part-way (ENOSPC,
 * the pages so far kept, past the size when KEEP_SIZE).
 */
static int fill_holes(struct inode *ip, size_t idx, size_t end)
{
	size_t charged = count_holes(ip, idx, end);
	int err = 0;

	if (!sb_charge_pages(ip->sb, charged))
		return -ENOSPC;
	for (size_t i = idx; i < end && !err; i += FALLOC_BATCH) {
		size_t stop = end - i < FALLOC_BATCH ? end : i + FALLOC_BATCH;
		spin_lock(&ip->lock);
		for (size_t j = i; j < stop && !err; j++)
			if (!ramfs_page_fill(ip, j, &charged, false))
				err = -ENOSPC;
		spin_unlock(&ip->lock);
		cond_resched();
	}
	sb_uncharge_pages(ip->sb, charged); /* pages others filled first */
	return err;
}

/* Under ip->lock: zeroes bytes [from, to) of one page, if it is there. */
static void zero_in_page(struct inode *ip, uint64_t from, uint64_t to)
{
	uint64_t pa = ramfs_frame(ip, from >> PAGE_SHIFT);

	if (pa)
		memset((char *)P2V(pa) + (from & PAGE_MASK), 0, to - from);
}

/* Frees the whole pages of [off, end), zeroes the parts of the others. */
static void punch_hole(struct inode *ip, uint64_t off, uint64_t end)
{
	size_t first = PAGE_ALIGN_UP(off) >> PAGE_SHIFT, last = end >> PAGE_SHIFT;

	for (size_t i = first; i < last; i += FALLOC_BATCH) {
		spin_lock(&ip->lock);
		ramfs_drop_pages(ip, i, last - i < FALLOC_BATCH ? last : i + FALLOC_BATCH);
		spin_unlock(&ip->lock);
		cond_resched();
	}
	spin_lock(&ip->lock);
	if (off & PAGE_MASK) /* the head page */
		zero_in_page(ip, off, end < PAGE_ALIGN_UP(off) ? end : PAGE_ALIGN_UP(off));
	if ((end & PAGE_MASK) && PAGE_ALIGN_DOWN(end) >= off) /* the tail page */
		zero_in_page(ip, PAGE_ALIGN_DOWN(end) > off ? PAGE_ALIGN_DOWN(end) : off, end);
	ip->mtime_ns = ip->ctime_ns = inode_now_ns();
	spin_unlock(&ip->lock);
}

/* Under ip->lock: a memfd's seals against the change (shmem_fallocate's):
 * a punch is a write, an allocation past the size growth, even with
 * KEEP_SIZE. */
static int seals_deny_falloc(struct inode *ip, bool punch, uint64_t end)
{
	uint32_t s = RAMFS_I(ip)->file.seals;

	if (punch)
		return s & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE) ? -EPERM : 0;
	return (s & F_SEAL_GROW) && end > ip->size ? -EPERM : 0;
}

int ramfs_fallocate(struct inode *ip, bool punch, bool keep_size, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;
	int err;

	spin_lock(&ip->lock);
	err = seals_deny_falloc(ip, punch, end);
	spin_unlock(&ip->lock);
	if (err)
		return err;
	if (punch) {
		punch_hole(ip, off, end);
		return 0;
	}
	err = fill_holes(ip, off >> PAGE_SHIFT, PAGE_ALIGN_UP(end) >> PAGE_SHIFT);
	if (err || keep_size)
		return err;
	spin_lock(&ip->lock);
	if (end > ip->size) {
		ip->size = end;
		ip->mtime_ns = ip->ctime_ns = inode_now_ns();
	}
	spin_unlock(&ip->lock);
	return 0;
}

/* Under ip->lock: whether page idx holds data (written, not a hole). */
static bool page_is_data(struct inode *ip, size_t idx)
{
	return ramfs_frame(ip, idx) && !(RAMFS_I(ip)->file.pages[idx] & RAMFS_UNWRITTEN);
}

/*
 * Under ip->lock: the first page in idx..end-1 that is data (or, with
 * hole, a hole), or end.  Past pages[] everything is a hole.
 */
static size_t find_page(struct inode *ip, size_t idx, size_t end, bool hole)
{
	for (; idx < end; idx++) {
		if (!hole && idx >= RAMFS_I(ip)->file.npages)
			return end;
		if (page_is_data(ip, idx) != hole)
			return idx;
	}
	return end;
}

long ramfs_seek_hole_data(struct inode *ip, long off, bool hole)
{
	uint64_t size = inode_size(ip), at;
	size_t last, idx;

	if (off < 0 || (uint64_t)off >= size)
		return -ENXIO;
	last = PAGE_ALIGN_UP(size) >> PAGE_SHIFT;
	for (idx = (uint64_t)off >> PAGE_SHIFT; idx < last;) {
		size_t stop = last - idx < FALLOC_BATCH ? last : idx + FALLOC_BATCH;
		spin_lock(&ip->lock);
		idx = find_page(ip, idx, stop, hole);
		spin_unlock(&ip->lock);
		if (idx < stop)
			break;
		cond_resched();
	}
	if (idx >= last) /* none before the end: the end is a hole */
		return hole ? (long)size : -ENXIO;
	at = (uint64_t)idx << PAGE_SHIFT;
	return at > (uint64_t)off ? (long)(at < size ? at : size) : off;
}
