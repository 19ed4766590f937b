/*
 * ramfs regular files: data in page frames listed in a sparse index
 * (ramfs_index.c), so large files (binaries that execve maps) cost one
 * walk of a few levels per 4 KiB and holes cost nothing.  The data operations of
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
#include "mm/layout.h"
#include "proc/rlimit.h"
#include <uapi/errno.h>

size_t ramfs_drop_pages(struct inode *ip, size_t idx, size_t end, size_t max)
{
	struct ramfs_inode *ri = RAMFS_I(ip);
	size_t dropped = 0;

	while (dropped < max && (idx = ramfs_index_next(&ri->file.pages, idx, end)) < end) {
		frame_unref(ramfs_index_take(&ri->file.pages, idx) & ~RAMFS_UNWRITTEN);
		dropped++;
		idx++;
	}
	ri->file.used -= dropped;
	sb_uncharge_pages(ip->sb, dropped);
	return dropped < max ? end : idx;
}

void ramfs_free_data(struct inode *ip)
{
	ramfs_drop_pages(ip, 0, SIZE_MAX, SIZE_MAX);
	ramfs_index_free(&RAMFS_I(ip)->file.pages);
	if (RAMFS_I(ip)->file.memfd)
		memfd_inode_gone();
}

static uint64_t page_at(struct inode *ip, size_t idx)
{
	return ramfs_frame(ip, idx);
}

uint64_t ramfs_page_fill(struct inode *ip, size_t idx, size_t *charged, bool written)
{
	struct ramfs_inode *ri = RAMFS_I(ip);
	bool prepaid = charged && *charged;
	uint64_t *slot = ramfs_index_slot(&ri->file.pages, idx);
	uint64_t pa;

	if (!slot)
		return 0;
	if (*slot) {
		if (written)
			*slot &= ~RAMFS_UNWRITTEN;
		return *slot & ~RAMFS_UNWRITTEN;
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
	*slot = written ? pa : pa | RAMFS_UNWRITTEN;
	return pa;
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
		ramfs_drop_pages(ip, PAGE_ALIGN_UP(size) >> PAGE_SHIFT, SIZE_MAX, SIZE_MAX);
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
	size_t n;

	spin_lock(&ip->lock);
	n = RAMFS_I(ip)->file.used;
	spin_unlock(&ip->lock);
	return n;
}
