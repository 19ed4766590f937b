/*
 * The page cache's write side (filemap.h, docs/pagecache.md): writes
 * copied into cached pages that become dirty, write-back through the
 * file system's writepage, the dirty limit that throttles a writer, and
 * shared writable mappings.
 */
#include "fs/inode.h"
#include "fs/proc/proc_sys.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/filemap_internal.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include <uapi/errno.h>

/*
 * /proc/sys/vm/dirty_ratio: the percentage of memory dirty pages may
 * fill before a writer writes back (Linux's default 20; 0..100).  Past
 * it, each write writes its own file's dirty pages before it returns, so
 * no writer fills memory with pages the disk has not seen.
 */
static int dirty_ratio = 20;
PROC_SYS_ROW(dirty_ratio_row, .path = "vm/dirty_ratio", .mode = 0644, .show = proc_sys_int_show,
	     .store = proc_sys_int_store, .data = &dirty_ratio, .min = 0, .max = 100);

static unsigned long dirty_limit(void)
{
	return frame_total_count() *
	       (unsigned long)__atomic_load_n(&dirty_ratio, __ATOMIC_RELAXED) / 100;
}

/*
 * Page idx of m for a write, locked, uptodate and held: a page past the
 * size is made zeroed without reading (nothing on the disk is part of
 * the file there), any other is read if not cached.  NULL with *err.
 */
static struct page *write_page(struct address_space *m, struct inode *ip, uint64_t idx,
			       uint64_t size, int *err)
{
	for (int tries = 0; tries < 4; tries++) {
		struct page *pg = NULL;

		if (idx * PAGE_SIZE >= size) {
			if ((pg = filemap_page_new_locked(m, idx, err))) {
				memset(P2V(pg->pa), 0, PAGE_SIZE);
				spin_lock(&pagecache_lock);
				pg->flags |= PG_UPTODATE; /* and still PG_LOCKED: ours */
				spin_unlock(&pagecache_lock);
				return pg;
			}
			if (*err)
				return NULL;
		}
		if (!(pg = filemap_get_page(m, ip, idx, size, err)))
			return NULL;
		filemap_page_lock(pg);
		spin_lock(&pagecache_lock);
		bool cached = pg->mapping == m;
		spin_unlock(&pagecache_lock);
		if (cached)
			return pg;
		filemap_page_unlock(pg); /* reclaimed meanwhile: again */
		filemap_page_put(pg);
	}
	*err = -ENOMEM;
	return NULL;
}

/* Copies n bytes of from into page idx at in: the bytes copied, or
 * -errno when the page could not be had or its blocks made. */
static long write_one(struct address_space *m, struct inode *ip, struct iov_iter *from,
		      uint64_t off, size_t n)
{
	uint64_t size = inode_size(ip);
	int err;
	struct page *pg = write_page(m, ip, off / PAGE_SIZE, size, &err);
	size_t c;

	if (!pg)
		return err;
	/* The blocks after the page is read: a hole read as zeroes before
	 * the block it becomes exists, so no stale disk data is read. */
	if ((err = m->ops->prepare_write(ip, off, n))) {
		filemap_page_unlock(pg);
		filemap_page_put(pg);
		return err;
	}
	/* A fault on the user's buffer may need this very page: it is
	 * uptodate, and filemap_get_page gives such a page without its lock. */
	c = copy_from_iter((char *)P2V(pg->pa) + off % PAGE_SIZE, n, from);
	spin_lock(&pagecache_lock);
	if (c)
		filemap_set_dirty(pg, true);
	spin_unlock(&pagecache_lock);
	filemap_page_unlock(pg);
	filemap_page_put(pg);
	return (long)c;
}

long filemap_write(struct address_space *m, struct inode *ip, struct iov_iter *from, uint64_t off,
		   size_t len)
{
	size_t done = 0;
	long err = 0;

	mutex_lock(&m->write_lock);
	while (done < len) {
		size_t n = PAGE_SIZE - off % PAGE_SIZE;

		if (n > len - done)
			n = len - done;
		if ((err = write_one(m, ip, from, off, n)) <= 0)
			break;
		done += err;
		off += err;
		spin_lock(&ip->lock);
		if (off > ip->size)
			ip->size = off;
		spin_unlock(&ip->lock);
		if ((size_t)err < n) {
			err = -EFAULT;
			break;
		}
	}
	mutex_unlock(&m->write_lock);
	if (done && __atomic_load_n(&ndirty, __ATOMIC_RELAXED) > dirty_limit())
		filemap_writeback(m, ip, 0, ~0ULL); /* the throttle: an error waits for fsync */
	return done ? (long)done : (err ? err : 0);
}

/* Under pagecache_lock: a dirty page of m with an index in [first,
 * last], held, or NULL. */
static struct page *next_dirty(struct address_space *m, uint64_t first, uint64_t last)
{
	struct page *pg;

	list_for_each_entry(pg, &m->dirty,
			    mapping_link) if (pg->index >= first && pg->index <= last)
	{
		pg->refcnt++;
		return pg;
	}
	return NULL;
}

/* Writes the held page pg back if it is still dirty and cached: 0 or
 * the error (recorded in m->wb_err). */
static int write_back_page(struct address_space *m, struct inode *ip, struct page *pg)
{
	uint64_t size = inode_size(ip), at = pg->index * PAGE_SIZE;
	bool go;
	int err = 0;

	filemap_page_lock(pg);
	spin_lock(&pagecache_lock);
	if ((go = pg->mapping == m && (pg->flags & PG_DIRTY))) {
		filemap_set_dirty(pg, false);
		pg->flags |= PG_WRITEBACK;
		nwriteback++;
	}
	spin_unlock(&pagecache_lock);
	if (go && at < size)
		err = m->ops->writepage(ip, pg->index, pg->pa,
					size - at < PAGE_SIZE ? size - at : PAGE_SIZE);
	spin_lock(&pagecache_lock);
	if (go) {
		pg->flags &= ~PG_WRITEBACK;
		nwriteback--;
		if (err && !m->wb_err)
			m->wb_err = err;
		/* Still mapped shared and writable: stores may come, unseen. */
		if ((pg->flags & PG_MAPWRITE) && frame_refcount(pg->pa) > 1)
			filemap_set_dirty(pg, true);
		else
			pg->flags &= ~PG_MAPWRITE;
	}
	spin_unlock(&pagecache_lock);
	filemap_page_unlock(pg);
	return err;
}

int filemap_writeback(struct address_space *m, struct inode *ip, uint64_t first, uint64_t last)
{
	unsigned long budget;
	int err = 0;

	spin_lock(&pagecache_lock);
	budget = m->ndirty; /* each page once: a mapped page comes back dirty */
	spin_unlock(&pagecache_lock);
	while (budget--) {
		struct page *pg;
		int werr;

		spin_lock(&pagecache_lock);
		pg = next_dirty(m, first, last);
		spin_unlock(&pagecache_lock);
		if (!pg)
			break;
		werr = write_back_page(m, ip, pg);
		filemap_page_put(pg);
		if (!err)
			err = werr;
	}
	return err;
}

int filemap_take_error(struct address_space *m)
{
	int err;

	spin_lock(&pagecache_lock);
	err = m->wb_err;
	m->wb_err = 0;
	spin_unlock(&pagecache_lock);
	return err;
}

void filemap_page_mkwrite(struct address_space *m, uint64_t idx)
{
	struct page *pg;

	spin_lock(&pagecache_lock);
	if ((pg = filemap_lookup(m, idx)) && (pg->flags & PG_UPTODATE)) {
		pg->flags |= PG_MAPWRITE;
		filemap_set_dirty(pg, true);
	}
	spin_unlock(&pagecache_lock);
}
