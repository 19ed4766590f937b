/*
 * I/O statistics of disks and partitions, as Linux keeps and shows them
 * (its blk_account_io_* and genhd.c's part_stat_show, diskstats_show): a
 * request counts on its partition and on the whole disk when it
 * completes, with the time from the driver's submit; a block device's
 * busy time (io_ticks) grows while it has requests in flight.
 */
#include "block/blkdev.h"
#include "arch/x86_64/timer.h"
#include "fs/file.h"
#include "fs/snapshot.h"
#include "fs/vfs.h"
#include "lib/printk.h"
#include "lib/string.h"

/* Under the disk's lock: s's in-flight count moves by delta at now. */
static void busy_move(struct disk_stats *s, uint64_t now, int delta)
{
	if (s->inflight)
		s->busy_ns += now - s->busy_from;
	s->busy_from = now;
	s->inflight += delta;
}

/* The accounts b counts on (d locked): its partition's and, for a
 * partition, the whole disk's (gone only once the disk drained). */
static int accounts(struct gendisk *d, struct bio *b, struct disk_stats *acc[2])
{
	int n = 0;

	acc[n++] = &b->bdev->stats;
	if (b->bdev->partno && d->parts[0])
		acc[n++] = &d->parts[0]->stats;
	return n;
}

void disk_stats_start(struct gendisk *d, struct bio *b)
{
	struct disk_stats *acc[2];

	b->start_ns = clock_monotonic_ns();
	for (int i = accounts(d, b, acc); i--;)
		busy_move(acc[i], b->start_ns, 1);
}

void disk_stats_done(struct gendisk *d, struct bio *b)
{
	struct disk_stats *acc[2];
	uint64_t now = clock_monotonic_ns();

	for (int i = accounts(d, b, acc); i--;) {
		busy_move(acc[i], now, -1);
		acc[i]->ios[b->op]++;
		acc[i]->sectors[b->op] += bio_bytes(b) >> SECTOR_SHIFT;
		acc[i]->nsecs[b->op] += now - b->start_ns;
	}
}

/* b's statistics as they stand (d locked), its busy time up to now. */
static struct disk_stats stats_now(const struct block_device *b)
{
	struct disk_stats s = b->stats;

	busy_move(&s, clock_monotonic_ns(), 0);
	return s;
}

#define MS(ns) ((unsigned long)((ns) / 1000000))

/*
 * Linux's 17 fields: reads, reads merged, sectors read, ms reading; the
 * same of writes; in flight, ms busy, ms of all requests; discards (4
 * fields, none here); flushes and their ms.  fmt spaces them: the stat
 * file's 8 columns or diskstats' single spaces.
 */
static int put_fields(char *buf, size_t size, const char *fmt, const struct disk_stats *s)
{
	const uint64_t *n = s->nsecs;

	return snprintk(buf, size, fmt, s->ios[BIO_READ], 0UL, s->sectors[BIO_READ],
			MS(n[BIO_READ]), s->ios[BIO_WRITE], 0UL, s->sectors[BIO_WRITE],
			MS(n[BIO_WRITE]), (unsigned long)s->inflight, MS(s->busy_ns),
			MS(n[BIO_READ] + n[BIO_WRITE] + n[BIO_FLUSH]), 0UL, 0UL, 0UL, 0UL,
			s->ios[BIO_FLUSH], MS(n[BIO_FLUSH]));
}

#define STAT_FMT                                                                                   \
	"%8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu %8lu\n"
#define DISKSTATS_FMT "%lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu\n"

bool disk_stats_line(uint32_t rdev, char *buf, size_t size)
{
	struct block_device *b = bdev_lookup(rdev);
	struct disk_stats s;

	if (!b)
		return false;
	spin_lock(&b->disk->lock);
	s = stats_now(b);
	spin_unlock(&b->disk->lock);
	bdev_put(b);
	put_fields(buf, size, STAT_FMT, &s);
	return true;
}

struct diskstats_text {
	char *buf;
	size_t size, n; /* n < size: snprintk returns the length it wanted */
};

static void put_text(struct diskstats_text *t, int n)
{
	t->n = (size_t)n < t->size - t->n ? t->n + n : t->size - 1;
}

/* Under disks_lock (disk_for_each): d's lines, the whole disk's always,
 * a partition's if it has sectors (Linux's diskstats_show). */
static void show_disk(struct gendisk *d, void *arg)
{
	struct diskstats_text *t = arg;

	spin_lock(&d->lock);
	for (uint32_t i = 0; i < DISK_MAX_PARTS; i++) {
		struct block_device *b = d->parts[i];
		struct disk_stats s;

		if (!b || (i && !bdev_nr_sects(b)))
			continue;
		s = stats_now(b);
		put_text(t, snprintk(t->buf + t->n, t->size - t->n, "%4u %7u %s ", b->rdev >> 8,
				     b->rdev & 0xff, b->name));
		put_text(t, put_fields(t->buf + t->n, t->size - t->n, DISKSTATS_FMT, &s));
	}
	spin_unlock(&d->lock);
}

static void format_diskstats(char *buf, size_t size)
{
	struct diskstats_text t = {buf, size, 0};

	buf[0] = 0;
	disk_for_each(show_disk, &t);
}

/* 300 devices' lines of at most 120 bytes. */
SNAPSHOT_OPS(diskstats, 36864);
