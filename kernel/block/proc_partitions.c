/*
 * /proc/partitions: every registered disk with a size, and its partitions,
 * in Linux's format (block/genhd.c's show_partition): major, minor, size
 * in KiB, name.  Disks of size 0 (an unbound loop device) are left out, as
 * Linux does.
 */
#include "block/blkdev.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"

struct part_text {
	char *buf;
	size_t size, n; /* n < size: snprintk returns the length it wanted */
};

static void put_line(struct part_text *t, const struct block_device *b)
{
	int n = snprintk(t->buf + t->n, t->size - t->n, "%4u  %7u %10lu %s\n", b->rdev >> 8,
			 b->rdev & 0xff, (unsigned long)(bdev_nr_sects(b) >> 1), b->name);

	t->n = (size_t)n < t->size - t->n ? t->n + n : t->size - 1;
}

/* Under disks_lock (disk_for_each): d's lines. */
static void show_disk(struct gendisk *d, void *arg)
{
	struct part_text *t = arg;

	if (!disk_capacity(d))
		return;
	spin_lock(&d->lock);
	for (uint32_t i = 0; i < DISK_MAX_PARTS; i++)
		if (d->parts[i])
			put_line(t, d->parts[i]);
	spin_unlock(&d->lock);
}

static void format_partitions(char *buf, size_t size)
{
	struct part_text t = {buf, size, 0};

	t.n = strlcpy(buf, "major minor  #blocks  name\n\n", size);
	disk_for_each(show_disk, &t);
}

void partitions_text(char *buf, size_t size)
{
	format_partitions(buf, size);
}

/* 300 devices' lines of at most 48 bytes. */
SNAPSHOT_OPS(partitions, 16384);
