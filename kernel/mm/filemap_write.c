/*
 * The page cache's write side (filemap.h, docs/pagecache.md): writes
 * copied into cached pages that become dirty, write-back through the
 * file system's writepage (and the flusher's and sync's choice of files),
 * the throttle of a writer past the dirty limit (mm/writeback.c), and
 * shared writable mappings.
 */
#include "arch/x86_64/timer.h"
#include "fs/inode.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/filemap_internal.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "mm/rmap.h"
#include "mm/writeback.h"
#include <uapi/errno.h>

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
	if (done && writeback_balance())
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
	/* Clean now, so the next store through a mapping faults and
	 * dirties it again; a store before is in the frame written below. */
	if (go)
		rmap_mkclean(ip, pg->index, pg->pa);
	if (go && at < size)
		err = m->ops->writepage(ip, pg->index, pg->pa,
					size - at < PAGE_SIZE ? size - at : PAGE_SIZE);
	spin_lock(&pagecache_lock);
	if (go) {
		pg->flags &= ~PG_WRITEBACK;
		nwriteback--;
		if (err && !m->wb_err)
			m->wb_err = err;
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
	budget = m->ndirty; /* each page once: a store meanwhile dirties it again */
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

/* Under pagecache_lock: m was written back; if it is dirty again (a
 * write meanwhile, a page mapped shared and writable) it goes to the end
 * of the dirty list as dirtied now (Linux's redirty_tail), so that one
 * file does not hold up the others. */
static void requeue_dirty(struct address_space *m)
{
	if (!m->ndirty)
		return;
	m->dirtied_ns = clock_monotonic_ns();
	list_del(&m->dirty_link);
	list_add_tail(&m->dirty_link, &dirty_mappings);
}

#define SYNC_BATCH 16

/* Under pagecache_lock: up to SYNC_BATCH inodes of sb (NULL: any) whose
 * mapping has dirty pages, oldest first, referenced (an inode whose last
 * reference is going is passed over: its free_inode writes its pages),
 * into ms (each held by its inode, which stays its host while
 * referenced). */
static unsigned int grab_dirty_hosts(struct super_block *sb, struct address_space **ms)
{
	struct address_space *m;
	unsigned int n = 0;

	list_for_each_entry(m, &dirty_mappings, dirty_link)
	{
		uint32_t refs;

		if (n == SYNC_BATCH)
			break;
		if (!m->host || (sb && m->sb != sb))
			continue;
		refs = __atomic_load_n(&m->host->refcount, __ATOMIC_RELAXED);
		while (refs &&
		       !__atomic_compare_exchange_n(&m->host->refcount, &refs, refs + 1, false,
						    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			;
		if (refs)
			ms[n++] = m;
	}
	return n;
}

int filemap_sync_sb(struct super_block *sb)
{
	struct address_space *ms[SYNC_BATCH];
	unsigned long rounds;
	unsigned int n;
	int err = 0;

	spin_lock(&pagecache_lock);
	rounds = ndirty_mappings / SYNC_BATCH + 2;
	spin_unlock(&pagecache_lock);
	/* Each round writes the oldest it found, which leave the list or go
	 * to its end; a file dirtied meanwhile comes after them, so every
	 * file dirty at the start is written within the rounds. */
	while (rounds--) {
		spin_lock(&pagecache_lock);
		n = grab_dirty_hosts(sb, ms);
		spin_unlock(&pagecache_lock);
		if (!n)
			break;
		for (unsigned int i = 0; i < n; i++) {
			struct inode *ip = ms[i]->host;
			int werr = filemap_writeback(ms[i], ip, 0, ~0ULL);

			if (!err)
				err = werr;
			spin_lock(&pagecache_lock);
			requeue_dirty(ms[i]);
			spin_unlock(&pagecache_lock);
			inode_put(ip);
		}
	}
	return err;
}

bool filemap_flush_oldest(uint64_t before_ns)
{
	struct address_space *m;
	struct inode *ip = NULL;

	spin_lock(&pagecache_lock);
	list_for_each_entry(m, &dirty_mappings, dirty_link)
	{
		if (m->dirtied_ns > before_ns)
			break;
		if (m->host && !m->flushing) {
			m->flushing = true; /* ip's free_inode waits for the end */
			ip = m->host;
			break;
		}
	}
	spin_unlock(&pagecache_lock);
	if (!ip)
		return false;
	filemap_writeback(m, ip, 0, ~0ULL); /* an error waits for fsync */
	spin_lock(&pagecache_lock);
	requeue_dirty(m);
	m->flushing = false;
	spin_unlock(&pagecache_lock);
	wake_up(&flush_wq);
	return true;
}

void filemap_flush_wait(struct address_space *m)
{
	for (;;) {
		DEFINE_WAIT(w);
		bool busy;

		prepare_to_wait(&flush_wq, &w);
		spin_lock(&pagecache_lock);
		busy = m->flushing;
		spin_unlock(&pagecache_lock);
		if (busy)
			schedule();
		finish_wait(&flush_wq, &w);
		if (!busy)
			return;
	}
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
	if ((pg = filemap_lookup(m, idx)) && (pg->flags & PG_UPTODATE))
		filemap_set_dirty(pg, true);
	spin_unlock(&pagecache_lock);
}
