/*
 * ext2 regular files' data (docs/ext2.md, docs/pagecache.md): through the
 * page cache (mm/filemap.h).  The cache asks ext2 for pages
 * (ext2_readpages: the block map, then one bio per run of consecutive
 * blocks straight into the pages' frames), for blocks before a write
 * copies into them (ext2_prepare_write: ext2_get_block makes holes) and
 * for write-back (ext2_writepage); reads, writes, mmap and execve share
 * the cached pages.
 */
#include "fs/ext2/ext2.h"
#include "fs/fiemap.h"
#include "block/bcache.h"
#include "block/blkdev.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/filemap.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "proc/rlimit.h"
#include <uapi/errno.h>

/* A run of consecutive disk blocks for one bio (readpages, writepage). */
struct block_run {
	struct block_device *bdev;
	enum bio_op op;
	struct bio *bio;
	uint32_t next; /* the block that would extend the run */
	int err;
};

/* Ends the run's bio (submitted, waited for): the run's error so far. */
static int run_end(struct block_run *r)
{
	if (r->bio) {
		if (submit_bio_wait(r->bio) && !r->err)
			r->err = -EIO;
		bio_free(r->bio);
		r->bio = NULL;
	}
	return r->err;
}

/* Adds block pblk (bs bytes at kva) to the run, ending the bio first
 * when it does not follow on or is full. */
static void run_add(struct block_run *r, uint32_t pblk, void *kva, uint32_t bs)
{
	if (r->bio && (pblk != r->next || !bio_add_kernel(r->bio, kva, bs)))
		run_end(r);
	if (!r->bio && !r->err) {
		if (!(r->bio = bio_alloc(r->op, r->bdev, (uint64_t)pblk * bs >> SECTOR_SHIFT)))
			r->err = -ENOMEM;
		else
			bio_add_kernel(r->bio, kva, bs);
	}
	r->next = pblk + 1;
}

/* Block j of the pages' frames pas: where it lies in memory. */
static void *block_kva(const uint64_t *pas, uint32_t bs, uint64_t j)
{
	uint64_t per = PAGE_SIZE / bs;

	return (char *)P2V(pas[j / per]) + (j % per) * bs;
}

/* The cache's readpages: holes and what lies past the size read as zeroes. */
static int ext2_readpages(struct inode *ip, uint64_t first, const uint64_t *pas, unsigned int n)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk;
	uint64_t size = inode_size(ip), per = PAGE_SIZE / bs, lblk0 = first * per;
	struct block_run run = {.bdev = ip->sb->bdev, .op = BIO_READ};

	for (uint64_t j = 0; j < n * per && !run.err; j++) {
		void *kva = block_kva(pas, bs, j);

		pblk = 0;
		if ((lblk0 + j) * bs < size &&
		    (run.err = ext2_get_block(ip, lblk0 + j, false, &pblk)))
			break;
		if (pblk)
			run_add(&run, pblk, kva, bs);
		else
			memset(kva, 0, bs);
	}
	if (run_end(&run))
		return run.err;
	/* The last block's bytes past the size are whatever the disk holds:
	 * a mapping sees zeroes there, as on Linux. */
	if ((first + n) * PAGE_SIZE > size && size > first * PAGE_SIZE && size % PAGE_SIZE)
		memset((char *)P2V(pas[size / PAGE_SIZE - first]) + size % PAGE_SIZE, 0,
		       PAGE_SIZE - size % PAGE_SIZE);
	return 0;
}

/* Whether the len bytes at p are all zero. */
static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The block under lblk, made when it is a hole and make says so; a block
 * new to the file is forgotten by the buffer cache, which may hold it
 * from an earlier life as a map block (dirty, even), so that no
 * write-back of that old life lands on the data.  0 or -errno; *pblk 0
 * for a hole left alone.
 */
static int data_block(struct inode *ip, uint64_t lblk, bool make, uint32_t *pblk)
{
	int err = ext2_get_block(ip, lblk, false, pblk);

	if (err || *pblk || !make)
		return err;
	if (!(err = ext2_get_block(ip, lblk, true, pblk)))
		bcache_forget(ip->sb->bdev, *pblk);
	return err;
}

/* Before a write copies into the cache: its blocks exist (ENOSPC now,
 * not at write-back). */
static int ext2_prepare_write(struct inode *ip, uint64_t off, size_t len)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk;
	int err = 0;

	for (uint64_t l = off / bs; l <= (off + len - 1) / bs && !err; l++)
		err = data_block(ip, l, true, &pblk);
	return err;
}

/*
 * Write-back of a page's first len bytes: each block's, one bio per run
 * of consecutive blocks.  A hole stays one while its bytes are zeroes (a
 * partial write filled only its own blocks); a store through a shared
 * mapping into a hole makes the block.
 */
static int ext2_writepage(struct inode *ip, uint64_t idx, uint64_t pa, size_t len)
{
	uint32_t bs = EXT2_SB(ip->sb)->block_size, pblk;
	uint64_t per = PAGE_SIZE / bs;
	struct block_run run = {.bdev = ip->sb->bdev, .op = BIO_WRITE};

	for (uint64_t j = 0; j * bs < len && !run.err; j++) {
		uint8_t *kva = (uint8_t *)P2V(pa) + j * bs;

		if (!(run.err = data_block(ip, idx * per + j, !all_zero(kva, bs), &pblk)) && pblk)
			run_add(&run, pblk, kva, bs);
	}
	return run_end(&run);
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

		if (!(err = ext2_get_block(ip, off / bs, false, &pblk)) && pblk)
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
    .prepare_write = ext2_prepare_write,
    .writepage = ext2_writepage,
};

/* A regular file's pages: attached when its inode is read or made. */
static struct address_space *ext2_mapping(struct inode *ip)
{
	return EXT2_I(ip)->mapping;
}

static long ext2_read_iter(struct inode *ip, struct iov_iter *to, uint64_t off)
{
	struct address_space *m = ext2_mapping(ip);

	return m ? filemap_read(m, ip, to, off, inode_size(ip)) : -ENOMEM;
}

/* Linux's checks (RLIMIT_FSIZE, EROFS, the largest size), then the
 * cache; the inode (size, times) is written after. */
static long ext2_write_iter(struct inode *ip, struct iov_iter *from, uint64_t off)
{
	struct address_space *m = ext2_mapping(ip);
	uint64_t max = ip->sb->maxbytes;
	size_t len = iov_iter_count(from);
	long err = rlimit_fsize_write(off, &len), done;

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
	if (!m)
		return -ENOMEM;
	if ((done = filemap_write(m, ip, from, off, len)) > 0) {
		spin_lock(&ip->lock);
		ip->mtime_ns = ip->ctime_ns = ext2_now();
		spin_unlock(&ip->lock);
		ext2_write_inode(ip);
	}
	return done;
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
	struct address_space *m = ext2_mapping(ip);

	return m ? filemap_page_ref(m, ip, idx, false) : 0;
}

/* A fault's page read into the cache (no lock held). */
static int ext2_page_prepare(struct inode *ip, size_t idx)
{
	struct address_space *m = ext2_mapping(ip);
	uint64_t pa = m ? filemap_page_ref(m, ip, idx, true) : 0;

	if (!pa)
		return m ? -EIO : -ENOMEM;
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

static void ext2_page_mkwrite(struct inode *ip, size_t idx)
{
	struct address_space *m = ext2_mapping(ip);

	if (m)
		filemap_page_mkwrite(m, idx);
}

/*
 * The range's dirty pages, then (not for sync_file_range) the device's
 * dirty blocks, the inode's among them, and a flush: 0, or -EIO for this
 * write-back or an earlier one no call reported yet.
 */
static int ext2_fsync(struct inode *ip, uint64_t start, uint64_t end, unsigned int how)
{
	struct address_space *m = ext2_mapping(ip);
	int err;

	if (!m)
		return -ENOMEM;
	err = filemap_writeback(m, ip, start / PAGE_SIZE, end / PAGE_SIZE);

	if (!(how & FSYNC_DATA_RANGE))
		err = bcache_sync(ip->sb->bdev) ?: err;
	err = filemap_take_error(m) ?: err;
	return err ? -EIO : 0;
}

/* Whether block lblk starts a map block of its own (Linux's ext2 ends a
 * mapping there, so an extent does too). */
static bool map_boundary(const struct ext2_sb_info *si, uint64_t lblk)
{
	return lblk >= EXT2_NDIR && (lblk - EXT2_NDIR) % si->addr_per_block == 0;
}

/*
 * FS_IOC_FIEMAP from the block map, as Linux's ext2 (iomap_fiemap): the
 * range cut to the size (so a walk never crosses a huge hole past it),
 * then each run of consecutive blocks in it one extent, the final one
 * FIEMAP_EXTENT_LAST.
 */
static int ext2_fiemap(struct inode *ip, struct fiemap_info *fi, uint64_t start, uint64_t len)
{
	struct ext2_sb_info *si = EXT2_SB(ip->sb);
	uint64_t size = inode_size(ip), bs = si->block_size, lblk, end, first = 0, n = 0;
	uint32_t pblk, pfirst = 0;
	int err;

	if (len > (size ? size : 1))
		len = size ? size : 1;
	if ((err = fiemap_prep(ip, fi, start, &len)))
		return err;
	end = (start + len + bs - 1) / bs;
	for (lblk = start / bs; lblk < end; lblk++) {
		if ((err = ext2_get_block(ip, lblk, false, &pblk)))
			return err;
		if (n && pblk == pfirst + n && !map_boundary(si, lblk)) {
			n++;
			continue;
		}
		if (n && (err = fiemap_fill(fi, first * bs, pfirst * bs, n * bs, 0)))
			return err < 0 ? err : 0;
		first = lblk;
		pfirst = pblk;
		n = pblk != 0;
	}
	err = n ? fiemap_fill(fi, first * bs, pfirst * bs, n * bs, FIEMAP_EXTENT_LAST) : 0;
	return err < 0 ? err : 0;
}

static size_t ext2_resident_pages(struct inode *ip)
{
	struct address_space *m = __atomic_load_n(&EXT2_I(ip)->mapping, __ATOMIC_ACQUIRE);

	return m ? __atomic_load_n(&m->nrpages, __ATOMIC_RELAXED) : 0;
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
    .page_mkwrite = ext2_page_mkwrite,
    .fsync = ext2_fsync,
    .fiemap = ext2_fiemap,
};
