/*
 * The buffer cache (docs/block.md, "Buffer cache"): blocks of a block
 * device kept in memory, each with a sleeping lock, a reference count and
 * a dirty flag, as xv6's bio.c and Linux's buffer heads.  File systems read
 * their metadata through it, and the /dev files of disks read and write
 * through it.  A block is bdev->blocksize bytes at byte blockno * blocksize
 * of its block_device.
 *
 *	struct buf *b;
 *	int err = bread(bdev, blockno, &b);	// locked, data valid
 *	... read or change b->data; bdirty(b) after a change ...
 *	brelse(b);				// unlocked, still cached
 *
 * Dirty blocks reach the disk when bwrite or bcache_sync asks, when the
 * flusher finds them expired (mm/writeback.c), and when
 * they are evicted (the cache is bounded: BCACHE_MAX_BUFS, or an eighth
 * of memory); memory pressure (mm/oom.c) drops the clean ones first.
 */
#ifndef BLOCK_BCACHE_H
#define BLOCK_BCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/list.h"
#include "sched/mutex.h"

struct block_device;

struct buf {
	/* Referenced by the buffer while it exists: constant. */
	struct block_device *bdev;
	uint64_t blockno;
	uint32_t size; /* bdev->blocksize when it was made: constant */
	/* Under bcache_lock: holders (bread..brelse), and the flags. */
	uint32_t refcnt;
	uint32_t flags;
	/* Under bcache_lock: when it last became dirty (monotonic ns), for
	 * the flusher's expiry (bcache_flush_expired). */
	uint64_t dirtied_ns;
	/* Held by whoever has the buffer from bread or bget to brelse (and
	 * by the cache while it writes the block back): protects data.  A
	 * sleeping lock: the holder copies user memory and does I/O. */
	struct mutex lock;
	uint8_t *data;		    /* a frame's direct mapping (bio segments want it) */
	struct list_head hash_link; /* in its hash chain, under bcache_lock */
	struct list_head lru_link;  /* in the LRU list, most recent first */
};

#define BUF_VALID   1U /* data holds the block */
#define BUF_DIRTY   2U /* data is newer than the disk */
#define BUF_STALE   4U /* out of the hash (device gone, cache dropped): freed at the last brelse */
#define BUF_READING 8U /* a readahead reads it (unlocked): getblk waits for the end */

#define BCACHE_MAX_BUFS 4096 /* 16 MiB of 4 KiB blocks */

/* The block, locked, with valid data: 0, -EIO, -ENOMEM. */
int bread(struct block_device *bdev, uint64_t blockno, struct buf **out);
/* The block, locked, its data valid or not (BUF_VALID): for a caller
 * that overwrites it whole. */
int bget(struct block_device *bdev, uint64_t blockno, struct buf **out);
/*
 * Reads up to count blocks from blockno on that are not cached yet, in as
 * few bios as it can (consecutive blocks, BIO_MAX_SEGS to a bio), and
 * leaves them cached: readahead.  It holds no buffer's lock: its buffers
 * are marked BUF_READING and whoever wants one waits for the read.  Stops
 * at the first block already cached.  Errors are dropped: a later bread reads the
 * block again and reports its own.
 */
void bcache_readahead(struct block_device *bdev, uint64_t blockno, unsigned int count);
/* Whether the block is cached with valid data now (a hint). */
bool bcache_cached(struct block_device *bdev, uint64_t blockno);
/* Marks the locked buffer's data valid and newer than the disk. */
void bdirty(struct buf *b);
/* Writes the locked buffer to the disk now: 0, or -EIO (and the block is
 * no longer dirty nor valid: the error is this caller's, as on Linux). */
int bwrite(struct buf *b);
/* Unlocks b and drops the caller's reference. */
void brelse(struct buf *b);

/* Writes every dirty block of bdev (NULL: of every device) and then asks
 * the disks for a cache flush: 0 or the first error. */
int bcache_sync(struct block_device *bdev);
/* Writes back every dirty block dirty since before_ns or earlier (the
 * flusher's expiry), without a cache flush: 0 or the first error. */
int bcache_flush_expired(uint64_t before_ns);
/* Forgets bdev's blocks (after a sync when they must not be lost: the
 * dirty ones are dropped unwritten). */
void bcache_invalidate_bdev(struct block_device *bdev);
/* Forgets one block, unwritten even if dirty (held: at its brelse): a
 * block a file system gives to a file's data, written from the page
 * cache, whose earlier life as metadata must not be written over it
 * (Linux's clean_bdev_aliases). */
void bcache_forget(struct block_device *bdev, uint64_t blockno);
/* Syncs and forgets bdev's blocks, then sets its block size. */
void bcache_set_blocksize(struct block_device *bdev, uint32_t size);
/* Linux's initial block size for a device of that many sectors: the
 * largest power of two up to 4096 that divides its size, at least lbsize. */
uint32_t bcache_default_blocksize(uint32_t lbsize, uint64_t sectors);
/* Frees up to want clean, unused buffers (memory pressure, the leak
 * check, drop_caches): how many went. */
unsigned long bcache_shrink(unsigned long want);
/* Buffers alive, and the dirty ones among them. */
unsigned long bcache_count(void);
unsigned long bcache_dirty_count(void);

#endif
