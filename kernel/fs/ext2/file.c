/*
 * ext2 regular files' data (docs/ext2.md, docs/pagecache.md): through the
 * page cache (mm/filemap.h).  The cache asks ext2 for pages
 * (ext2_readpages: the block map, then one bio per run of consecutive
 * blocks straight into the pages' frames); reads, mmap and execve take
 * the cached pages.
 */
#include "fs/ext2/ext2.h"
#include "block/blkdev.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/frame.h"
#include "mm/layout.h"
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

/* The cache's readpages: holes and what lies past the size read as zeroes. */
static int ext2_readpages(struct inode *ip, uint64_t first, const uint64_t *pas, unsigned int n)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk, next = 0;
	uint64_t size = inode_size(ip), per = PAGE_SIZE / bs, lblk0 = first * per;
	struct bio *bio = NULL;
	int err = 0;

	for (uint64_t j = 0; j < n * per && !err; j++) {
		void *dest = block_dest(pas, bs, j);

		pblk = 0;
		if ((lblk0 + j) * bs < size && (err = ext2_bmap(ip, lblk0 + j, &pblk)))
			break;
		if (!pblk) {
			memset(dest, 0, bs);
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

		if (!(err = ext2_bmap(ip, off / bs, &pblk)) && pblk)
			err = blkdev_rw_kernel(ip->sb->bdev, BIO_READ, (uint64_t)pblk * bs, P2V(pa),
					       bs)
				  ? -EIO
				  : 0;
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

static long ext2_write_iter(struct inode *ip, struct iov_iter *from, uint64_t off)
{
	(void)ip, (void)from, (void)off;
	return -EROFS; /* every instance is read-only (the VFS refuses first) */
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
    .getattr = ext2_getattr,
    .read_iter = ext2_read_iter,
    .write_iter = ext2_write_iter,
    .page_ref = ext2_page_ref,
    .page_prepare = ext2_page_prepare,
    .seek_hole_data = ext2_seek_hole_data,
    .resident_pages = ext2_resident_pages,
};
