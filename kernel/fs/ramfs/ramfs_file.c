/*
 * ramfs regular files: data in page frames listed in a growable index
 * (pages[]), so large files (binaries that execve maps) cost one page
 * lookup per 4 KiB; holes are 0 entries.  The data operations of
 * ramfs_file_iops (fallocate and SEEK_DATA/SEEK_HOLE are
 * ramfs_falloc.c's).
 */
#include "fs/ramfs/ramfs.h"
#include "fs/ramfs/ramfs_priv.h"
#include "fs/ramfs/memfd.h"
#include "fs/super.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/rlimit.h"
#include <uapi/errno.h>

#define RAMFS_MAX_PAGES (RAMFS_MAX_FILE >> PAGE_SHIFT)
#define RAMFS_MIN_INDEX 16

void ramfs_drop_pages(struct inode *ip, size_t idx, size_t end)
{
	struct ramfs_inode *ri = RAMFS_I(ip);
	size_t dropped = 0;

	for (size_t i = idx; i < end && i < ri->file.npages; i++) {
		if (!ri->file.pages[i])
			continue;
		frame_unref(ri->file.pages[i] & ~RAMFS_UNWRITTEN);
		ri->file.pages[i] = 0;
		dropped++;
	}
	ri->file.used -= dropped;
	sb_uncharge_pages(ip->sb, dropped);
}

void ramfs_free_data(struct inode *ip)
{
	ramfs_drop_pages(ip, 0, SIZE_MAX);
	kfree(RAMFS_I(ip)->file.pages);
	if (RAMFS_I(ip)->file.memfd)
		memfd_inode_gone();
}

/* Under ip->lock: makes pages[] hold index idx.  False when memory runs out. */
static bool index_reach(struct inode *ip, size_t idx)
{
	struct ramfs_inode *ri = RAMFS_I(ip);
	size_t n = ri->file.npages ? ri->file.npages : RAMFS_MIN_INDEX;
	uint64_t *pages;

	if (idx < ri->file.npages)
		return true;
	while (n <= idx)
		n *= 2;
	if (n > RAMFS_MAX_PAGES)
		n = RAMFS_MAX_PAGES;
	pages = kzalloc(n * sizeof(*pages));
	if (!pages)
		return false;
	if (ri->file.npages)
		memcpy(pages, ri->file.pages, ri->file.npages * sizeof(*pages));
	kfree(ri->file.pages);
	ri->file.pages = pages;
	ri->file.npages = n;
	return true;
}

static uint64_t page_at(struct inode *ip, size_t idx)
{
	return ramfs_frame(ip, idx);
}

uint64_t ramfs_page_fill(struct inode *ip, size_t idx, size_t *charged, bool written)
{
	struct ramfs_inode *ri = RAMFS_I(ip);
	bool prepaid = charged && *charged;
	uint64_t pa;

	if (!index_reach(ip, idx))
		return 0;
	if (ri->file.pages[idx]) {
		if (written)
			ri->file.pages[idx] &= ~RAMFS_UNWRITTEN;
		return page_at(ip, idx);
	}
	if (!prepaid && !sb_charge_pages(ip->sb, 1))
		return 0;
	if (!(pa = frame_zalloc())) {
		if (!prepaid)
			sb_uncharge_pages(ip->sb, 1);
		return 0;
	}
	if (prepaid)
		--*charged;
	ri->file.used++;
	ri->file.pages[idx] = written ? pa : pa | RAMFS_UNWRITTEN;
	return pa;
}

size_t ramfs_holes(struct inode *ip, size_t idx, size_t end)
{
	size_t n = 0;

	for (size_t i = idx; i < end; i++)
		n += !page_at(ip, i);
	return n;
}

static uint64_t page_fill(struct inode *ip, size_t idx)
{
	return ramfs_page_fill(ip, idx, NULL, true);
}

static void *page_ptr(uint64_t pa, uint64_t off)
{
	return (char *)P2V(pa) + (off & PAGE_MASK);
}

/*
 * The copies run without the lock, so a fault on a user page never happens
 * under a spinlock; the frame reference keeps the page alive if a truncate
 * drops it meanwhile.  A fault part-way returns the bytes done (Linux).
 */
long ramfs_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off)
{
	size_t done = 0, len = iov_iter_count(to);

	while (done < len) {
		spin_lock(&ip->lock);
		if (off >= ip->size) {
			spin_unlock(&ip->lock);
			break;
		}
		size_t n = PAGE_SIZE - (off & PAGE_MASK);
		if (n > len - done)
			n = len - done;
		if (n > ip->size - off)
			n = ip->size - off;
		uint64_t pa = page_at(ip, off >> PAGE_SHIFT);
		if (pa)
			frame_ref(pa);
		spin_unlock(&ip->lock);
		size_t c = pa ? copy_to_iter(page_ptr(pa, off), n, to) : zero_to_iter(n, to);
		if (pa)
			frame_unref(pa);
		done += c;
		off += c;
		if (c < n)
			return done ? (long)done : -EFAULT;
	}
	return done;
}

/* Under no lock; returns bytes written or -errno (see ramfs_read_iter for the copy). */
long ramfs_write_iter(struct inode *ip, struct iov_iter *from, uint64_t off)
{
	size_t done = 0, len = iov_iter_count(from);
	long err = rlimit_fsize_write(off, &len);

	if (err)
		return err;
	if (off >= RAMFS_MAX_FILE)
		return len ? -EFBIG : 0;
	if (len > RAMFS_MAX_FILE - off)
		len = RAMFS_MAX_FILE - off;
	while (done < len) {
		size_t n = PAGE_SIZE - (off & PAGE_MASK);
		if (n > len - done)
			n = len - done;
		spin_lock(&ip->lock);
		/* Seals are checked page by page, as Linux's write_begin: one
		 * added part-way stops the write there. */
		err = seals_deny_write(ip, off, n);
		uint64_t pa = err ? 0 : page_fill(ip, off >> PAGE_SHIFT);
		if (pa)
			frame_ref(pa);
		spin_unlock(&ip->lock);
		if (!pa) {
			err = err ? err : -ENOSPC;
			break;
		}
		size_t c = copy_from_iter(page_ptr(pa, off), n, from);
		frame_unref(pa);
		done += c;
		off += c;
		spin_lock(&ip->lock);
		if (off > ip->size)
			ip->size = off;
		ip->mtime_ns = ip->ctime_ns = inode_now_ns();
		spin_unlock(&ip->lock);
		if (c < n) {
			err = -EFAULT;
			break;
		}
	}
	return done ? (long)done : err;
}

/* The frame of page idx with a reference for the caller; with fill, a
 * hole gets a zeroed page first. */
uint64_t ramfs_page_ref(struct inode *ip, size_t idx, bool fill)
{
	uint64_t pa;

	spin_lock(&ip->lock);
	pa = fill ? page_fill(ip, idx) : page_at(ip, idx);
	if (pa)
		frame_ref(pa);
	spin_unlock(&ip->lock);
	return pa;
}

int ramfs_truncate(struct inode *ip, uint64_t size)
{
	if (size > inode_size(ip) && rlimit_fsize_grow(size))
		return -EFBIG;
	if (size > RAMFS_MAX_FILE)
		return -EFBIG;
	spin_lock(&ip->lock);
	int err = seals_deny_resize(ip, size);
	if (err) {
		spin_unlock(&ip->lock);
		return err;
	}
	if (size < ip->size) {
		ramfs_drop_pages(ip, PAGE_ALIGN_UP(size) >> PAGE_SHIFT, SIZE_MAX);
		uint64_t pa = page_at(ip, size >> PAGE_SHIFT);
		if (pa && (size & PAGE_MASK))
			memset(page_ptr(pa, size), 0, PAGE_SIZE - (size & PAGE_MASK));
	}
	ip->size = size;
	ip->mtime_ns = ip->ctime_ns = inode_now_ns();
	spin_unlock(&ip->lock);
	return 0;
}

size_t ramfs_resident_pages(struct inode *ip)
{
	size_t n = 0;

	spin_lock(&ip->lock);
	for (size_t i = 0; i < RAMFS_I(ip)->file.npages; i++)
		n += RAMFS_I(ip)->file.pages[i] != 0;
	spin_unlock(&ip->lock);
	return n;
}
