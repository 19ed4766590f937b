/*
 * /sys/block as Linux shows it, in part: a directory per disk with dev,
 * size (512-byte sectors), ro and removable, and in it one per partition
 * with dev, size, start, ro and partition.  The files are rewritten at
 * every change (a loop device bound or resized, BLKROSET, a rescan), so
 * they always say what the block layer holds.
 */
#include "block/blkdev.h"
#include "block/internal.h"
#include "fs/sysfs/sysfs.h"
#include "lib/printk.h"

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

/* The attributes that change: size and ro. */
static void write_changing(const struct block_device *b)
{
	set_attr(b, "size", "%lu\n", bdev_nr_sects(b), 0);
	set_attr(b, "ro", "%lu\n", bdev_read_only(b), 0);
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
	if (b->partno) {
		set_attr(b, "start", "%lu\n", b->start, 0);
		set_attr(b, "partition", "%lu\n", b->partno, 0);
	} else {
		set_attr(b, "removable", "%lu\n", 0, 0);
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
