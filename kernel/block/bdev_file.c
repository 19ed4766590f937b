/*
 * Block-special files: what open(2) of /dev/vda or /dev/loop0 gives.
 * Reads and writes go through the buffer cache a block at a time (Linux
 * goes through the device's page cache: the same effect, buffered and
 * written back on fsync, sync and the last close); the BLK* ioctls.
 */
#include "arch/x86_64/uaccess.h"
#include "block/bcache.h"
#include "block/bdev_file.h"
#include "block/blkdev.h"
#include "block/internal.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "proc/cred.h"
#include <uapi/blkdev.h>
#include <uapi/capability.h>
#include <uapi/errno.h>

/* The file's block_device: referenced by the file from open to release. */
static struct block_device *file_bdev(struct file *f)
{
	return f->priv;
}

/* One block's part of a transfer: [off, off + n) of block blockno. */
static long rw_block(struct block_device *bdev, uint64_t pos, struct iov_iter *it, size_t n,
		     bool write)
{
	uint32_t bs = __atomic_load_n(&bdev->blocksize, __ATOMIC_RELAXED);
	uint64_t blockno = pos / bs;
	size_t off = pos % bs, done;
	struct buf *b;
	int err;

	if (n > bs - off)
		n = bs - off;
	/* A whole block overwritten needs no read first. */
	err = write && !off && n == bs ? bget(bdev, blockno, &b) : bread(bdev, blockno, &b);
	if (err)
		return err;
	if (b->size != bs) { /* the block size changed under us (BLKBSZSET) */
		brelse(b);
		return -EAGAIN;
	}
	if (write) {
		done = copy_from_iter(b->data + off, n, it);
		if (done)
			bdirty(b);
	} else {
		done = copy_to_iter(b->data + off, n, it);
	}
	brelse(b);
	return done ? (long)done : -EFAULT;
}

/* The most blocks one read brings in ahead of its copy (2 MiB of 4 KiB
 * blocks): a window set huge by BLKRASET is cut to it. */
#define RA_MAX_BLOCKS 512

/*
 * Before a read of [pos, pos + len): the blocks it covers are read in as
 * few bios as they can be when the first is not cached, and a reader that
 * goes on where the last read ended gets the disk's readahead window
 * ahead (ra_pages: Linux's readahead, in small: one window, no state per
 * file).
 */
static void read_ahead(struct block_device *bdev, uint64_t pos, size_t len)
{
	uint32_t bs = __atomic_load_n(&bdev->blocksize, __ATOMIC_RELAXED);
	uint64_t first = pos / bs, last = (pos + len - 1) / bs;
	uint64_t n = last - first + 1;
	uint64_t ra = __atomic_load_n(&bdev->disk->ra_pages, __ATOMIC_RELAXED);
	/* in blocks, bs <= PAGE_SIZE; cut below with the rest */
	uint64_t window = ra >= RA_MAX_BLOCKS ? RA_MAX_BLOCKS : ra * (PAGE_SIZE / bs);

	if (__atomic_load_n(&bdev->ra_next, __ATOMIC_RELAXED) == first && n < window)
		n = window;
	__atomic_store_n(&bdev->ra_next, last + 1, __ATOMIC_RELAXED);
	if (n > 1 && !bcache_cached(bdev, first))
		bcache_readahead(bdev, first, n > RA_MAX_BLOCKS ? RA_MAX_BLOCKS : n);
}

/* The transfer at *pos, clipped at the device's end: bytes moved, or the
 * error of the first block. */
static long bdev_rw(struct file *f, struct iov_iter *it, uint64_t *pos, bool write)
{
	struct block_device *bdev = file_bdev(f);
	uint64_t size = bdev_bytes(bdev);
	size_t want = iov_iter_count(it), total = 0;

	if (bdev_dead(bdev))
		return -EIO;
	if (write && bdev_read_only(bdev))
		return -EPERM; /* Linux's blkdev_write_iter */
	if (*pos >= size)
		return write && want ? -ENOSPC : 0;
	if (want > size - *pos)
		want = size - *pos;
	if (!write && want)
		read_ahead(bdev, *pos, want);
	while (total < want) {
		long n = rw_block(bdev, *pos, it, want - total, write);

		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return total ? (long)total : n;
		total += n;
		*pos += n;
	}
	return total;
}

static long bdev_read(struct file *f, struct iov_iter *to, uint64_t *pos)
{
	return bdev_rw(f, to, pos, false);
}

static long bdev_write(struct file *f, struct iov_iter *from, uint64_t *pos)
{
	return bdev_rw(f, from, pos, true);
}

static int bdev_fsync(struct file *f)
{
	return bcache_sync(file_bdev(f));
}

static uint64_t bdev_fixed_size(struct file *f)
{
	return bdev_bytes(file_bdev(f));
}

/* ---- ioctl ---- */

static long put_u64(unsigned long arg, uint64_t v)
{
	return copy_to_user((void *)arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long put_int(unsigned long arg, int v)
{
	return copy_to_user((void *)arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static long bdev_set_ro(struct block_device *bdev, unsigned long arg)
{
	int ro;

	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (copy_from_user(&ro, (const void *)arg, sizeof(ro)))
		return -EFAULT;
	__atomic_store_n(&bdev->ro, ro != 0, __ATOMIC_RELAXED);
	disk_sysfs_update(bdev->disk);
	return 0;
}

/* BLKRASET: the disk's readahead from 512-byte sectors (rounded down to
 * pages, as Linux's; a partition's is its disk's). */
static long bdev_set_ra(struct block_device *bdev, unsigned long sectors)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	__atomic_store_n(&bdev->disk->ra_pages, sectors * SECTOR_SIZE / PAGE_SIZE,
			 __ATOMIC_RELAXED);
	disk_sysfs_update(bdev->disk);
	return 0;
}

/* BLKBSZSET: a power of two from the logical block size to a page. */
static long bdev_set_blocksize(struct block_device *bdev, unsigned long arg)
{
	int bs;

	if (copy_from_user(&bs, (const void *)arg, sizeof(bs)))
		return -EFAULT;
	if (bs < (int)bdev->disk->lbsize || bs > 4096 || (bs & (bs - 1)))
		return -EINVAL;
	bcache_set_blocksize(bdev, bs);
	return 0;
}

static long bdev_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	struct block_device *bdev = file_bdev(f);
	struct gendisk *d = bdev->disk;

	switch (cmd) {
	case BLKGETSIZE64:
		return put_u64(arg, bdev_bytes(bdev));
	case BLKGETSIZE:
		return put_u64(arg, bdev_nr_sects(bdev));
	case BLKSSZGET:
		return put_int(arg, d->lbsize);
	case BLKPBSZGET:
	case BLKIOMIN:
		return put_int(arg, d->lbsize);
	case BLKIOOPT:
	case BLKALIGNOFF:
		return put_int(arg, 0);
	case BLKBSZGET:
		return put_int(arg, __atomic_load_n(&bdev->blocksize, __ATOMIC_RELAXED));
	case BLKBSZSET:
		return bdev_set_blocksize(bdev, arg);
	case BLKROGET:
		return put_int(arg, bdev_read_only(bdev));
	case BLKROSET:
		return bdev_set_ro(bdev, arg);
	case BLKFLSBUF:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		bcache_sync(bdev);
		bcache_invalidate_bdev(bdev);
		return 0;
	case BLKRASET:
	case BLKFRASET:
		return bdev_set_ra(bdev, arg);
	case BLKRAGET:
	case BLKFRAGET:
		if (!arg)
			return -EINVAL;
		return put_u64(arg, __atomic_load_n(&d->ra_pages, __ATOMIC_RELAXED) * PAGE_SIZE /
					SECTOR_SIZE);
	case BLKRRPART:
		if (!capable(CAP_SYS_ADMIN))
			return -EACCES;
		return bdev->partno ? -EINVAL : disk_rescan(d);
	}
	/* The driver's own (loop's), on the whole disk only. */
	if (d->ops->ioctl && !bdev->partno)
		return d->ops->ioctl(bdev, f->flags, cmd, arg);
	return -ENOTTY;
}

/* ---- open and close ---- */

void bdev_close(struct block_device *bdev)
{
	struct gendisk *d = bdev->disk;
	bool last;

	spin_lock(&d->lock);
	bdev->openers--;
	last = !--d->openers;
	spin_unlock(&d->lock);
	/* Linux writes a device's dirty blocks back at its last close. */
	if (last)
		bcache_sync(bdev);
	if (last && d->ops->last_close)
		d->ops->last_close(d);
	bdev_put(bdev);
}

static void bdev_release(struct file *f)
{
	struct block_device *bdev = file_bdev(f);

	if (bdev) /* NULL: an open that failed before it found the device */
		bdev_close(bdev);
	vfs_release_inode(f);
}

static const struct file_ops bdev_file_ops = {
    .read_iter = bdev_read,
    .write_iter = bdev_write,
    .ioctl = bdev_ioctl,
    .fsync = bdev_fsync,
    .fixed_size = bdev_fixed_size,
    .release = bdev_release,
};

const struct file_ops *blkdev_file_ops(void)
{
	return &bdev_file_ops;
}

int bdev_open(uint32_t rdev, struct block_device **out)
{
	struct block_device *bdev = bdev_lookup(rdev);
	struct gendisk *d;
	int err;

	if (!bdev)
		return -ENXIO;
	d = bdev->disk;
	if (d->ops->open && (err = d->ops->open(d))) {
		bdev_put(bdev);
		return err;
	}
	spin_lock(&d->lock);
	if (d->dead || bdev->dead) { /* removed since the lookup */
		spin_unlock(&d->lock);
		bdev_put(bdev);
		return -ENXIO;
	}
	bdev->openers++;
	d->openers++;
	spin_unlock(&d->lock);
	*out = bdev;
	return 0;
}

int blkdev_open(struct file *f, unsigned int flags)
{
	struct block_device *bdev;
	int err = bdev_open(f->inode->rdev, &bdev);

	(void)flags;
	if (!err)
		f->priv = bdev;
	return err;
}
