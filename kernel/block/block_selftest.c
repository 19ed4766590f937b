/*
 * In-kernel tests of the block layer (command-line word `test`) on a disk
 * in memory, driven as a real driver drives one (and a short example for
 * driver writers): registration reads its MBR, its partition opens
 * through /dev and reads and writes through the buffer cache, and the disk
 * goes away while the partition is open: EIO on it, never freed memory,
 * and everything counted comes back at the last put.
 */
#include "block/bcache.h"
#include "block/blkdev.h"
#include "block/block_selftest.h"
#include "fs/file.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/ktest.h"
#include "lib/string.h"
#include "mm/frame.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define RD_PAGES 16  /* a 64 KiB disk */
#define RD_MAJOR 240 /* Linux's first "local/experimental use" major */

struct ramdisk {
	uint64_t pages[RD_PAGES]; /* frames */
	bool *released;		  /* set by rd_release, for the test to see */
};

static char *rd_byte(struct ramdisk *rd, uint64_t off)
{
	return (char *)P2V(rd->pages[off / PAGE_SIZE]) + off % PAGE_SIZE;
}

/* A driver's submit: each segment copied at once, completed in place. */
static void rd_submit(struct gendisk *d, struct bio *b)
{
	struct ramdisk *rd = d->priv;
	uint64_t off = b->sector << SECTOR_SHIFT;

	for (unsigned int i = 0; i < b->nseg; i++) {
		char *mem = P2V(b->seg[i].pa);

		/* Sectors never straddle a page here: segments are sector
		 * multiples and the disk's pages hold 8 sectors each. */
		for (uint32_t done = 0; done < b->seg[i].len; done += SECTOR_SIZE)
			if (b->op == BIO_WRITE)
				memcpy(rd_byte(rd, off + done), mem + done, SECTOR_SIZE);
			else
				memcpy(mem + done, rd_byte(rd, off + done), SECTOR_SIZE);
		off += b->seg[i].len;
	}
	bio_endio(b, 0);
}

static void rd_release(struct gendisk *d)
{
	struct ramdisk *rd = d->priv;

	for (int i = 0; i < RD_PAGES; i++)
		frame_unref(rd->pages[i]);
	*rd->released = true;
	kfree(rd);
}

static const struct disk_ops rd_ops = {.submit = rd_submit, .release = rd_release};

/* A 64 KiB disk with an MBR: partition 1 at sector 8, 32 sectors. */
static struct gendisk *rd_make(bool *released)
{
	struct ramdisk *rd = kzalloc(sizeof(*rd));
	struct gendisk *d = rd ? disk_alloc() : NULL;
	uint8_t *mbr;

	if (!d) {
		kfree(rd);
		return NULL;
	}
	for (int i = 0; i < RD_PAGES; i++)
		rd->pages[i] = frame_zalloc();
	rd->released = released;
	mbr = (uint8_t *)rd_byte(rd, 0);
	mbr[446 + 4] = 0x83;
	mbr[446 + 8] = 8;
	mbr[446 + 12] = 32;
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	for (uint32_t i = 0; i < 32 * SECTOR_SIZE; i++)
		*rd_byte(rd, 8 * SECTOR_SIZE + i) = (char)(i / SECTOR_SIZE + 1);
	strlcpy(d->name, "kst0", sizeof(d->name));
	d->major = RD_MAJOR;
	d->minors = DISK_MAX_PARTS;
	d->capacity = RD_PAGES * (PAGE_SIZE / SECTOR_SIZE);
	d->lbsize = SECTOR_SIZE;
	d->ops = &rd_ops;
	d->priv = rd;
	return d;
}

static long file_pread(struct file *f, void *buf, size_t len, uint64_t pos, bool write)
{
	struct iovec v;
	struct iov_iter it;

	iov_iter_kernel(&it, &v, buf, len);
	return write ? f->ops->write_iter(f, &it, &pos) : f->ops->read_iter(f, &it, &pos);
}

void block_selftest(void)
{
	unsigned long disks = disk_count(), bdevs = bdev_count();
	bool released = false;
	struct gendisk *d = rd_make(&released);
	struct file *f = NULL, *again = NULL;
	char buf[SECTOR_SIZE];
	struct ramdisk *rd;

	if (!KTEST_OK(d && disk_add(d) == 0, "block: a memory disk registers"))
		return;
	rd = d->priv;
	KTEST_OK(vfs_open(NULL, "/dev/kst0p1", O_RDWR, 0, &f) == 0,
		 "block: its MBR gives /dev/kst0p1, which opens");
	if (!f)
		return;
	KTEST_OK(f->ops->fixed_size(f) == 32 * SECTOR_SIZE, "block: kst0p1 is 32 sectors");
	KTEST_OK(file_pread(f, buf, SECTOR_SIZE, SECTOR_SIZE, false) == SECTOR_SIZE &&
		     buf[0] == 2 && buf[SECTOR_SIZE - 1] == 2,
		 "block: kst0p1's sector 1 is the disk's sector 9");
	memset(buf, 'w', sizeof(buf));
	KTEST_OK(file_pread(f, buf, 100, 3 * SECTOR_SIZE + 10, true) == 100 &&
		     f->ops->fsync(f) == 0 && *rd_byte(rd, 11 * SECTOR_SIZE + 10) == 'w' &&
		     *rd_byte(rd, 11 * SECTOR_SIZE + 9) == 4,
		 "block: a write through the cache reaches the disk at fsync");
	disk_del(d);
	KTEST_OK(file_pread(f, buf, SECTOR_SIZE, 0, false) == -EIO,
		 "block: a read on a partition of a removed disk: EIO");
	KTEST_OK(vfs_open(NULL, "/dev/kst0p1", O_RDONLY, 0, &again) == -ENOENT &&
		     !bdev_lookup(MKDEV(RD_MAJOR, 1)),
		 "block: its node and number are gone");
	disk_put(d); /* the driver's: the open file still holds it */
	KTEST_OK(!released, "block: the open file keeps the disk's memory");
	file_put(f);
	bcache_shrink(~0UL);
	KTEST_OK(released && disk_count() == disks && bdev_count() == bdevs,
		 "block: the last put frees the disk, its partitions and its blocks");
}
