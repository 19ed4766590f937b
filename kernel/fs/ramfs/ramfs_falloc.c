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

/* The holes among pages idx..end-1: the range less its pages, counted
 * a batch per lock hold (the pages, so a hole of terabytes is quick). */
static size_t count_holes(struct inode *ip, size_t idx, size_t end)
{
	struct ramfs_index *t = &RAMFS_I(ip)->file.pages;
	size_t pages = 0, range = end - idx;

	while (idx < end) {
		spin_lock(&ip->lock);
		for (int n = 0; n < FALLOC_BATCH; n++) {
			if ((idx = ramfs_index_next(t, idx, end)) >= end)
				break;
			pages++;
			idx++;
		}
		spin_unlock(&ip->lock);
		cond_resched();
	}
	return range - pages;
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
	size_t i = PAGE_ALIGN_UP(off) >> PAGE_SHIFT, last = end >> PAGE_SHIFT;

	while (i < last) {
		spin_lock(&ip->lock);
		i = ramfs_drop_pages(ip, i, last, FALLOC_BATCH);
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
	uint64_t e = ramfs_index_get(&RAMFS_I(ip)->file.pages, idx);

	return e && !(e & RAMFS_UNWRITTEN);
}

/*
 * Under ip->lock: moves *idx to the first page in *idx..end-1 that is
 * data (or, with hole, a hole), or to end; true when there, false when
 * it looked at FALLOC_BATCH pages first (go on from *idx).  Data is
 * looked for among the index's pages, skipping holes of any size.
 */
static bool find_page(struct inode *ip, size_t *idx, size_t end, bool hole)
{
	size_t i = *idx;

	for (int n = 0; n < FALLOC_BATCH; n++, i++) {
		if (!hole)
			i = ramfs_index_next(&RAMFS_I(ip)->file.pages, i, end);
		if (i >= end || page_is_data(ip, i) != hole) {
			*idx = i < end ? i : end;
			return true;
		}
	}
	*idx = i;
	return false;
}

long ramfs_seek_hole_data(struct inode *ip, long off, bool hole)
{
	uint64_t size = inode_size(ip), at;
	size_t last, idx;

	if (off < 0 || (uint64_t)off >= size)
		return -ENXIO;
	last = PAGE_ALIGN_UP(size) >> PAGE_SHIFT;
	for (idx = (uint64_t)off >> PAGE_SHIFT;;) {
		spin_lock(&ip->lock);
		bool found = find_page(ip, &idx, last, hole);
		spin_unlock(&ip->lock);
		if (found)
			break;
		cond_resched();
	}
	if (idx >= last) /* none before the end: the end is a hole */
		return hole ? (long)size : -ENXIO;
	at = (uint64_t)idx << PAGE_SHIFT;
	return at > (uint64_t)off ? (long)(at < size ? at : size) : off;
}
