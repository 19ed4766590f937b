/*
 * Disks and their partitions: registration, the reference counts that keep
 * them alive, lookup by device number, and their /dev nodes in devtmpfs
 * (docs/block.md).  Linux's block/genhd.c and block/bdev.c in small.
 */
#include "block/bcache.h"
#include "block/internal.h"
#include "block/loop.h"
#include "block/partition.h"
#include "fs/inode.h"
#include "fs/super.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>

/* Protects disks (the registered disks, by link).  Innermost. */
static struct spinlock disks_lock = SPINLOCK_INIT("disks");
static struct list_head disks = LIST_HEAD_INIT(disks);

static unsigned long live_disks, live_bdevs; /* atomic */

/* Minors of BLOCK_EXT_MAJOR in use, under disks_lock. */
static uint64_t ext_minors[256 / 64];

/* A free BLOCK_EXT_MAJOR number, or 0 when all 256 are taken. */
static uint32_t ext_devt_alloc(void)
{
	uint32_t rdev = 0;

	spin_lock(&disks_lock);
	for (uint32_t m = 0; m < 256 && !rdev; m++)
		if (!(ext_minors[m / 64] & (1UL << (m % 64)))) {
			ext_minors[m / 64] |= 1UL << (m % 64);
			rdev = MKDEV(BLOCK_EXT_MAJOR, m);
		}
	spin_unlock(&disks_lock);
	return rdev;
}

static void ext_devt_free(uint32_t rdev)
{
	uint32_t m = rdev & 0xff;

	if (rdev >> 8 != BLOCK_EXT_MAJOR)
		return;
	spin_lock(&disks_lock);
	ext_minors[m / 64] &= ~(1UL << (m % 64));
	spin_unlock(&disks_lock);
}

unsigned long disk_count(void)
{
	return __atomic_load_n(&live_disks, __ATOMIC_RELAXED);
}

unsigned long bdev_count(void)
{
	return __atomic_load_n(&live_bdevs, __ATOMIC_RELAXED);
}

struct gendisk *disk_alloc(void)
{
	struct gendisk *d = kzalloc(sizeof(*d));

	if (!d)
		return NULL;
	d->refcount = 1;
	d->lbsize = SECTOR_SIZE;
	d->ra_pages = DISK_RA_PAGES;
	d->minors = 1;
	spin_init(&d->lock, "disk");
	wait_queue_init(&d->drain_wq, "disk_drain");
	mutex_init(&d->scan_lock, "disk_scan");
	list_init(&d->link);
	__atomic_add_fetch(&live_disks, 1, __ATOMIC_RELAXED);
	return d;
}

void disk_get(struct gendisk *d)
{
	__atomic_add_fetch(&d->refcount, 1, __ATOMIC_RELAXED);
}

void disk_put(struct gendisk *d)
{
	if (__atomic_sub_fetch(&d->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	if (d->ops && d->ops->release)
		d->ops->release(d);
	__atomic_sub_fetch(&live_disks, 1, __ATOMIC_RELAXED);
	kfree(d);
}

struct block_device *bdev_alloc(struct gendisk *d, uint32_t partno, uint64_t start,
				uint64_t nr_sects)
{
	struct block_device *b = kzalloc(sizeof(*b));
	uint32_t rdev =
	    partno < d->minors ? MKDEV(d->major, d->first_minor + partno) : ext_devt_alloc();

	if (!b || !rdev) {
		kfree(b);
		return NULL;
	}
	b->refcount = 1;
	b->disk = d;
	disk_get(d);
	b->partno = partno;
	b->rdev = rdev;
	b->start = start;
	b->nr_sects = nr_sects;
	b->blocksize = bcache_default_blocksize(d->lbsize, partno ? nr_sects : disk_capacity(d));
	if (!partno)
		strlcpy(b->name, d->name, sizeof(b->name));
	else /* Linux's rule: a name ending in a digit takes a "p" (loop0p1) */
		snprintk(b->name, sizeof(b->name), "%s%s%u", d->name,
			 d->name[strlen(d->name) - 1] >= '0' && d->name[strlen(d->name) - 1] <= '9'
			     ? "p"
			     : "",
			 partno);
	__atomic_add_fetch(&live_bdevs, 1, __ATOMIC_RELAXED);
	return b;
}

void bdev_get(struct block_device *bdev)
{
	__atomic_add_fetch(&bdev->refcount, 1, __ATOMIC_RELAXED);
}

void bdev_put(struct block_device *bdev)
{
	if (__atomic_sub_fetch(&bdev->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	ext_devt_free(bdev->rdev);
	disk_put(bdev->disk);
	__atomic_sub_fetch(&live_bdevs, 1, __ATOMIC_RELAXED);
	kfree(bdev);
}

uint64_t bdev_nr_sects(const struct block_device *bdev)
{
	return bdev->partno ? bdev->nr_sects : disk_capacity(bdev->disk);
}

/* A few disks of 16 partitions: a walk of every table is short. */
struct block_device *bdev_lookup(uint32_t rdev)
{
	struct block_device *found = NULL;
	struct list_head *pos;

	spin_lock(&disks_lock);
	for (pos = disks.next; pos != &disks && !found; pos = pos->next) {
		struct gendisk *d = list_entry(pos, struct gendisk, link);

		spin_lock(&d->lock);
		for (uint32_t i = 0; i < DISK_MAX_PARTS && !found && !d->dead; i++)
			if (d->parts[i] && d->parts[i]->rdev == rdev)
				bdev_get(found = d->parts[i]);
		spin_unlock(&d->lock);
	}
	spin_unlock(&disks_lock);
	return found;
}

void disk_for_each(void (*fn)(struct gendisk *d, void *arg), void *arg)
{
	spin_lock(&disks_lock);
	for (struct list_head *pos = disks.next; pos != &disks; pos = pos->next)
		fn(list_entry(pos, struct gendisk, link), arg);
	spin_unlock(&disks_lock);
}

/* ---- /dev nodes ---- */

/* /dev/<bdev name>, brw------- root root as Linux's devtmpfs makes them. */
static void node_add(struct block_device *b)
{
	struct inode *dir = devtmpfs_root(), *ip = NULL;
	int err;

	if (!dir)
		return; /* before /dev exists: devices_init makes none for us */
	err = dir_create(dir, b->name, strlen(b->name), S_IFBLK | 0600, b->rdev, &ip);
	if (err == -EEXIST && ip && (ip->mode & S_IFMT) == S_IFBLK && ip->rdev == b->rdev)
		err = 0; /* left by a driver that came back */
	if (err)
		printk("block: cannot create /dev/%s (%d)\n", b->name, err);
	if (ip)
		inode_put(ip);
	inode_put(dir);
}

/* Removes /dev/<name> if it is still the node of b (a user may have
 * replaced it). */
static void node_del(struct block_device *b)
{
	struct inode *dir = devtmpfs_root(), *ip;

	if (!dir)
		return;
	ip = dir_lookup(dir, b->name, strlen(b->name));
	if (ip && (ip->mode & S_IFMT) == S_IFBLK && ip->rdev == b->rdev)
		dir_remove(dir, b->name, strlen(b->name), false);
	if (ip)
		inode_put(ip);
	inode_put(dir);
}

/* ---- Registration ---- */

/* Under disks_lock: whether another disk has d's name or minors. */
static bool disk_clashes(const struct gendisk *d)
{
	for (struct list_head *pos = disks.next; pos != &disks; pos = pos->next) {
		struct gendisk *o = list_entry(pos, struct gendisk, link);

		if (!strcmp(o->name, d->name))
			return true;
		if (o->major == d->major && d->first_minor < o->first_minor + o->minors &&
		    o->first_minor < d->first_minor + d->minors)
			return true;
	}
	return false;
}

void disk_install_part(struct gendisk *d, struct block_device *b)
{
	spin_lock(&d->lock);
	d->parts[b->partno] = b;
	spin_unlock(&d->lock);
	node_add(b);
	block_sysfs_add(b);
}

void disk_drop_parts(struct gendisk *d)
{
	for (uint32_t i = 1; i < DISK_MAX_PARTS; i++) {
		struct block_device *b;

		spin_lock(&d->lock);
		b = d->parts[i];
		d->parts[i] = NULL;
		if (b)
			b->dead = true;
		spin_unlock(&d->lock);
		if (!b)
			continue;
		node_del(b);
		block_sysfs_del(b);
		bcache_invalidate_bdev(b);
		bdev_put(b);
	}
}

int disk_add(struct gendisk *d)
{
	struct block_device *whole;

	if (!d->minors || d->minors > DISK_MAX_PARTS || d->first_minor + d->minors > 256 ||
	    !d->name[0] || !d->ops || !d->ops->submit)
		return -EINVAL;
	if (!(whole = bdev_alloc(d, 0, 0, 0)))
		return -ENOMEM;
	spin_lock(&disks_lock);
	if (disk_clashes(d)) {
		spin_unlock(&disks_lock);
		bdev_put(whole);
		return -EEXIST;
	}
	disk_get(d); /* the registration's */
	list_add_tail(&d->link, &disks);
	spin_unlock(&disks_lock);
	mutex_lock(&d->scan_lock);
	disk_install_part(d, whole);
	if (!__atomic_load_n(&d->no_partscan, __ATOMIC_RELAXED))
		partition_scan(d);
	mutex_unlock(&d->scan_lock);
	return 0;
}

/* Bios the driver holds: zero, once nothing new can start. */
static bool disk_drained(struct gendisk *d)
{
	bool done;

	spin_lock(&d->lock);
	done = !d->inflight;
	spin_unlock(&d->lock);
	return done;
}

void disk_del(struct gendisk *d)
{
	struct block_device *whole;

	spin_lock(&d->lock);
	d->dead = true;
	spin_unlock(&d->lock);
	while (!disk_drained(d)) {
		DEFINE_WAIT(w);

		prepare_to_wait(&d->drain_wq, &w);
		if (!disk_drained(d))
			schedule(); /* uninterruptible in spirit: bios always complete */
		finish_wait(&d->drain_wq, &w);
	}
	mutex_lock(&d->scan_lock);
	disk_drop_parts(d);
	spin_lock(&d->lock);
	whole = d->parts[0];
	d->parts[0] = NULL;
	spin_unlock(&d->lock);
	mutex_unlock(&d->scan_lock);
	if (whole) {
		node_del(whole);
		block_sysfs_del(whole);
		bcache_invalidate_bdev(whole);
		bdev_put(whole);
	}
	spin_lock(&disks_lock);
	list_del(&d->link);
	spin_unlock(&disks_lock);
	disk_put(d); /* disk_add's */
}

void disk_set_capacity(struct gendisk *d, uint64_t sectors)
{
	struct block_device *whole;

	/* The whole disk's cached blocks may lie past the new end, or be of
	 * another file (loop): written back at the old size, then forgotten,
	 * as Linux's loop syncs and kills the device's page cache. */
	spin_lock(&d->lock);
	whole = d->parts[0];
	if (whole)
		bdev_get(whole);
	spin_unlock(&d->lock);
	if (whole)
		bcache_sync(whole);
	__atomic_store_n(&d->capacity, sectors, __ATOMIC_RELAXED);
	if (whole) {
		bcache_invalidate_bdev(whole);
		__atomic_store_n(&whole->blocksize, bcache_default_blocksize(d->lbsize, sectors),
				 __ATOMIC_RELAXED);
		bdev_put(whole);
	}
	disk_sysfs_update(d);
}

void disk_drop_partitions(struct gendisk *d)
{
	mutex_lock(&d->scan_lock);
	disk_drop_parts(d);
	mutex_unlock(&d->scan_lock);
}

int disk_rescan(struct gendisk *d)
{
	int err = 0;

	if (__atomic_load_n(&d->no_partscan, __ATOMIC_RELAXED))
		return -EINVAL;
	mutex_lock(&d->scan_lock);
	spin_lock(&d->lock);
	for (uint32_t i = 1; i < DISK_MAX_PARTS; i++)
		if (d->parts[i] && d->parts[i]->openers)
			err = -EBUSY;
	spin_unlock(&d->lock);
	if (!err) {
		/* The table as written through the whole disk's file. */
		bcache_sync(d->parts[0]);
		disk_drop_parts(d);
		partition_scan(d);
	}
	mutex_unlock(&d->scan_lock);
	return err;
}

/* disk_for_each's callback cannot sleep: the nodes are made from a list
 * of references taken under the lock. */
#define EARLY_DISKS 32

struct early {
	struct block_device *parts[EARLY_DISKS * DISK_MAX_PARTS];
	unsigned int n;
};

static void collect_parts(struct gendisk *d, void *arg)
{
	struct early *e = arg;

	spin_lock(&d->lock);
	for (uint32_t i = 0; i < DISK_MAX_PARTS && e->n < EARLY_DISKS * DISK_MAX_PARTS; i++)
		if (d->parts[i])
			bdev_get(e->parts[e->n++] = d->parts[i]);
	spin_unlock(&d->lock);
}

void block_init(void)
{
	struct early *e = kzalloc(sizeof(*e));

	block_sysfs_init();
	if (e) {
		disk_for_each(collect_parts, e);
		for (unsigned int i = 0; i < e->n; i++) {
			node_add(e->parts[i]);
			bdev_put(e->parts[i]);
		}
		kfree(e);
	}
	loop_init();
}
