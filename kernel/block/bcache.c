/*
 * The buffer cache (bcache.h): a hash of buffers by (block_device, block),
 * an LRU list for eviction, write-back on sync and eviction.  Mostly
 * xv6's bio.c, with Linux's dirty flag and a size bound.
 */
#include "block/bcache.h"
#include "proc/task.h"
#include "arch/x86_64/timer.h"
#include "block/blkdev.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>

#define BCACHE_HASH 256

/*
 * Protects the hash chains, the LRU list, every buffer's refcnt and flags,
 * and the counts.  Innermost but for the frame and heap locks; never held
 * across I/O or a buffer's sleeping lock.
 */
static struct spinlock bcache_lock = SPINLOCK_INIT("bcache");
static struct list_head hash[BCACHE_HASH];
static struct list_head lru = LIST_HEAD_INIT(lru); /* most recently used first */
static unsigned long nbufs, ndirty;
static bool hash_ready; /* hash[] and ra_wq set up (the first getblk) */
/* Tasks waiting for a readahead's buffer (BUF_READING) to be read. */
static struct wait_queue ra_wq;

static struct list_head *chain(const struct block_device *bdev, uint64_t blockno)
{
	uint64_t h = ((uint64_t)bdev >> 4) * 31 + blockno;

	return &hash[(h ^ (h >> 8)) % BCACHE_HASH];
}

/* The cache's bound: BCACHE_MAX_BUFS, or an eighth of memory if less. */
static unsigned long bcache_max(void)
{
	unsigned long eighth = frame_total_count() / 8;

	return eighth < BCACHE_MAX_BUFS ? eighth : BCACHE_MAX_BUFS;
}

unsigned long bcache_count(void)
{
	return __atomic_load_n(&nbufs, __ATOMIC_RELAXED);
}

unsigned long bcache_dirty_count(void)
{
	return __atomic_load_n(&ndirty, __ATOMIC_RELAXED);
}

uint32_t bcache_default_blocksize(uint32_t lbsize, uint64_t sectors)
{
	uint32_t bs = PAGE_SIZE;

	while (bs > lbsize && ((sectors << SECTOR_SHIFT) & (bs - 1)))
		bs >>= 1;
	return bs;
}

/* Under bcache_lock: the cached buffer, or NULL. */
static struct buf *find(struct block_device *bdev, uint64_t blockno)
{
	struct buf *b;
	struct list_head *h = chain(bdev, blockno);

	list_for_each_entry(b, h, hash_link) if (b->bdev == bdev && b->blockno == blockno &&
						 b->size == bdev->blocksize) return b;
	return NULL;
}

/* Under bcache_lock: takes b out of the cache's lists (its memory goes
 * with buf_free, outside the lock). */
static void unlink_buf(struct buf *b)
{
	list_del(&b->hash_link);
	list_init(&b->hash_link);
	list_del(&b->lru_link);
	list_init(&b->lru_link);
	if (b->flags & BUF_DIRTY)
		ndirty--;
	b->flags = (b->flags & ~BUF_DIRTY) | BUF_STALE;
	nbufs--;
}

static void buf_free(struct buf *b)
{
	frame_unref(V2P(b->data));
	bdev_put(b->bdev);
	kfree(b);
}

/* A new buffer (refcnt 1, not in the cache), or NULL.  Leaves the frame
 * reserve alone: a cache can always do with less. */
static struct buf *buf_alloc(struct block_device *bdev, uint64_t blockno)
{
	struct buf *b = frame_spare(1) ? kzalloc(sizeof(*b)) : NULL;
	uint64_t pa = b ? frame_alloc() : 0;

	if (!pa) {
		kfree(b);
		return NULL;
	}
	b->bdev = bdev;
	bdev_get(bdev);
	b->blockno = blockno;
	b->size = bdev->blocksize;
	b->refcnt = 1;
	b->data = P2V(pa);
	mutex_init(&b->lock, "buf");
	list_init(&b->hash_link);
	list_init(&b->lru_link);
	return b;
}

static bool buf_has(struct buf *b, uint32_t flag);
static void buf_put(struct buf *b);

/* Under bcache_lock: an unused dirty buffer from the cold end, referenced
 * for write-back, or NULL. */
static struct buf *cold_dirty(void)
{
	struct buf *b;

	for (b = list_entry(lru.prev, struct buf, lru_link); &b->lru_link != &lru;
	     b = list_entry(b->lru_link.prev, struct buf, lru_link))
		if (!b->refcnt && (b->flags & BUF_DIRTY)) {
			b->refcnt++;
			return b;
		}
	return NULL;
}

/* Writes the dirty buffer b (referenced by the caller, unlocked) back, and
 * drops that reference. */
static void writeback_one(struct buf *b)
{
	mutex_lock(&b->lock);
	if (buf_has(b, BUF_DIRTY))
		bwrite(b);
	brelse(b);
}

/*
 * Makes room for one more buffer when the cache is at its bound: frees
 * clean unused buffers from the cold end, or writes a dirty one back and
 * tries again.  A write-back can need a buffer itself (a loop device over
 * a disk goes through the disk's cache), whose make_room would write
 * another back, and so on down the stack: inside one (the task's
 * bcache_evicting) only clean buffers go, and the cache grows past its
 * bound by one.  A cache whose every buffer is held grows past its bound
 * too (each holder holds a few, for a bounded time).
 */
static void make_room(void)
{
	struct task *t = current();

	for (int tries = 0; tries < 8; tries++) {
		struct buf *dirty;

		if (bcache_count() < bcache_max() || bcache_shrink(1) || t->bcache_evicting)
			return;
		spin_lock(&bcache_lock);
		dirty = cold_dirty();
		spin_unlock(&bcache_lock);
		if (!dirty)
			return;
		t->bcache_evicting = true;
		writeback_one(dirty);
		t->bcache_evicting = false;
	}
}

/* Waits while a readahead reads b (BUF_READING: it holds no lock on b, only
 * a reference): the flag is cleared under bcache_lock before the wake-up,
 * and tested under it after queueing, so no wake-up is lost. */
static void wait_not_reading(struct buf *b)
{
	while (buf_has(b, BUF_READING)) {
		DEFINE_WAIT(w);

		prepare_to_wait(&ra_wq, &w);
		if (buf_has(b, BUF_READING))
			schedule();
		finish_wait(&ra_wq, &w);
	}
}

/* The buffer for the block, referenced and locked (not read): 0 or
 * -ENOMEM. */
static int getblk(struct block_device *bdev, uint64_t blockno, struct buf **out)
{
	struct buf *b, *fresh;
	bool reading = false;

	spin_lock(&bcache_lock);
	if (!hash_ready) {
		for (int i = 0; i < BCACHE_HASH; i++)
			list_init(&hash[i]);
		wait_queue_init(&ra_wq, "bcache_ra");
		__atomic_store_n(&hash_ready, true, __ATOMIC_RELEASE);
	}
	b = find(bdev, blockno);
	if (b) {
		b->refcnt++;
		reading = b->flags & BUF_READING;
	}
	spin_unlock(&bcache_lock);
	if (!b) {
		make_room();
		if (!(fresh = buf_alloc(bdev, blockno)))
			return -ENOMEM;
		spin_lock(&bcache_lock);
		b = find(bdev, blockno); /* another task may have made it meanwhile */
		if (b) {
			b->refcnt++;
			reading = b->flags & BUF_READING;
		} else {
			b = fresh;
			fresh = NULL;
			list_add(&b->hash_link, chain(bdev, blockno));
			list_add(&b->lru_link, &lru);
			nbufs++;
		}
		spin_unlock(&bcache_lock);
		if (fresh)
			buf_free(fresh);
	}
	if (reading) /* the flag is only ever set before a buffer is published */
		wait_not_reading(b);
	mutex_lock(&b->lock);
	*out = b;
	return 0;
}

int bget(struct block_device *bdev, uint64_t blockno, struct buf **out)
{
	return getblk(bdev, blockno, out);
}

static bool buf_has(struct buf *b, uint32_t flag)
{
	bool v;

	spin_lock(&bcache_lock);
	v = b->flags & flag;
	spin_unlock(&bcache_lock);
	return v;
}

static void set_flags(struct buf *b, uint32_t set, uint32_t clear)
{
	spin_lock(&bcache_lock);
	if ((set & BUF_DIRTY) && !(b->flags & (BUF_DIRTY | BUF_STALE))) {
		ndirty++;
		b->dirtied_ns = clock_monotonic_ns();
	}
	if ((clear & BUF_DIRTY) && (b->flags & BUF_DIRTY))
		ndirty--;
	b->flags = (b->flags | set) & ~clear;
	if (b->flags & BUF_STALE) /* gone from the cache: never counted dirty */
		b->flags &= ~BUF_DIRTY;
	spin_unlock(&bcache_lock);
}

static int buf_io(struct buf *b, enum bio_op op)
{
	return blkdev_rw_kernel(b->bdev, op, b->blockno * b->size, b->data, b->size);
}

int bread(struct block_device *bdev, uint64_t blockno, struct buf **out)
{
	int err = getblk(bdev, blockno, out);

	if (err || buf_has(*out, BUF_VALID))
		return err;
	if ((err = buf_io(*out, BIO_READ))) {
		brelse(*out);
		*out = NULL;
		return err;
	}
	set_flags(*out, BUF_VALID, 0);
	return 0;
}

bool bcache_cached(struct block_device *bdev, uint64_t blockno)
{
	struct buf *b;
	bool v;

	spin_lock(&bcache_lock);
	b = hash_ready ? find(bdev, blockno) : NULL;
	v = b && (b->flags & BUF_VALID);
	spin_unlock(&bcache_lock);
	return v;
}

/* A run of consecutive buffers for one readahead bio. */
struct ra_run {
	struct buf *b[BIO_MAX_SEGS];
	unsigned int n;
};

/* Reads the run's blocks with one bio, marks them valid if it worked,
 * lets the waiters in and drops the run's references. */
static void ra_read(struct block_device *bdev, struct ra_run *run)
{
	struct bio *bio = run->n ? bio_alloc(BIO_READ, bdev, 0) : NULL;
	int err = -ENOMEM;

	if (!run->n)
		return;
	if (bio) {
		bio->sector = run->b[0]->blockno * run->b[0]->size >> SECTOR_SHIFT;
		for (unsigned int i = 0; i < run->n; i++)
			bio_add_kernel(bio, run->b[i]->data, run->b[i]->size);
		err = submit_bio_wait(bio);
		bio_free(bio);
	}
	for (unsigned int i = 0; i < run->n; i++)
		set_flags(run->b[i], err ? 0 : BUF_VALID, BUF_READING);
	wake_up(&ra_wq);
	for (unsigned int i = 0; i < run->n; i++)
		buf_put(run->b[i]);
	run->n = 0;
}

/*
 * A new buffer for the block, published as BUF_READING (whoever finds it
 * waits for the read, wait_not_reading) and referenced, or NULL when the
 * block is cached already, the cache is full of what it cannot drop
 * without writing, or memory runs out.  Readahead takes no buffer's lock:
 * it never waits for a lock others hold (and lockdep bounds the mutexes a
 * task holds).
 */
static struct buf *getblk_fresh(struct block_device *bdev, uint64_t blockno)
{
	struct buf *b;

	if (bcache_count() >= bcache_max() && !bcache_shrink(1))
		return NULL;
	if (!(b = buf_alloc(bdev, blockno)))
		return NULL;
	b->flags = BUF_READING;
	spin_lock(&bcache_lock);
	if (find(bdev, blockno)) {
		spin_unlock(&bcache_lock);
		buf_free(b);
		return NULL;
	}
	list_add(&b->hash_link, chain(bdev, blockno));
	list_add(&b->lru_link, &lru);
	nbufs++;
	spin_unlock(&bcache_lock);
	return b;
}

void bcache_readahead(struct block_device *bdev, uint64_t blockno, unsigned int count)
{
	uint64_t end = bdev_bytes(bdev) / __atomic_load_n(&bdev->blocksize, __ATOMIC_RELAXED);
	struct ra_run run = {.n = 0};

	if (!__atomic_load_n(&hash_ready, __ATOMIC_ACQUIRE))
		return; /* the first bread sets the cache up */
	for (; count-- && blockno < end; blockno++) {
		struct buf *b = getblk_fresh(bdev, blockno);

		if (!b)
			break;
		run.b[run.n++] = b;
		if (run.n == BIO_MAX_SEGS)
			ra_read(bdev, &run);
	}
	ra_read(bdev, &run);
}

void bdirty(struct buf *b)
{
	set_flags(b, BUF_VALID | BUF_DIRTY, 0);
}

int bwrite(struct buf *b)
{
	int err = buf_io(b, BIO_WRITE);

	/* A failed write is this caller's error, then forgotten, as Linux's
	 * buffers: left dirty, every later sync would write it again and
	 * fail (and the cache never free it); not valid, so the next read
	 * asks the device what it holds. */
	if (err)
		set_flags(b, 0, BUF_DIRTY | BUF_VALID);
	else
		set_flags(b, BUF_VALID, BUF_DIRTY);
	return err;
}

/* Drops a reference taken without the lock (readahead's). */
static void buf_put(struct buf *b)
{
	bool gone;

	spin_lock(&bcache_lock);
	gone = !--b->refcnt && (b->flags & BUF_STALE);
	if (!gone && !(b->flags & BUF_STALE)) { /* most recently used */
		list_del(&b->lru_link);
		list_add(&b->lru_link, &lru);
	}
	spin_unlock(&bcache_lock);
	if (gone)
		buf_free(b);
}

void brelse(struct buf *b)
{
	mutex_unlock(&b->lock);
	buf_put(b);
}

/* Under bcache_lock: an unused-or-not dirty buffer of bdev (NULL: any)
 * dirty since before_ns or earlier, referenced, or NULL when none is left. */
static struct buf *next_dirty(struct block_device *bdev, uint64_t before_ns)
{
	struct buf *b;

	list_for_each_entry(b, &lru, lru_link)
	{
		if ((b->flags & BUF_DIRTY) && (!bdev || b->bdev == bdev) &&
		    b->dirtied_ns <= before_ns) {
			b->refcnt++;
			return b;
		}
	}
	return NULL;
}

/* The disks a write-back wrote to, to flush each once. */
#define SYNC_FLUSH_MAX 16

struct written {
	struct block_device *bdev[SYNC_FLUSH_MAX]; /* referenced (bdev_get) */
	unsigned int n;
};

/* Writes the dirty blocks of bdev (NULL: of every device) dirty since
 * before_ns or earlier, noting their disks in w (w NULL: none): 0 or the
 * first error. */
static int write_dirty(struct block_device *bdev, uint64_t before_ns, struct written *w)
{
	unsigned long budget = bcache_count() + 1; /* each dirty buffer once */
	int err = 0;
	struct buf *b;

	spin_lock(&bcache_lock);
	while (budget-- && (b = next_dirty(bdev, before_ns))) {
		spin_unlock(&bcache_lock);
		mutex_lock(&b->lock);
		if (buf_has(b, BUF_DIRTY)) {
			int werr = bwrite(b);
			if (!err)
				err = werr;
		}
		if (w && w->n < SYNC_FLUSH_MAX) {
			bool seen = false;
			for (unsigned int i = 0; i < w->n; i++)
				seen |= w->bdev[i] == b->bdev;
			if (!seen)
				bdev_get(w->bdev[w->n++] = b->bdev);
		}
		brelse(b);
		spin_lock(&bcache_lock);
	}
	spin_unlock(&bcache_lock);
	return err;
}

int bcache_flush_expired(uint64_t before_ns)
{
	return write_dirty(NULL, before_ns, NULL);
}

int bcache_sync(struct block_device *bdev)
{
	struct written w = {.n = 0};
	int err = write_dirty(bdev, ~0ULL, &w);

	for (unsigned int i = 0; i < w.n; i++) {
		int ferr = blkdev_issue_flush(w.bdev[i]);
		if (!err)
			err = ferr;
		bdev_put(w.bdev[i]);
	}
	if (bdev && !w.n) {
		int ferr = blkdev_issue_flush(bdev);
		if (!err)
			err = ferr;
	}
	return err;
}

void bcache_invalidate_bdev(struct block_device *bdev)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	struct buf *b, *n;

	spin_lock(&bcache_lock);
	list_for_each_entry_safe(b, n, &lru, lru_link)
	{
		if (b->bdev != bdev)
			continue;
		unlink_buf(b);
		if (!b->refcnt)
			list_add(&b->lru_link, &gone); /* held ones go at brelse */
	}
	spin_unlock(&bcache_lock);
	list_for_each_entry_safe(b, n, &gone, lru_link) buf_free(b);
}

void bcache_forget(struct block_device *bdev, uint64_t blockno)
{
	struct buf *b;
	bool gone = false;

	if (!__atomic_load_n(&hash_ready, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&bcache_lock);
	if ((b = find(bdev, blockno))) {
		unlink_buf(b); /* dirty or not: never written now */
		gone = !b->refcnt;
	}
	spin_unlock(&bcache_lock);
	if (gone)
		buf_free(b);
}

void bcache_set_blocksize(struct block_device *bdev, uint32_t size)
{
	bcache_sync(bdev);
	bcache_invalidate_bdev(bdev);
	__atomic_store_n(&bdev->blocksize, size, __ATOMIC_RELAXED);
}

unsigned long bcache_shrink(unsigned long want)
{
	struct list_head gone = LIST_HEAD_INIT(gone);
	unsigned long freed = 0;
	struct buf *b, *n;

	spin_lock(&bcache_lock);
	for (b = list_entry(lru.prev, struct buf, lru_link); &b->lru_link != &lru && freed < want;
	     b = n) {
		n = list_entry(b->lru_link.prev, struct buf, lru_link);
		if (b->refcnt || (b->flags & BUF_DIRTY))
			continue;
		unlink_buf(b);
		list_add(&b->lru_link, &gone);
		freed++;
	}
	spin_unlock(&bcache_lock);
	list_for_each_entry_safe(b, n, &gone, lru_link) buf_free(b);
	return freed;
}
