/*
 * What the block layer's own files share (genhd.c, partition.c): making a
 * block_device and publishing it in a disk's table.  Drivers use blkdev.h.
 */
#ifndef BLOCK_INTERNAL_H
#define BLOCK_INTERNAL_H

#include "block/blkdev.h"

/* A block_device of d (which it references) with one reference, or NULL. */
struct block_device *bdev_alloc(struct gendisk *d, uint32_t partno, uint64_t start,
				uint64_t nr_sects);
/* Under d->scan_lock: installs b as d->parts[b->partno] (taking over the
 * caller's reference) and makes its /dev node. */
void disk_install_part(struct gendisk *d, struct block_device *b);
/* Under d->scan_lock: removes partitions 1.. with their nodes and blocks. */
void disk_drop_parts(struct gendisk *d);

/* /sys/block (block_sysfs.c): under d->scan_lock, a block_device's
 * entry made or removed; without it, every entry of d rewritten with its
 * size and read-only state (a capacity or ro change). */
void block_sysfs_add(struct block_device *b);
void block_sysfs_del(struct block_device *b);
void disk_sysfs_update(struct gendisk *d);
void block_sysfs_init(void);

#endif
