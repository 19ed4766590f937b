/*
 * ext2 regular files' data (docs/ext2.md, docs/pagecache.md): read through
 * the page cache (mm/filemap.h).  The cache asks ext2 for pages
 * (ext2_readpages: the block map, then one bio per run of consecutive
 * blocks straight into the pages' frames; a block the buffer cache holds
 * is copied from it, as it may be newer than the disk); reads, mmap and
 * execve take the cached pages.  Writes go through the buffer cache a
 * block at a time (ext2_get_block makes missing blocks) and into the
 * cached page when there is one, until the page cache writes pages back
 * itself.  User memory is copied through a bounce block with no lock
 * held, so a fault on a mapping of the same file never waits for a lock
 * the faulting call holds.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "block/blkdev.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/rlimit.h"
#include <uapi/errno.h>

/* Submits bio and waits for it: its status. */
static int read_bio(struct bio *bio)
{
	int err = submit_bio_wait(bio);

	bio_free(bio);
	return err ? -EIO : 0;
}

/* Block j of the n pages' frames (pas): where it goes in memory. */
static void *block_dest(const uint64_t *pas, uint32_t bs, uint64_t j)
{
	uint64_t per = PAGE_SIZE / bs;

	return (char *)P2V(pas[j / per]) + (j % per) * bs;
}

/* A block the buffer cache holds (written there, maybe not on the disk
 * yet) into dest: 1 when it did, 0 when the disk has to be read. */
static int copy_cached(struct super_block *sb, uint32_t pblk, void *dest)
{
	struct buf *b;

	if (!bcache_cached(sb->bdev, pblk))
		return 0;
	if (ext2_read_block(sb, pblk, &b))
		return -EIO;
	memcpy(dest, b->data, b->size);
	brelse(b);
	return 1;
}

/* The cache's readpages: holes and what lies past the size read as
 * zeroes.  Under map_lock, so a write (which holds it) is all before or
 * all after, and a truncation frees no block being read. */
static int ext2_readpages(struct inode *ip, uint64_t first, const uint64_t *pas, unsigned int n)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk, next = 0;
	uint64_t size, per = PAGE_SIZE / bs, lblk0 = first * per;
	struct bio *bio = NULL;
	int err = 0, cached;

	mutex_lock(&EXT2_I(ip)->map_lock);
	size = inode_size(ip);
	for (uint64_t j = 0; j < n * per && !err; j++) {
		void *dest = block_dest(pas, bs, j);

		pblk = 0;
		if ((lblk0 + j) * bs < size &&
		    (err = ext2_get_block_locked(ip, lblk0 + j, false, &pblk)))
			break;
		if (!pblk) {
			memset(dest, 0, bs);
			continue;
		}
		if ((cached = copy_cached(ip->sb, pblk, dest))) {
			err = cached < 0 ? cached : 0;
			continue;
		}
		if (bio && (pblk != next || !bio_add_kernel(bio, dest, bs))) {
			err = read_bio(bio);
			bio = NULL;
		}
		if (!bio && !err) {
			if (!(bio = bio_alloc(BIO_READ, ip->sb->bdev,
					      (uint64_t)pblk * bs >> SECTOR_SHIFT)))
				err = -ENOMEM;
			else
				bio_add_kernel(bio, dest, bs);
		}
		next = pblk + 1;
	}
	if (bio)
		err = read_bio(bio) ?: err;
	mutex_unlock(&EXT2_I(ip)->map_lock);
	/* The last block's bytes past the size are whatever the disk holds:
	 * a mapping sees zeroes there, as on Linux. */
	if (!err && (first + n) * PAGE_SIZE > size && size > first * PAGE_SIZE && size % PAGE_SIZE)
		memset((char *)P2V(pas[size / PAGE_SIZE - first]) + size % PAGE_SIZE, 0,
		       PAGE_SIZE - size % PAGE_SIZE);
	return err;
}

/* A page the cache could not read (a bad block in it): its blocks one by
 * one through a frame of their own, up to the first that fails. */
static long ext2_read_uncached(struct inode *ip, uint64_t off, size_t len, struct iov_iter *to)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk;
	uint64_t pa = frame_alloc();
	long done = 0;
	int err = 0;

	if (!pa)
		return -ENOMEM;
	while ((size_t)done < len && !err) {
		size_t in = off % bs, n = bs - in < len - done ? bs - in : len - done;

		/* Under map_lock as readpages: a block the buffer cache holds
		 * is copied from it (it may be newer than the disk). */
		mutex_lock(&EXT2_I(ip)->map_lock);
		if (!(err = ext2_get_block_locked(ip, off / bs, false, &pblk)) && pblk &&
		    !(err = copy_cached(ip->sb, pblk, P2V(pa))))
			err = blkdev_rw_kernel(ip->sb->bdev, BIO_READ, (uint64_t)pblk * bs, P2V(pa),
					       bs)
				  ? -EIO
				  : 0;
		else if (err > 0)
			err = 0; /* copied from the buffer cache */
		mutex_unlock(&EXT2_I(ip)->map_lock);
		if (!err && !pblk)
			memset(P2V(pa), 0, bs);
		if (!err && copy_to_iter((char *)P2V(pa) + in, n, to) != n)
			err = -EFAULT;
		if (!err)
			done += n, off += n;
	}
	frame_unref(pa);
	return done ? done : err;
}

const struct filemap_ops ext2_filemap_ops = {
    .readpages = ext2_readpages,
    .read_uncached = ext2_read_uncached,
};

static long ext2_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off)
{
	return filemap_read(EXT2_I(ip)->mapping, ip, to, off, inode_size(ip));
}

/* The cached page holding [off, off + len) gets the bytes written (a
 * page being read now is not seen: its read may miss them, a window the
 * page cache's own write path closes). */
static void update_page(struct inode *ip, uint64_t off, size_t len, const uint8_t *buf)
{
	uint64_t pa = filemap_page_ref(EXT2_I(ip)->mapping, ip, off / PAGE_SIZE, false);

	if (!pa)
		return;
	memcpy((char *)P2V(pa) + off % PAGE_SIZE, buf, len);
	frame_unref(pa);
}

/* Under map_lock: writes len bytes of buf at off (inside one block),
 * making the block if it is a hole; the size grows past it. */
static int write_piece(struct inode *ip, uint64_t off, size_t len, const uint8_t *buf)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk;
	struct buf *b;
	bool fresh;
	int err = ext2_get_block_locked(ip, off / bs, false, &pblk);

	if (err)
		return err;
	fresh = !pblk;
	if (fresh && (err = ext2_get_block_locked(ip, off / bs, true, &pblk)))
		return err;
	/* A new block or a whole one overwritten is not read first; the
	 * bytes not written of a new block are zeros. */
	err = fresh || len == bs ? bget(ip->sb->bdev, pblk, &b) : ext2_read_block(ip->sb, pblk, &b);
	if (err)
		return err == -ENOMEM ? err : -EIO;
	if (fresh)
		memset(b->data, 0, bs);
	memcpy(b->data + off % bs, buf, len);
	err = ext2_dirty(ip->sb, b);
	brelse(b);
	spin_lock(&ip->lock);
	if (off + len > ip->size)
		ip->size = off + len;
	spin_unlock(&ip->lock);
	return err;
}

static long ext2_write_iter(struct inode *ip, struct iov_iter *from, uint64_t off)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size;
	uint64_t max = ip->sb->maxbytes;
	size_t len = iov_iter_count(from), done = 0;
	long err = rlimit_fsize_write(off, &len);
	uint8_t *buf;

	if (err)
		return err;
	if (ext2_rdonly(ip->sb))
		return -EROFS;
	if (off >= max)
		return len ? -EFBIG : 0;
	if (len > max - off)
		len = max - off;
	if (!len)
		return 0;
	if (!(buf = kmalloc(bs)))
		return -ENOMEM;
	while (done < len) {
		size_t n = bs - off % bs, c;

		if (n > len - done)
			n = len - done;
		c = copy_from_iter(buf, n, from);
		mutex_lock(&EXT2_I(ip)->map_lock);
		err = c ? write_piece(ip, off, c, buf) : 0;
		mutex_unlock(&EXT2_I(ip)->map_lock);
		if (err)
			break;
		update_page(ip, off, c, buf);
		done += c;
		off += c;
		if (c < n) {
			err = -EFAULT;
			break;
		}
	}
	kfree(buf);
	if (done) {
		spin_lock(&ip->lock);
		ip->mtime_ns = ip->ctime_ns = ext2_now();
		spin_unlock(&ip->lock);
		ext2_write_inode(ip);
	}
	return done ? (long)done : err;
}

/*
 * The cached page itself: a shared mapping and read() see one frame; a
 * private mapping maps it read-only and copies on its first write
 * (mm/uvm.c).  Only a cached page, whether fill or not: faults call it
 * under the uvm lock, and read a missing page first with page_prepare.
 * So mincore tells what is resident, and execve maps cached text and
 * copies the rest (reading it into the cache: the next execve shares
 * it).  A hole reads as a page of zeroes, cached as any other.
 */
static uint64_t ext2_page_ref(struct inode *ip, size_t idx, bool fill)
{
	(void)fill;
	return filemap_page_ref(EXT2_I(ip)->mapping, ip, idx, false);
}

/* A fault's page read into the cache (no lock held). */
static int ext2_page_prepare(struct inode *ip, size_t idx)
{
	uint64_t pa = filemap_page_ref(EXT2_I(ip)->mapping, ip, idx, true);

	if (!pa)
		return -EIO;
	frame_unref(pa);
	return 0;
}

/* Every byte below the size is data (holes are not told apart yet). */
static long ext2_seek_hole_data(struct inode *ip, long off, bool hole)
{
	uint64_t size = inode_size(ip);

	if (off < 0 || (uint64_t)off >= size)
		return -ENXIO;
	return hole ? (long)size : off;
}

static size_t ext2_resident_pages(struct inode *ip)
{
	return __atomic_load_n(&EXT2_I(ip)->mapping->nrpages, __ATOMIC_RELAXED);
}

const struct inode_operations ext2_file_iops = {
    .setattr = ext2_setattr,
    .getattr = ext2_getattr,
    .read_iter = ext2_read_iter,
    .write_iter = ext2_write_iter,
    .page_ref = ext2_page_ref,
    .page_prepare = ext2_page_prepare,
    .seek_hole_data = ext2_seek_hole_data,
    .resident_pages = ext2_resident_pages,
};
