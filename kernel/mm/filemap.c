/*
 * The page cache (filemap.h, docs/pagecache.md).  Pages are found by
 * (mapping, index) in one hash sized by memory (Linux 2.4's page hash):
 * O(1) lookups, no memory for the holes of a sparse file (a growable
 * array per file would spend 8 bytes per hole page: 2 MiB for a sparse
 * file 1 GiB long) and no per-file index to grow or free.  Mappings are
 * found by (super block, inode number) in a second hash.  One LRU list
 * orders every page for reclaim.
 */
#include "mm/filemap_internal.h"
#include "arch/x86_64/timer.h"
#include "block/bcache.h"
#include "fs/inode.h"
#include "fs/proc/proc_sys.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/kpageflags.h"
#include "mm/layout.h"
#include "proc/task.h"
#include "sched/wait.h"
#include <uapi/errno.h>

#define MAPPING_HASH 256

/*
 * Protects both hashes, the LRU list, every mapping's host, pages and
 * counts, and every page's mapping, refcnt and flags.  Innermost but for
 * the frame and heap locks; never held across I/O or a user copy.
 */
struct spinlock pagecache_lock = SPINLOCK_INIT("pagecache");
static struct list_head *page_hash; /* page_hash_mask + 1 chains: filemap_init */
static uint64_t page_hash_mask;
static struct list_head mapping_hash[MAPPING_HASH];
static struct list_head lru = LIST_HEAD_INIT(lru);
static unsigned long npages, nmappings;
unsigned long ndirty, nwriteback;
struct list_head dirty_mappings = LIST_HEAD_INIT(dirty_mappings);
unsigned long ndirty_mappings;
/* Tasks waiting for a page's lock (PG_LOCKED). */
static struct wait_queue page_wq;
struct wait_queue flush_wq;

void filemap_init(void)
{
	uint64_t n = 1024;

	while (n < frame_total_count() / 8)
		n <<= 1; /* a chain per eight frames */
	if (!(page_hash = kmalloc(n * sizeof(*page_hash))))
		panic("filemap: no memory for the page hash");
	for (uint64_t i = 0; i < n; i++)
		list_init(&page_hash[i]);
	for (int i = 0; i < MAPPING_HASH; i++)
		list_init(&mapping_hash[i]);
	wait_queue_init(&page_wq, "page");
	wait_queue_init(&flush_wq, "filemap_flush");
	page_hash_mask = n - 1;
}

static struct list_head *page_chain(const struct address_space *m, uint64_t idx)
{
	uint64_t h = ((uint64_t)m >> 6) * 0x9E3779B97F4A7C15ULL + idx;

	return &page_hash[(h ^ (h >> 29)) & page_hash_mask];
}

static struct list_head *mapping_chain(const struct super_block *sb, uint64_t ino)
{
	uint64_t h = ((uint64_t)sb >> 6) * 31 + ino;

	return &mapping_hash[(h ^ (h >> 8)) % MAPPING_HASH];
}

unsigned long filemap_page_count(void)
{
	return __atomic_load_n(&npages, __ATOMIC_RELAXED);
}

void filemap_kpageflags(uint64_t first, size_t n, uint64_t *out)
{
	struct page *pg;

	spin_lock(&pagecache_lock);
	list_for_each_entry(pg, &lru, lru_link)
	{
		uint64_t pfn = pg->pa >> PAGE_SHIFT, f = KPF_LRU;

		if (pfn < first || pfn - first >= n)
			continue;
		f |= pg->flags & PG_LOCKED ? KPF_LOCKED : 0;
		f |= pg->flags & PG_UPTODATE ? KPF_UPTODATE : 0;
		f |= pg->flags & PG_DIRTY ? KPF_DIRTY : 0;
		f |= pg->flags & PG_WRITEBACK ? KPF_WRITEBACK : 0;
		/* Mapped: a process holds the frame beside the page's own. */
		f |= frame_refcount(pg->pa) > 1 ? KPF_MMAP : 0;
		out[pfn - first] |= f;
	}
	spin_unlock(&pagecache_lock);
}

unsigned long filemap_dirty_count(void)
{
	return __atomic_load_n(&ndirty, __ATOMIC_RELAXED);
}

unsigned long filemap_dirty_files(void)
{
	return __atomic_load_n(&ndirty_mappings, __ATOMIC_RELAXED);
}

unsigned long filemap_writeback_count(void)
{
	return __atomic_load_n(&nwriteback, __ATOMIC_RELAXED);
}

unsigned long filemap_mapping_count(void)
{
	return __atomic_load_n(&nmappings, __ATOMIC_RELAXED);
}

/* ---- mappings ---- */

struct address_space *filemap_attach(struct inode *ip, const struct filemap_ops *ops)
{
	struct address_space *m, *fresh;
	struct list_head *h;

	if (!(fresh = kzalloc(sizeof(*fresh))))
		return NULL;
	fresh->sb = ip->sb;
	fresh->ino = ip->ino;
	fresh->ops = ops;
	list_init(&fresh->pages);
	list_init(&fresh->dirty);
	mutex_init(&fresh->write_lock, "filemap_write");
	h = mapping_chain(ip->sb, ip->ino);
	spin_lock(&pagecache_lock);
	list_for_each_entry(m, h, hash_link) if (m->sb == ip->sb && m->ino == ip->ino) break;
	if (&m->hash_link == h) { /* none: the fresh one */
		m = fresh;
		fresh = NULL;
		list_add(&m->hash_link, h);
		nmappings++;
	}
	/* One inode of a file at a time (the file system's icache). */
	m->host = ip;
	spin_unlock(&pagecache_lock);
	kfree(fresh);
	return m;
}

/* Under pagecache_lock: frees m if nothing is left of it (no pages, no
 * inode); the caller no longer touches it then. */
static void mapping_gc(struct address_space *m)
{
	if (m->nrpages || m->host)
		return;
	list_del(&m->hash_link);
	nmappings--;
	kfree(m); /* the heap's lock nests inside pagecache_lock */
}

/* ---- pages ---- */

/* Under pagecache_lock: page idx of m, or NULL. */
struct page *filemap_lookup(struct address_space *m, uint64_t idx)
{
	struct page *pg;

	list_for_each_entry(pg, page_chain(m, idx),
			    hash_link) if (pg->mapping == m && pg->index == idx) return pg;
	return NULL;
}

static void page_free(struct page *pg)
{
	frame_unref(pg->pa);
	kfree(pg);
}

/* Under pagecache_lock: m has one more dirty page, or one less; a
 * mapping's first dirty page puts it at the end of the dirty list, stamped
 * now (the flusher's expiry counts from then), its last takes it off. */
static void count_dirty(struct address_space *m, bool dirty)
{
	if (dirty && !m->ndirty++) {
		m->dirtied_ns = clock_monotonic_ns();
		list_add_tail(&m->dirty_link, &dirty_mappings);
		ndirty_mappings++;
	} else if (!dirty && !--m->ndirty) {
		list_del(&m->dirty_link);
		ndirty_mappings--;
	}
	ndirty += dirty ? 1 : -1;
}

/* Under pagecache_lock: takes pg out of the cache and drops the cache's
 * reference: true when pg is to be freed (page_free, outside the lock). */
static bool page_remove(struct page *pg)
{
	struct address_space *m = pg->mapping;

	if (pg->flags & PG_DIRTY) { /* a truncation throws the data away */
		pg->flags &= ~PG_DIRTY;
		count_dirty(m, false);
		task_io_add(&task_io_current()->cancelled_write_bytes, PAGE_SIZE);
	}
	list_del(&pg->hash_link);
	list_del(&pg->mapping_link);
	list_del(&pg->lru_link);
	list_init(&pg->lru_link);
	pg->mapping = NULL;
	npages--;
	m->nrpages--;
	mapping_gc(m);
	return --pg->refcnt == 0;
}

/* Drops a holder's reference (and moves the page to the LRU's head). */
void filemap_page_put(struct page *pg)
{
	bool gone;

	spin_lock(&pagecache_lock);
	gone = --pg->refcnt == 0;
	if (pg->mapping) {
		list_del(&pg->lru_link);
		list_add(&pg->lru_link, &lru);
	}
	spin_unlock(&pagecache_lock);
	if (gone)
		page_free(pg);
}

/* Waits while pg (held) is locked, then takes the lock if take: the
 * flag is cleared under pagecache_lock before the wake-up and tested
 * under it after queueing, so no wake-up is lost. */
static void page_wait(struct page *pg, bool take)
{
	for (;;) {
		DEFINE_WAIT(w);
		bool locked;

		prepare_to_wait(&page_wq, &w);
		spin_lock(&pagecache_lock);
		if (!(locked = pg->flags & PG_LOCKED) && take)
			pg->flags |= PG_LOCKED;
		spin_unlock(&pagecache_lock);
		if (locked)
			schedule();
		finish_wait(&page_wq, &w);
		if (!locked)
			return;
	}
}

static void page_wait_unlocked(struct page *pg)
{
	page_wait(pg, false);
}

void filemap_page_lock(struct page *pg)
{
	page_wait(pg, true);
}

void filemap_page_unlock(struct page *pg)
{
	spin_lock(&pagecache_lock);
	pg->flags &= ~PG_LOCKED;
	spin_unlock(&pagecache_lock);
	wake_up(&page_wq);
}

/* Under pagecache_lock: pg (cached) becomes dirty, or clean. */
void filemap_set_dirty(struct page *pg, bool dirty)
{
	struct address_space *m = pg->mapping;

	if (!m || !(pg->flags & PG_DIRTY) == !dirty)
		return;
	if (dirty) /* the caller dirtied it: its write_bytes (proc/task_io.h) */
		task_io_add(&task_io_current()->write_bytes, PAGE_SIZE);
	pg->flags ^= PG_DIRTY;
	count_dirty(m, dirty);
	list_del(&pg->mapping_link);
	list_add_tail(&pg->mapping_link, dirty ? &m->dirty : &m->pages);
}

/* A frame for a new page: past the frame reserve, the cache's own clean
 * pages and buffers go first (it never takes the reserve). */
static uint64_t page_frame(void)
{
	if (!frame_spare(1) && !filemap_shrink(FILEMAP_RA_PAGES) &&
	    !bcache_shrink(FILEMAP_RA_PAGES))
		return 0;
	return frame_spare(1) ? frame_alloc() : 0;
}

/* A new page of m at idx, locked, cached and held (refcnt 2), or NULL
 * when idx is cached already or memory ran out (*err -ENOMEM). */
struct page *filemap_page_new_locked(struct address_space *m, uint64_t idx, int *err)
{
	struct page *pg = kzalloc(sizeof(*pg));
	uint64_t pa = pg ? page_frame() : 0;

	*err = 0;
	if (!pa) {
		kfree(pg);
		*err = -ENOMEM;
		return NULL;
	}
	pg->index = idx;
	pg->pa = pa;
	pg->refcnt = 2;
	pg->flags = PG_LOCKED;
	spin_lock(&pagecache_lock);
	if (filemap_lookup(m, idx)) {
		spin_unlock(&pagecache_lock);
		page_free(pg);
		return NULL;
	}
	pg->mapping = m;
	list_add(&pg->hash_link, page_chain(m, idx));
	list_add_tail(&pg->mapping_link, &m->pages);
	list_add(&pg->lru_link, &lru);
	npages++;
	m->nrpages++;
	spin_unlock(&pagecache_lock);
	return pg;
}

/* Ends the read of the locked pages pgs[0..n): uptodate, or out of the
 * cache when it failed (a later read tries again); unlocks, wakes the
 * waiters, drops the reader's holds. */
static void read_end(struct page **pgs, unsigned int n, int err)
{
	spin_lock(&pagecache_lock);
	for (unsigned int i = 0; i < n; i++) {
		pgs[i]->flags &= ~PG_LOCKED;
		if (!err)
			pgs[i]->flags |= PG_UPTODATE;
		else if (pgs[i]->mapping)
			page_remove(pgs[i]); /* never the last reference: ours */
	}
	spin_unlock(&pagecache_lock);
	wake_up(&page_wq);
	for (unsigned int i = 0; i < n; i++)
		filemap_page_put(pgs[i]);
}

/*
 * Reads pages idx.. of m that are not cached, up to count and the last
 * page before size, stopping at the first cached one: 0 (perhaps nothing
 * was read: another task made idx meanwhile), -ENOMEM, -EIO.
 */
static int read_pages(struct address_space *m, struct inode *ip, uint64_t idx, unsigned int count,
		      uint64_t size)
{
	struct page *pgs[FILEMAP_RA_PAGES];
	uint64_t pas[FILEMAP_RA_PAGES], last = (size + PAGE_SIZE - 1) / PAGE_SIZE;
	unsigned int n = 0;
	int err = 0;

	if (count > FILEMAP_RA_PAGES)
		count = FILEMAP_RA_PAGES;
	for (; n < count && idx + n < last; n++) {
		if (!(pgs[n] = filemap_page_new_locked(m, idx + n, &err)))
			break;
		pas[n] = pgs[n]->pa;
	}
	if (!n)
		return err;
	err = m->ops->readpages(ip, idx, pas, n);
	read_end(pgs, n, err);
	spin_lock(&pagecache_lock);
	m->ra_next = idx + n;
	spin_unlock(&pagecache_lock);
	return err;
}

/*
 * Page idx of m, uptodate and held, or NULL with *err.  A page missing
 * is read with those after it when the reader is sequential (idx follows
 * the last page read, or is the first).
 */
struct page *filemap_get_page(struct address_space *m, struct inode *ip, uint64_t idx,
			      uint64_t size, int *err)
{
	for (int tries = 0; tries < 4; tries++) {
		struct page *pg;
		bool seq;

		spin_lock(&pagecache_lock);
		if ((pg = filemap_lookup(m, idx)))
			pg->refcnt++;
		seq = idx == 0 || idx == m->ra_next;
		spin_unlock(&pagecache_lock);
		if (!pg) {
			/* A readahead that failed (a bad block anywhere in its
			 * window) is dropped: the page alone is read again. */
			if ((*err = read_pages(m, ip, idx, seq ? FILEMAP_RA_PAGES : 1, size)) &&
			    (!seq || (*err = read_pages(m, ip, idx, 1, size))))
				return NULL;
			continue; /* now cached (or another task's read is) */
		}
		/* An uptodate page is given as it is: a writer holds its lock
		 * while it copies from the user, whose fault on a mapping of
		 * this very page must not wait for it. */
		if (!(__atomic_load_n(&pg->flags, __ATOMIC_ACQUIRE) & PG_UPTODATE))
			page_wait_unlocked(pg);
		if (__atomic_load_n(&pg->flags, __ATOMIC_ACQUIRE) & PG_UPTODATE)
			return pg;
		filemap_page_put(pg); /* another task's read failed: ours tries again */
	}
	*err = -EIO;
	return NULL;
}

long filemap_read(struct address_space *m, struct inode *ip, struct iov_iter *to, uint64_t off,
		  uint64_t size)
{
	long done = 0;

	while (to->left && off < size) {
		size_t in = off % PAGE_SIZE, len = PAGE_SIZE - in, n;
		int err;
		struct page *pg = filemap_get_page(m, ip, off / PAGE_SIZE, size, &err);

		if (len > size - off)
			len = size - off;
		if (!pg && err == -EIO && m->ops->read_uncached) {
			/* A page that cannot be read whole: its blocks that can
			 * (Linux's partially uptodate pages), up to the bad one. */
			long r =
			    m->ops->read_uncached(ip, off, len < to->left ? len : to->left, to);

			if (r > 0)
				done += r, off += r;
			if (r > 0 && (size_t)r == len)
				continue;
			return done ? done : r;
		}
		if (!pg)
			return done ? done : err;
		/* No lock held: a fault on the user's buffer may read this
		 * very file through its mapping. */
		n = copy_to_iter((char *)P2V(pg->pa) + in, len, to);
		filemap_page_put(pg);
		done += n;
		off += n;
		if (n < len)
			return done ? done : -EFAULT;
	}
	return done;
}

/* Under nothing: page idx of m if cached and uptodate, held. */
static struct page *find_uptodate(struct address_space *m, uint64_t idx)
{
	struct page *pg;

	spin_lock(&pagecache_lock);
	if ((pg = filemap_lookup(m, idx)) && (pg->flags & (PG_UPTODATE | PG_LOCKED)) == PG_UPTODATE)
		pg->refcnt++;
	else
		pg = NULL;
	spin_unlock(&pagecache_lock);
	return pg;
}

uint64_t filemap_page_ref(struct address_space *m, struct inode *ip, uint64_t idx, bool read)
{
	uint64_t size = inode_size(ip), pa;
	struct page *pg;
	int err;

	if (idx >= (size + PAGE_SIZE - 1) / PAGE_SIZE)
		return 0;
	pg = read ? filemap_get_page(m, ip, idx, size, &err) : find_uptodate(m, idx);
	if (!pg)
		return 0;
	pa = pg->pa;
	frame_ref(pa); /* the caller's: the frame outlives the page if need be */
	filemap_page_put(pg);
	return pa;
}

/* Under pagecache_lock: removes every page of m (which has no inode:
 * nothing holds or locks them) into *gone; m goes with its last page. */
static void remove_all(struct address_space *m, struct list_head *gone)
{
	/* Counted first: page_remove frees m with its last page. */
	for (unsigned long n = m->nrpages; n; n--) {
		struct list_head *l = list_empty(&m->pages) ? &m->dirty : &m->pages;
		struct page *pg = list_first_entry(l, struct page, mapping_link);

		if (page_remove(pg))
			list_add(&pg->lru_link, gone);
	}
}

static void free_list(struct list_head *gone)
{
	struct page *pg, *n;

	list_for_each_entry_safe(pg, n, gone, lru_link) page_free(pg);
}

#define TRUNC_BATCH 64

/* Under pagecache_lock: up to TRUNC_BATCH pages of m from index first
 * on, held, into pgs: how many. */
static unsigned int grab_from(struct address_space *m, uint64_t first, struct page **pgs)
{
	struct list_head *lists[2] = {&m->pages, &m->dirty};
	unsigned int n = 0;
	struct page *pg;

	for (int i = 0; i < 2; i++)
		list_for_each_entry(pg, lists[i], mapping_link) if (pg->index >= first)
		{
			pg->refcnt++;
			pgs[n++] = pg;
			if (n == TRUNC_BATCH)
				return n;
		}
	return n;
}

void filemap_truncate(struct address_space *m, uint64_t size)
{
	uint64_t first = (size + PAGE_SIZE - 1) / PAGE_SIZE;
	struct page *pgs[TRUNC_BATCH], *tail;
	unsigned int n;
	int err;

	/* Each page is taken out under its lock, so a write-back of it
	 * ends before the file system frees its blocks. */
	do {
		spin_lock(&pagecache_lock);
		n = grab_from(m, first, pgs);
		spin_unlock(&pagecache_lock);
		for (unsigned int i = 0; i < n; i++) {
			filemap_page_lock(pgs[i]);
			spin_lock(&pagecache_lock);
			if (pgs[i]->mapping == m)
				page_remove(pgs[i]); /* never the last reference: ours */
			spin_unlock(&pagecache_lock);
			filemap_page_unlock(pgs[i]);
			filemap_page_put(pgs[i]);
		}
	} while (n);
	/* The last page's bytes past the size become zeroes in the cache
	 * and, dirty, on the disk: a later growth reads zeroes there (the
	 * page is read first when it is not cached: Linux's
	 * block_truncate_page). */
	if (size % PAGE_SIZE &&
	    (tail = filemap_get_page(m, m->host, size / PAGE_SIZE, size, &err))) {
		filemap_page_lock(tail);
		memset((char *)P2V(tail->pa) + size % PAGE_SIZE, 0, PAGE_SIZE - size % PAGE_SIZE);
		spin_lock(&pagecache_lock);
		if (tail->mapping == m)
			filemap_set_dirty(tail, true);
		spin_unlock(&pagecache_lock);
		filemap_page_unlock(tail);
		filemap_page_put(tail);
	}
}

void filemap_detach(struct address_space *m, struct inode *ip, bool keep)
{
	struct list_head gone = LIST_HEAD_INIT(gone);

	/* A mapping without its inode cannot write: its dirty pages go to
	 * the disk now (an error stays in the log: no fd is left to tell). */
	if (keep && __atomic_load_n(&m->ndirty, __ATOMIC_RELAXED))
		filemap_writeback(m, ip, 0, ~0ULL);
	/* The flusher may be writing through ip (taken before a newer inode
	 * of the file attached, or meanwhile): its end is waited for under
	 * the lock that then takes ip out of reach, as the flusher takes m
	 * only under it, while m->host is set. */
	spin_lock(&pagecache_lock);
	while (m->flushing) {
		spin_unlock(&pagecache_lock);
		filemap_flush_wait(m);
		spin_lock(&pagecache_lock);
	}
	if (m->host != ip) { /* a newer inode of the file has it now */
		spin_unlock(&pagecache_lock);
		return;
	}
	m->host = NULL;
	m->ra_next = 0;
	m->wb_err = 0;
	if (!keep && m->nrpages)
		remove_all(m, &gone); /* frees m with its last page */
	else
		mapping_gc(m);
	spin_unlock(&pagecache_lock);
	free_list(&gone);
}

void filemap_drop_sb(struct super_block *sb)
{
	struct list_head gone = LIST_HEAD_INIT(gone);

	spin_lock(&pagecache_lock);
	for (int i = 0; i < MAPPING_HASH; i++) {
		struct address_space *m, *n;

		list_for_each_entry_safe(m, n, &mapping_hash[i], hash_link) if (m->sb == sb)
		{
			m->host = NULL; /* no inode of sb is left */
			if (m->nrpages)
				remove_all(m, &gone);
			else
				mapping_gc(m);
		}
	}
	spin_unlock(&pagecache_lock);
	free_list(&gone);
}

unsigned long filemap_shrink(unsigned long want)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	unsigned long freed = 0;
	struct page *pg, *n;

	spin_lock(&pagecache_lock);
	for (pg = list_entry(lru.prev, struct page, lru_link);
	     &pg->lru_link != &lru && freed < want; pg = n) {
		n = list_entry(pg->lru_link.prev, struct page, lru_link);
		/* Held, being read, or mapped by a process (no reverse map to
		 * unmap it): it stays. */
		if (pg->refcnt != 1 || pg->flags != PG_UPTODATE || frame_refcount(pg->pa) != 1)
			continue;
		page_remove(pg); /* may free a mapping, never a page's neighbour */
		list_add(&pg->lru_link, &gone);
		freed++;
	}
	spin_unlock(&pagecache_lock);
	free_list(&gone);
	return freed;
}

/*
 * /proc/sys/vm/drop_caches (root, write-only as Linux's 0200): 1 drops the
 * clean page cache and the clean cached blocks (Linux's buffers live in
 * the block devices' page cache, so its 1 drops them too), 2 the slab
 * caches' free memory (the heap's purge), 3 both; any other positive
 * number is taken as its low bits say (Linux 6.x).  Dirty pages stay.
 */
static int drop_caches;

static long drop_caches_store(const struct proc_sys_row *row, const char *text, size_t len,
			      uint64_t *pos)
{
	long ret = proc_sys_int_store(row, text, len, pos);
	int v = __atomic_load_n(&drop_caches, __ATOMIC_RELAXED);

	if (ret > 0 && (v & 1)) {
		filemap_shrink(~0UL);
		bcache_shrink(~0UL);
	}
	if (ret > 0 && (v & 2))
		heap_purge();
	return ret;
}

PROC_SYS_ROW(drop_caches_row, .path = "vm/drop_caches", .mode = 0200, .show = proc_sys_int_show,
	     .store = drop_caches_store, .data = &drop_caches, .min = 1, .max = __INT_MAX__);
