/*
 * The block layer's interface (docs/block.md): disks (Linux's gendisk),
 * their partitions (block_device), and the requests drivers carry out
 * (bio).  A driver (loop.c here, virtio-blk in drivers/) fills a struct
 * gendisk, registers it with disk_add, and carries out each bio the layer
 * hands its ->submit, completing it with bio_endio from any context.
 * Everything above the driver (the /dev files, the buffer cache, file
 * systems) submits bios with submit_bio or submit_bio_wait.
 *
 * Sectors are always 512 bytes (Linux's sector_t unit), whatever the
 * disk's logical block size; a bio's start and length are multiples of
 * that block size.
 */
#ifndef BLOCK_BLKDEV_H
#define BLOCK_BLKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/list.h"
#include "lib/spinlock.h"
#include "sched/mutex.h"
#include "sched/wait.h"

#define SECTOR_SHIFT 9
#define SECTOR_SIZE  512U

struct gendisk;
struct block_device;
struct bio;

/* ---- Requests ---- */

enum bio_op {
	BIO_READ,  /* device to memory */
	BIO_WRITE, /* memory to device */
	BIO_FLUSH, /* make every completed write durable (no segments) */
	BIO_NR_OPS,
};

/*
 * One piece of memory a bio moves: a physical address (a DMA driver hands
 * it to the device as it is; the kernel reads it at P2V(pa), mm/layout.h)
 * and a length, inside one 4 KiB page.  The caller keeps the memory alive
 * and unchanged until the bio completes.
 */
struct bio_seg {
	uint64_t pa;
	uint32_t len;
};

#define BIO_MAX_SEGS 32 /* 128 KiB of whole pages per bio */

/*
 * A request: op on the disk's sectors [sector, sector + bio_sectors())
 * through the segments in order.  Owned by its submitter until
 * submit_bio, then by the layer and the driver until bio_endio, which
 * calls end_io once (in any context, on any CPU: it must not sleep) and
 * gives it back to the submitter.
 */
struct bio {
	enum bio_op op;
	/* Set by the submitter relative to bdev; submit_bio adds the
	 * partition's start, so the driver sees the disk's own sector. */
	uint64_t sector;
	/* The partition or whole disk it was submitted to; the submitter
	 * holds a reference on it until end_io ran. */
	struct block_device *bdev;
	unsigned int nseg;
	struct bio_seg seg[BIO_MAX_SEGS];
	/* 0, or -EIO (a device error, a removed disk, past the end), -EROFS. */
	int status;
	void (*end_io)(struct bio *b);
	void *private; /* the submitter's (submit_bio_wait's waiter) */
	/* The driver's, between ->submit and bio_endio (its queue). */
	struct list_head drv_link;
	void *drv_private;
	uint64_t start_ns; /* handed to the driver (the I/O statistics) */
};

/* A zeroed bio (kzalloc), or NULL; bio_free releases it (not the memory
 * its segments name). */
struct bio *bio_alloc(enum bio_op op, struct block_device *bdev, uint64_t sector);
void bio_free(struct bio *b);
/*
 * Appends the kernel memory [kva, kva + len) (direct-mapped: a frame's
 * P2V or a kmalloc of at most a page) as segments split at page bounds.
 * False when the bio has no room left.
 */
bool bio_add_kernel(struct bio *b, void *kva, size_t len);
/* The bytes a bio moves (the sum of its segments). */
size_t bio_bytes(const struct bio *b);

/*
 * Starts b: checks it against the partition (past the end, a write to a
 * read-only disk, a removed disk complete it at once with -EIO/-EROFS),
 * moves it to the disk's sectors and hands it to the driver.  Returns
 * before or after completion; end_io may run before submit_bio returns,
 * on this CPU or another.  Callable from process context with no
 * spinlock held.
 */
void submit_bio(struct bio *b);
/* submit_bio and sleep until it completed: its status. */
int submit_bio_wait(struct bio *b);
/* The driver's completion (status 0 or -EIO): any context, exactly once. */
void bio_endio(struct bio *b, int status);
/* Synchronous transfer of len bytes of kernel memory at byte offset off
 * of bdev (a multiple of the logical block size), split into bios as
 * needed: 0 or the first error. */
int blkdev_rw_kernel(struct block_device *bdev, enum bio_op op, uint64_t off, void *kbuf,
		     size_t len);
/* A BIO_FLUSH of bdev's disk, waited for (0 if the driver has no cache). */
int blkdev_issue_flush(struct block_device *bdev);

/* ---- Disks ---- */

/*
 * What a driver gives the layer.  submit: carry out b (b->sector is the
 * disk's own), completing it with bio_endio, now or later; called in
 * process context with no lock of the layer held, never after disk_del
 * returned; it may sleep (loop.c does the I/O in it).  A driver without a volatile cache completes
 * BIO_FLUSH at once (or leaves flush_ok false: the layer completes it).  release: the last
 * reference is gone, free what priv holds (optional).  ioctl: the
 * driver's own requests on an open device (loop's LOOP_*), -ENOTTY for
 * the others (optional).
 */
struct disk_ops {
	void (*submit)(struct gendisk *d, struct bio *b);
	void (*release)(struct gendisk *d);
	long (*ioctl)(struct block_device *bdev, unsigned int fflags, unsigned int cmd,
		      unsigned long arg); /* fflags: the open file's O_ACCMODE... */
	/* An open of the disk or a partition: 0 or -errno (loop's ENXIO while
	 * it clears itself); may sleep; optional. */
	int (*open)(struct gendisk *d);
	/* The last open file of the disk closed (loop's autoclear); optional. */
	void (*last_close)(struct gendisk *d);
};

#define DISK_NAME_LEN  16
#define DISK_MAX_PARTS 16 /* minors per disk, the whole disk included (virtio-blk's) */
#define DISK_RA_PAGES  32 /* 128 KiB of readahead, Linux's VM_READAHEAD_PAGES */

/*
 * A disk.  The driver sets the fields above the line before disk_add;
 * name, major and first_minor are constant after, capacity and ro may
 * change through disk_set_capacity and disk_set_ro.
 */
struct gendisk {
	char name[DISK_NAME_LEN]; /* "vda", "loop0" */
	uint32_t major, first_minor;
	/* Minors of its own: 1 (loop) to DISK_MAX_PARTS.  Partitions past
	 * them get major BLOCK_EXT_MAJOR and a minor from a shared pool, as
	 * Linux's extended device numbers. */
	uint32_t minors;
	/* No partition table is read (Linux's GENHD_FL_NO_PART: loop without
	 * LO_FLAGS_PARTSCAN); BLKRRPART is EINVAL.  Atomic. */
	bool no_partscan;
	uint64_t capacity; /* 512-byte sectors; atomic loads and stores */
	uint32_t lbsize;   /* logical block size: 512..4096, a power of two */
	bool ro;	   /* read-only (a device that refuses writes, BLKROSET) */
	bool flush_ok;	   /* the driver handles BIO_FLUSH (a write cache) */
	/* Readahead of a sequential reader, in pages (Linux's bdi ra_pages:
	 * BLKRASET, queue/read_ahead_kb); 0 reads only what is asked.
	 * Atomic. */
	uint64_t ra_pages;
	const struct disk_ops *ops;
	void *priv; /* the driver's; constant */
	/* ---- the layer's ---- */
	/*
	 * Atomic.  Held by the registration (from disk_add to disk_del),
	 * each of its block_devices, and the driver between disk_alloc and
	 * disk_put.  The last put calls ops->release and frees the disk.
	 */
	uint32_t refcount;
	/* Protects parts, dead, inflight and openers (a spinlock: bio_endio
	 * takes it in interrupt context). */
	struct spinlock lock;
	bool dead;		    /* disk_del ran: opens ENXIO, bios -EIO */
	uint32_t inflight;	    /* bios between the driver's submit and bio_endio */
	uint32_t openers;	    /* open files of any of its block_devices */
	struct wait_queue drain_wq; /* disk_del waits for inflight to reach 0 */
	/* Its partitions, [0] the whole disk; each holds a reference (taken
	 * by the table) until disk_del or a rescan replaces it. */
	struct block_device *parts[DISK_MAX_PARTS];
	/* Serialises the changes of the node set and parts (disk_add,
	 * rescans, disk_del), which make and remove /dev nodes (they sleep). */
	struct mutex scan_lock;
	struct list_head link; /* in the disk list, under disks_lock (genhd.c) */
};

/*
 * The I/O statistics of a partition or a whole disk (Linux's disk_stats),
 * counted as requests reach the driver and complete, under the disk's
 * lock; /sys/block/<dev>/stat and /proc/diskstats show them
 * (block/disk_stats.c).  Requests are never merged here, and there is no
 * discard: those fields are 0.
 */
struct disk_stats {
	uint64_t ios[BIO_NR_OPS];     /* completed */
	uint64_t sectors[BIO_NR_OPS]; /* moved by them */
	uint64_t nsecs[BIO_NR_OPS];   /* their time from the driver's submit to completion */
	uint64_t busy_ns;	      /* time with a request in flight (io_ticks) */
	uint64_t busy_from;	      /* when the in-flight count last changed */
	uint32_t inflight;
};

/*
 * A partition, or the whole disk (partno 0): what a /dev node opens and
 * what the buffer cache keys its blocks by (Linux's block_device).
 */
struct block_device {
	/* Atomic.  Held by the disk's parts[] entry, each open file, each
	 * cached buffer (block/bcache.h) and each bio submitted to it. */
	uint32_t refcount;
	/* Its disk, referenced by the block_device: constant. */
	struct gendisk *disk;
	uint32_t partno; /* 0: the whole disk */
	/* MKDEV(disk major, first_minor + partno), or MKDEV(BLOCK_EXT_MAJOR,
	 * n) past the disk's minors (freed with the block_device). */
	uint32_t rdev;
	/* Partitions: constant.  The whole disk reads the disk's capacity. */
	uint64_t start, nr_sects;
	/* Buffer cache block size: bytes, a power of two from the disk's
	 * lbsize to 4096; changed only while the cache holds none of its
	 * blocks (bcache.c, under the bcache lock). */
	uint32_t blocksize;
	uint32_t openers; /* open files of it, under disk->lock */
	/* Readahead's hint: the block after the last one read through a
	 * /dev file (atomic loads and stores; any reader's). */
	uint64_t ra_next;
	bool ro; /* BLKROSET on it (atomic loads and stores) */
	/* Out of its disk's table (a rescan, the disk's removal): I/O -EIO,
	 * opens ENXIO.  Set under disk->lock. */
	bool dead;
	char name[DISK_NAME_LEN + 4]; /* "vda1" */
	struct disk_stats stats;      /* under disk->lock */
};

/* A new disk with one reference (the caller's), zeroed, the layer's
 * fields ready; or NULL. */
struct gendisk *disk_alloc(void);
void disk_get(struct gendisk *d);
void disk_put(struct gendisk *d);
/*
 * Publishes d: its whole-disk block_device, the partitions found on it
 * (MBR, GPT) and /dev/<name>[N] nodes.  Takes a reference of its own (the
 * caller keeps its).  0, -EEXIST (the name or a minor is in use), -ENOMEM.
 */
int disk_add(struct gendisk *d);
/*
 * Withdraws d: new opens fail (ENXIO), new bios -EIO, the /dev nodes go;
 * waits for the bios the driver holds to complete, so the driver may tear
 * down its queues once this returns.  Open files keep the memory alive
 * and see EIO.  Drops disk_add's reference.
 */
void disk_del(struct gendisk *d);
/* Capacity changes (loop's set/clear): the whole disk's size. */
void disk_set_capacity(struct gendisk *d, uint64_t sectors);
static inline uint64_t disk_capacity(const struct gendisk *d)
{
	return __atomic_load_n(&d->capacity, __ATOMIC_RELAXED);
}
/* Rereads the partition table: -EBUSY while a partition is open,
 * -EINVAL when the disk takes none (no_partscan). */
int disk_rescan(struct gendisk *d);
/* Drops d's partitions (open ones stay, dead): loop's clear. */
void disk_drop_partitions(struct gendisk *d);

void bdev_get(struct block_device *bdev);
void bdev_put(struct block_device *bdev);
/* The block_device of device number rdev, referenced, or NULL (no such
 * registered disk or partition: ENXIO). */
struct block_device *bdev_lookup(uint32_t rdev);
/*
 * Opening a block device as an open /dev file does (counted in openers,
 * so BLKRRPART and loop's autoclear see it): what a mounted file system
 * holds from mount to its super block's end.  bdev_open gives it
 * referenced in *out, or -ENXIO; bdev_close is the last close's work
 * (write-back, last_close) and drops the reference.
 */
int bdev_open(uint32_t rdev, struct block_device **out);
void bdev_close(struct block_device *bdev);
/* Its size in 512-byte sectors. */
uint64_t bdev_nr_sects(const struct block_device *bdev);
static inline uint64_t bdev_bytes(const struct block_device *bdev)
{
	return bdev_nr_sects(bdev) << SECTOR_SHIFT;
}
static inline bool bdev_read_only(const struct block_device *bdev)
{
	return __atomic_load_n(&bdev->ro, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&bdev->disk->ro, __ATOMIC_RELAXED);
}
static inline bool bdev_dead(const struct block_device *bdev)
{
	return __atomic_load_n(&bdev->dead, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&bdev->disk->dead, __ATOMIC_RELAXED);
}

/* Disks and block_devices alive (leak accounting). */
unsigned long disk_count(void);
unsigned long bdev_count(void);

/* Calls fn for each registered disk under disks_lock (fn must not sleep). */
void disk_for_each(void (*fn)(struct gendisk *d, void *arg), void *arg);

/* Under d->lock: b's request reaches the driver, or completes
 * (block/disk_stats.c). */
void disk_stats_start(struct gendisk *d, struct bio *b);
void disk_stats_done(struct gendisk *d, struct bio *b);
/* /sys/block/<dev>/stat's line for the block_device numbered rdev, or
 * false if it is gone. */
bool disk_stats_line(uint32_t rdev, char *buf, size_t size);

/* /proc/partitions' text (NUL-terminated, cut at size): also what the
 * boot lists when the root device is missing (fs/mount_root.c). */
void partitions_text(char *buf, size_t size);

/* At boot (kmain) once devtmpfs exists and interrupts are on (it takes
 * mutexes): the /dev nodes of the disks registered before, and the loop
 * devices.  disk_add too must run with interrupts on. */
void block_init(void);

/* Linux's majors for the devices here. */
#define LOOP_MAJOR	7
#define VIRTBLK_MAJOR	254 /* dynamic in Linux; the first it hands out */
#define BLOCK_EXT_MAJOR 259 /* Linux's blkext: partitions past a disk's minors */

#endif
