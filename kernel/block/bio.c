/*
 * Requests: building a bio, handing it to the disk's driver, completing it,
 * and the synchronous helpers the layers above use (docs/block.md, "The
 * life of a request").
 */
#include "block/blkdev.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/task.h"
#include <uapi/errno.h>

struct bio *bio_alloc(enum bio_op op, struct block_device *bdev, uint64_t sector)
{
	struct bio *b = kzalloc(sizeof(*b));

	if (b) {
		b->op = op;
		b->bdev = bdev;
		b->sector = sector;
		list_init(&b->drv_link);
	}
	return b;
}

void bio_free(struct bio *b)
{
	kfree(b);
}

bool bio_add_kernel(struct bio *b, void *kva, size_t len)
{
	uint64_t va = (uint64_t)kva;

	while (len) {
		size_t n = PAGE_SIZE - (va & PAGE_MASK);

		if (n > len)
			n = len;
		if (b->nseg == BIO_MAX_SEGS)
			return false;
		b->seg[b->nseg++] = (struct bio_seg){V2P(va), (uint32_t)n};
		va += n;
		len -= n;
	}
	return true;
}

size_t bio_bytes(const struct bio *b)
{
	size_t n = 0;

	for (unsigned int i = 0; i < b->nseg; i++)
		n += b->seg[i].len;
	return n;
}

/* Completion without the driver (refused before it saw the bio). */
static void bio_fail(struct bio *b, int status)
{
	b->status = status;
	b->end_io(b);
}

/* The bio's size and alignment, against its partition's end and the
 * disk's block size: -EIO for what the driver must never see. */
static int bio_check(const struct bio *b)
{
	struct block_device *bdev = b->bdev;
	uint64_t bytes = bio_bytes(b), mask = bdev->disk->lbsize - 1;
	uint64_t nsect = bytes >> SECTOR_SHIFT, size = bdev_nr_sects(bdev);

	if (b->op == BIO_FLUSH)
		return b->nseg ? -EIO : 0;
	if (!bytes || (bytes & mask) || ((b->sector << SECTOR_SHIFT) & mask))
		return -EIO;
	for (unsigned int i = 0; i < b->nseg; i++)
		if ((b->seg[i].pa & (PAGE_SIZE - 1)) + b->seg[i].len > PAGE_SIZE)
			return -EIO;
	if (b->sector > size || nsect > size - b->sector)
		return -EIO;
	if (b->op == BIO_WRITE && bdev_read_only(bdev))
		return -EROFS;
	return 0;
}

void submit_bio(struct bio *b)
{
	struct gendisk *d = b->bdev->disk;
	int err = bio_check(b);

	if (err)
		return bio_fail(b, err);
	if (b->op == BIO_READ) /* the submitter made a disk read (Linux's submit_bio) */
		task_io_add(&task_io_current()->read_bytes, bio_bytes(b));
	if (b->op == BIO_FLUSH && !d->flush_ok)
		return bio_fail(b, 0); /* no volatile cache: nothing to make durable */
	b->sector += b->bdev->start;
	spin_lock(&d->lock);
	if (d->dead || b->bdev->dead) {
		spin_unlock(&d->lock);
		return bio_fail(b, -EIO);
	}
	d->inflight++; /* disk_del waits for it: the driver stays up */
	disk_stats_start(d, b);
	spin_unlock(&d->lock);
	d->ops->submit(d, b);
}

void bio_endio(struct bio *b, int status)
{
	struct gendisk *d = b->bdev->disk;

	b->status = status;
	/* d outlives this: the submitter's bdev reference holds it until
	 * end_io has run, so the drain wake-up comes first. */
	spin_lock(&d->lock);
	disk_stats_done(d, b);
	if (!--d->inflight && d->dead)
		wake_up(&d->drain_wq);
	spin_unlock(&d->lock);
	b->end_io(b);
}

/* submit_bio_wait's waiter, on the waiting task's stack: the bio's
 * private points at it.  done is set and the sleeper woken under wq.lock,
 * and the sleeper tests done under it: once it saw done, the completion
 * is finished with the waiter and the stack may go. */
struct bio_waiter {
	struct wait_queue wq;
	bool done; /* under wq.lock */
};

static void bio_wait_end(struct bio *b)
{
	struct bio_waiter *w = b->private;

	spin_lock(&w->wq.lock);
	w->done = true;
	wake_up_locked(&w->wq, 0);
	spin_unlock(&w->wq.lock);
}

static bool bio_waiter_done(struct bio_waiter *w)
{
	bool done;

	spin_lock(&w->wq.lock);
	done = w->done;
	spin_unlock(&w->wq.lock);
	return done;
}

int submit_bio_wait(struct bio *b)
{
	struct bio_waiter w = {.done = false};

	wait_queue_init(&w.wq, "bio_wait");
	b->private = &w;
	b->end_io = bio_wait_end;
	submit_bio(b);
	/* Not interruptible: the memory of the bio is the caller's, and the
	 * driver writes to it until it completes. */
	for (;;) {
		DEFINE_WAIT(we);
		bool done;

		prepare_to_wait(&w.wq, &we);
		if (!(done = bio_waiter_done(&w)))
			schedule();
		finish_wait(&w.wq, &we);
		if (done)
			break;
	}
	return b->status;
}

int blkdev_rw_kernel(struct block_device *bdev, enum bio_op op, uint64_t off, void *kbuf,
		     size_t len)
{
	char *p = kbuf;

	while (len) {
		struct bio *b = bio_alloc(op, bdev, off >> SECTOR_SHIFT);
		size_t n = len < BIO_MAX_SEGS * PAGE_SIZE - PAGE_SIZE
			       ? len
			       : BIO_MAX_SEGS * PAGE_SIZE - PAGE_SIZE;
		int err;

		if (!b)
			return -ENOMEM;
		bio_add_kernel(b, p, n); /* fits: n leaves room for a misaligned start */
		err = submit_bio_wait(b);
		bio_free(b);
		if (err)
			return err;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int blkdev_issue_flush(struct block_device *bdev)
{
	struct bio *b = bio_alloc(BIO_FLUSH, bdev, 0);
	int err;

	if (!b)
		return -ENOMEM;
	err = submit_bio_wait(b);
	bio_free(b);
	return err;
}
