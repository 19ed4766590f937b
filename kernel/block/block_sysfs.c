/*
 * /sys/block as Linux shows it, in part: a directory per disk with dev,
 * size (512-byte sectors), ro and removable, its queue's limits in queue/
 * (logical_block_size, physical_block_size, hw_sector_size,
 * minimum_io_size, optimal_io_size, dma_alignment, read_ahead_kb), and
 * in it one per partition with dev, size, start, ro and partition.  The
 * files are rewritten at every change (a loop device bound or resized,
 * LOOP_SET_BLOCK_SIZE, BLKROSET, BLKRASET, a rescan), so they always say
 * what the block layer holds.
 */
#include "block/blkdev.h"
#include "block/internal.h"
#include "fs/sysfs/sysfs.h"
#include "lib/printk.h"
#include "mm/layout.h"

#define SYS_PATH 64

/* "block/vda" or "block/vda/vda1" into buf, then "/attr" if attr. */
static void entry_path(const struct block_device *b, const char *attr, char *buf)
{
	const char *disk = b->disk->name;

	if (b->partno)
		snprintk(buf, SYS_PATH, "block/%s/%s%s%s", disk, b->name, attr ? "/" : "",
			 attr ? attr : "");
	else
		snprintk(buf, SYS_PATH, "block/%s%s%s", disk, attr ? "/" : "", attr ? attr : "");
}

static void set_attr(const struct block_device *b, const char *attr, const char *fmt,
		     unsigned long v, unsigned long w)
{
	char path[SYS_PATH], text[32];

	entry_path(b, attr, path);
	snprintk(text, sizeof text, fmt, v, w);
	sysfs_dyn_set(path, text);
}

/* A whole disk's queue/: its block sizes (every size the logical one:
 * no driver here has a larger physical sector or an optimal size), the
 * buffer alignment Linux's default is (511: 512 bytes), the readahead. */
static void write_queue(const struct block_device *b)
{
	static const char *const sizes[] = {"queue/logical_block_size", "queue/physical_block_size",
					    "queue/hw_sector_size", "queue/minimum_io_size"};
	const struct gendisk *d = b->disk;

	for (unsigned int i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		set_attr(b, sizes[i], "%lu\n", d->lbsize, 0);
	set_attr(b, "queue/optimal_io_size", "%lu\n", 0, 0);
	set_attr(b, "queue/dma_alignment", "%lu\n", SECTOR_SIZE - 1, 0);
	set_attr(b, "queue/read_ahead_kb", "%lu\n",
		 __atomic_load_n(&d->ra_pages, __ATOMIC_RELAXED) * (PAGE_SIZE / 1024), 0);
}

/* The attributes that change: size, ro and the queue's. */
static void write_changing(const struct block_device *b)
{
	set_attr(b, "size", "%lu\n", bdev_nr_sects(b), 0);
	set_attr(b, "ro", "%lu\n", bdev_read_only(b), 0);
	if (!b->partno)
		write_queue(b);
}

void block_sysfs_add(struct block_device *b)
{
	char path[SYS_PATH];

	entry_path(b, NULL, path);
	if (sysfs_dyn_mkdir(path)) {
		printk("block: cannot make /sys/%s\n", path);
		return;
	}
	set_attr(b, "dev", "%lu:%lu\n", b->rdev >> 8, b->rdev & 0xff);
	entry_path(b, "stat", path);
	sysfs_dyn_show(path, disk_stats_line, b->rdev);
	if (b->partno) {
		set_attr(b, "start", "%lu\n", b->start, 0);
		set_attr(b, "partition", "%lu\n", b->partno, 0);
	} else {
		set_attr(b, "removable", "%lu\n", 0, 0);
		entry_path(b, "queue", path);
		sysfs_dyn_mkdir(path);
	}
	write_changing(b);
}

void block_sysfs_del(struct block_device *b)
{
	char path[SYS_PATH];

	entry_path(b, NULL, path);
	sysfs_dyn_remove(path);
}

void disk_sysfs_update(struct gendisk *d)
{
	mutex_lock(&d->scan_lock);
	for (uint32_t i = 0; i < DISK_MAX_PARTS; i++)
		if (d->parts[i]) /* parts[] changes only under scan_lock */
			write_changing(d->parts[i]);
	mutex_unlock(&d->scan_lock);
}

void block_sysfs_init(void)
{
	sysfs_dyn_mkdir("block");
}
