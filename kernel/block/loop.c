/*
 * Loop devices (docs/block.md, "Loop devices"): /dev/loopN, a disk whose
 * sectors are a file's bytes, and /dev/loop-control, which makes and
 * removes them.  Linux's drivers/block/loop.c ABI: LOOP_SET_FD,
 * LOOP_CONFIGURE, LOOP_CLR_FD (deferred to the last close, as Linux's
 * autoclear), LOOP_{GET,SET}_STATUS64, LOOP_CHANGE_FD, LOOP_SET_CAPACITY,
 * LOOP_CTL_*, and a bound device's /sys/block/loopN/loop attributes.
 * The I/O runs in the submitter's context, synchronously, through the
 * backing file's inode (a regular file) or its read/write (a disk).
 */
#include "arch/x86_64/uaccess.h"
#include "block/blkdev.h"
#include "block/loop.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "fs/sysfs/sysfs.h"
#include "fs/inode.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/task.h"
#include <uapi/blkdev.h>
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define LOOP_MAX	256 /* minors 0..255: fdkernel's device numbers are 8:8 */
#define LOOP_BOOT_COUNT 8   /* loop0..7 exist from boot, as Linux's default */

enum loop_state { LO_UNBOUND, LO_BOUND, LO_RUNDOWN };

struct loop_device {
	uint32_t number;
	/* Referenced by the loop device from its creation to its removal. */
	struct gendisk *disk;
	/* Under loop_lock: */
	enum loop_state state;
	uint64_t offset, sizelimit;
	uint32_t flags; /* LO_FLAGS_* */
	uint8_t file_name[LO_NAME_SIZE];
	/* The backing file: a reference held by the device from SET_FD or
	 * CONFIGURE to the clear, changed under loop_lock and io_lock both;
	 * the I/O path reads it under io_lock and takes a reference of its
	 * own for the transfer, so a clear never frees it under a request. */
	struct file *backing;
	struct spinlock io_lock;
	struct list_head link; /* in loops, under loop_lock */
};

/* Serialises every configuration change of every loop device, creation
 * and removal, and protects loops and the fields so marked.  A sleeping
 * lock: it is held across opens of /dev nodes and cache flushes. */
static struct mutex loop_lock;
static struct list_head loops = LIST_HEAD_INIT(loops);
static unsigned long nloops; /* under loop_lock; atomic reads */

unsigned long loop_count(void)
{
	return __atomic_load_n(&nloops, __ATOMIC_RELAXED);
}

/* ---- I/O ---- */

/* One segment at byte pos of the backing file: 0 or -EIO.  Reads past the
 * file's end give zeroes, as Linux's loop. */
static int loop_seg(struct file *f, void *kva, size_t len, uint64_t pos, bool write)
{
	long n;

	if (inode_is_reg(f->inode)) {
		n = write ? inode_write(f->inode, kva, len, pos)
			  : inode_read(f->inode, kva, len, pos);
	} else {
		struct iovec v;
		struct iov_iter it;

		iov_iter_kernel(&it, &v, kva, len);
		n = write ? f->ops->write_iter(f, &it, &pos) : f->ops->read_iter(f, &it, &pos);
	}
	if (n < 0 || (write && (size_t)n != len))
		return -EIO;
	if (!write && (size_t)n < len)
		memset((char *)kva + n, 0, len - n);
	return 0;
}

static void loop_submit(struct gendisk *d, struct bio *b)
{
	struct loop_device *lo = d->priv;
	uint64_t pos;
	struct file *f;
	int err = 0;

	spin_lock(&lo->io_lock);
	f = lo->backing;
	if (f)
		file_get(f);
	pos = lo->offset + (b->sector << SECTOR_SHIFT);
	spin_unlock(&lo->io_lock);
	if (!f)
		return bio_endio(b, -EIO);
	if (b->op == BIO_FLUSH) {
		file_put(f);
		return bio_endio(b, 0); /* the ramfs has nothing to write back */
	}
	for (unsigned int i = 0; i < b->nseg && !err; i++) {
		err = loop_seg(f, P2V(b->seg[i].pa), b->seg[i].len, pos, b->op == BIO_WRITE);
		pos += b->seg[i].len;
	}
	file_put(f);
	bio_endio(b, err);
}

/* ---- Configuration (under loop_lock) ---- */

/* The device's size from its file, offset and limit (Linux's get_size). */
static uint64_t loop_sectors(struct loop_device *lo, struct file *f)
{
	uint64_t size = inode_is_reg(f->inode) ? inode_size(f->inode)
			: f->ops->fixed_size   ? f->ops->fixed_size(f)
					       : 0;

	size = size > lo->offset ? size - lo->offset : 0;
	if (lo->sizelimit && lo->sizelimit < size)
		size = lo->sizelimit;
	return size >> SECTOR_SHIFT;
}

/* Whether f may back lo: a regular file or a disk.  Along a chain of loop
 * devices under it, lo itself is -EBADF (a cycle) and an unbound one
 * -EINVAL, as Linux's loop_validate_file. */
static int loop_validate(struct loop_device *lo, struct file *f)
{
	for (int depth = 0; f; depth++) {
		struct block_device *bdev;
		struct loop_device *under;

		if (!f->inode || (!inode_is_reg(f->inode) && !S_ISBLK(f->inode->mode)))
			return -EINVAL;
		if (inode_is_reg(f->inode) || depth > LOOP_MAX)
			return 0;
		bdev = f->priv; /* an open disk's, held by the open file */
		if (!bdev || bdev->disk->ops != &loop_disk_ops)
			return 0;
		under = bdev->disk->priv;
		if (under == lo)
			return -EBADF;
		if (under->state != LO_BOUND)
			return -EINVAL;
		f = under->backing; /* loop_lock held: constant */
	}
	return 0;
}

/* The disk's read-only state from the flags; /sys/block follows at the
 * disk_set_capacity every caller makes next. */
static void loop_set_ro(struct loop_device *lo)
{
	__atomic_store_n(&lo->disk->ro, !!(lo->flags & LO_FLAGS_READ_ONLY), __ATOMIC_RELAXED);
}

/* LO_FLAGS_PARTSCAN: the table is read now and at BLKRRPART (loopNp1...,
 * numbered from BLOCK_EXT_MAJOR as Linux's). */
static void loop_partscan(struct loop_device *lo)
{
	bool scan = lo->flags & LO_FLAGS_PARTSCAN;

	__atomic_store_n(&lo->disk->no_partscan, !scan, __ATOMIC_RELAXED);
	if (scan)
		disk_rescan(lo->disk);
}

/*
 * /sys/block/loopN/loop while lo is bound (Linux's loop_attribute_group):
 * backing_file (its path when the attributes were last written: at the
 * bind, LOOP_CHANGE_FD, a status change; Linux's shows the path at each
 * read), offset, sizelimit, and the flags autoclear, partscan and dio, one
 * value a line.  Rewritten after each change under loop_lock.
 */
static void loop_sysfs_attr(struct loop_device *lo, const char *attr, const char *fmt,
			    unsigned long v)
{
	char path[48], text[24];

	snprintk(path, sizeof path, "block/loop%u/loop/%s", lo->number, attr);
	snprintk(text, sizeof text, fmt, v);
	sysfs_dyn_set(path, text);
}

static void loop_sysfs_update(struct loop_device *lo)
{
	char path[48], *buf = kmalloc(PATH_MAX);
	size_t len;

	snprintk(path, sizeof path, "block/loop%u/loop", lo->number);
	if (!buf || sysfs_dyn_mkdir(path)) {
		kfree(buf);
		printk("loop: cannot make /sys/%s\n", path);
		return;
	}
	if (file_path_text(lo->backing, buf))
		buf[0] = '\0';
	len = strlen(buf);
	if (len + 2 <= PATH_MAX) { /* Linux's "%s\n" */
		buf[len] = '\n';
		buf[len + 1] = '\0';
	}
	strlcpy(path + strlen(path), "/backing_file", sizeof path - strlen(path));
	sysfs_dyn_set(path, buf);
	kfree(buf);
	loop_sysfs_attr(lo, "offset", "%lu\n", lo->offset);
	loop_sysfs_attr(lo, "sizelimit", "%lu\n", lo->sizelimit);
	loop_sysfs_attr(lo, "autoclear", "%lu\n", !!(lo->flags & LO_FLAGS_AUTOCLEAR));
	loop_sysfs_attr(lo, "partscan", "%lu\n", !!(lo->flags & LO_FLAGS_PARTSCAN));
	loop_sysfs_attr(lo, "dio", "%lu\n", !!(lo->flags & LO_FLAGS_DIRECT_IO));
}

static void loop_sysfs_remove(struct loop_device *lo)
{
	char path[48];

	snprintk(path, sizeof path, "block/loop%u/loop", lo->number);
	sysfs_dyn_remove(path);
}

/*
 * Binds lo to the open file fd with the settings of info (NULL: none) and
 * the block size bs (0: 512).  -EBUSY when bound, -EBADF, -EINVAL.
 */
static long loop_bind(struct loop_device *lo, int fd, const struct loop_info64 *info, uint32_t bs,
		      bool dev_writable)
{
	struct file *f;
	long err;

	if (!(f = files_lookup(current()->files, fd)))
		return -EBADF;
	if ((err = lo->state != LO_UNBOUND ? -EBUSY : loop_validate(lo, f))) {
		file_put(f);
		return err;
	}
	lo->offset = info ? info->lo_offset : 0;
	lo->sizelimit = info ? info->lo_sizelimit : 0;
	lo->flags = info ? info->lo_flags : 0;
	memset(lo->file_name, 0, sizeof(lo->file_name));
	if (info)
		memcpy(lo->file_name, info->lo_file_name, LO_NAME_SIZE - 1);
	/* Linux: a file or device not open for writing makes it read-only. */
	if (!file_can_write(f) || !dev_writable || !f->ops->write_iter)
		lo->flags |= LO_FLAGS_READ_ONLY;
	lo->disk->lbsize = bs ? bs : SECTOR_SIZE;
	spin_lock(&lo->io_lock);
	lo->backing = f; /* the lookup's reference becomes the device's */
	spin_unlock(&lo->io_lock);
	lo->state = LO_BOUND;
	loop_set_ro(lo);
	disk_set_capacity(lo->disk, loop_sectors(lo, f));
	loop_partscan(lo);
	loop_sysfs_update(lo);
	return 0;
}

/* LOOP_SET_BLOCK_SIZE: a power of two from 512 to a page. */
static bool block_size_ok(unsigned long bs)
{
	return bs >= 512 && bs <= PAGE_SIZE && !(bs & (bs - 1));
}

/* Unbinds lo: the size becomes 0, and the backing file's reference is
 * returned for the caller to put once loop_lock is dropped (the file may
 * be another loop device's, whose last close takes loop_lock). */
static struct file *loop_unbind(struct loop_device *lo)
{
	struct file *f;

	loop_sysfs_remove(lo);
	disk_drop_partitions(lo->disk);
	__atomic_store_n(&lo->disk->no_partscan, true, __ATOMIC_RELAXED);
	/* Writable again (the dirty blocks of a read-only device can only be
	 * BLKROSET's), then the size: disk_set_capacity writes the cached
	 * blocks back at the old size and updates /sys/block. */
	lo->flags = 0;
	loop_set_ro(lo);
	disk_set_capacity(lo->disk, 0);
	lo->disk->lbsize = SECTOR_SIZE;
	spin_lock(&lo->io_lock);
	f = lo->backing;
	lo->backing = NULL;
	spin_unlock(&lo->io_lock);
	lo->state = LO_UNBOUND;
	lo->offset = lo->sizelimit = 0;
	memset(lo->file_name, 0, sizeof(lo->file_name));
	return f;
}

/* Open files of lo's disk (its /dev/loopN and partitions). */
static uint32_t loop_openers(struct loop_device *lo)
{
	uint32_t n;

	spin_lock(&lo->disk->lock);
	n = lo->disk->openers;
	spin_unlock(&lo->disk->lock);
	return n;
}

/*
 * LOOP_CLR_FD, as Linux since 5.x: the device is marked to clear itself at
 * its last close (autoclear); when the caller is the only opener, it
 * already counts as gone (LOOP_GET_STATUS64 ENXIO, LOOP_SET_FD EBUSY, a
 * new open ENXIO).
 */
static long loop_clear(struct loop_device *lo)
{
	if (lo->state != LO_BOUND)
		return -ENXIO;
	lo->flags |= LO_FLAGS_AUTOCLEAR;
	if (loop_openers(lo) <= 1)
		lo->state = LO_RUNDOWN;
	loop_sysfs_update(lo);
	return 0;
}

/*
 * LOOP_CHANGE_FD: a read-only device's backing file replaced by the open
 * file fd of the same size (a live media change, as Linux's installers do
 * with a CD image): -EBADF, -ENXIO unbound, -EINVAL when the device is
 * writable, the file cannot back it or its size differs; the checks in
 * Linux's order.  The cache is written back (a BLKROSET may have let
 * writes in) and forgotten before and after the swap, so no block of the
 * old file survives it.  The old file is returned for the caller to put
 * once loop_lock is dropped (loop_unbind's rule); NULL on error.
 */
static struct file *loop_change_fd(struct loop_device *lo, int fd, long *err)
{
	struct file *f = files_lookup(current()->files, fd), *old;

	*err = !f				   ? -EBADF
	       : lo->state != LO_BOUND		   ? -ENXIO
	       : !(lo->flags & LO_FLAGS_READ_ONLY) ? -EINVAL
						   : loop_validate(lo, f);
	if (!*err && loop_sectors(lo, f) != loop_sectors(lo, lo->backing))
		*err = -EINVAL;
	if (*err) {
		if (f)
			file_put(f);
		return NULL;
	}
	disk_set_capacity(lo->disk, loop_sectors(lo, lo->backing));
	spin_lock(&lo->io_lock);
	old = lo->backing;
	lo->backing = f; /* the lookup's reference becomes the device's */
	spin_unlock(&lo->io_lock);
	disk_set_capacity(lo->disk, loop_sectors(lo, f));
	if (lo->flags & LO_FLAGS_PARTSCAN)
		disk_rescan(lo->disk);
	loop_sysfs_update(lo);
	return old;
}

static void loop_last_close(struct gendisk *d)
{
	struct loop_device *lo = d->priv;
	struct file *backing = NULL;

	mutex_lock(&loop_lock);
	if (lo->state != LO_UNBOUND && (lo->flags & LO_FLAGS_AUTOCLEAR) && !loop_openers(lo))
		backing = loop_unbind(lo);
	mutex_unlock(&loop_lock);
	if (backing)
		file_put(backing);
}

/* Linux's lo_open: a device clearing itself takes no new opener. */
static int loop_open(struct gendisk *d)
{
	struct loop_device *lo = d->priv;
	int err;

	mutex_lock(&loop_lock);
	err = lo->state == LO_RUNDOWN ? -ENXIO : 0;
	mutex_unlock(&loop_lock);
	return err;
}

static void loop_status_out(struct loop_device *lo, struct loop_info64 *info)
{
	struct uapi_stat st;

	memset(info, 0, sizeof(*info));
	inode_stat(lo->backing->inode, &st);
	info->lo_device = st.st_dev;
	info->lo_inode = st.st_ino;
	info->lo_rdevice = st.st_rdev;
	info->lo_offset = lo->offset;
	info->lo_sizelimit = lo->sizelimit;
	info->lo_number = lo->number;
	info->lo_flags = lo->flags;
	memcpy(info->lo_file_name, lo->file_name, LO_NAME_SIZE);
}

_Static_assert(sizeof(struct loop_info) == 168, "x86_64's struct loop_info");

/* Linux's loop_info64_from_old: the old form as the new one (no size
 * limit; the offset a signed 32-bit number, widened). */
static void status_from_old(const struct loop_info *old, struct loop_info64 *info)
{
	memset(info, 0, sizeof(*info));
	info->lo_offset = (uint64_t)(int64_t)old->lo_offset;
	info->lo_flags = (uint32_t)old->lo_flags;
	memcpy(info->lo_file_name, old->lo_name, LO_NAME_SIZE);
}

/* Linux's loop_info64_to_old: -EOVERFLOW when the offset does not fit. */
static long status_to_old(const struct loop_info64 *info, struct loop_info *old)
{
	memset(old, 0, sizeof(*old));
	old->lo_number = (int32_t)info->lo_number;
	old->lo_device = info->lo_device;
	old->lo_inode = info->lo_inode;
	old->lo_rdevice = info->lo_rdevice;
	old->lo_offset = (int32_t)info->lo_offset;
	old->lo_flags = (int32_t)info->lo_flags;
	memcpy(old->lo_name, info->lo_file_name, LO_NAME_SIZE);
	return (uint64_t)(int64_t)old->lo_offset != info->lo_offset ? -EOVERFLOW : 0;
}

#define LOOP_SETTABLE  (LO_FLAGS_AUTOCLEAR | LO_FLAGS_PARTSCAN)
#define LOOP_CLEARABLE LO_FLAGS_AUTOCLEAR
#define LOOP_CONFIGURABLE                                                                          \
	(LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR | LO_FLAGS_PARTSCAN | LO_FLAGS_DIRECT_IO)

/* LOOP_SET_STATUS64: offset, size limit, name, and the settable flags. */
static long loop_set_status(struct loop_device *lo, const struct loop_info64 *info)
{
	uint32_t flags, was = lo->flags;

	if (lo->state != LO_BOUND)
		return -ENXIO;
	flags = (lo->flags & ~LOOP_CLEARABLE) | (info->lo_flags & LOOP_SETTABLE);
	/* The cache's blocks may be of another place in the file now:
	 * disk_set_capacity writes them back and forgets them. */
	lo->offset = info->lo_offset;
	lo->sizelimit = info->lo_sizelimit;
	lo->flags = flags;
	memcpy(lo->file_name, info->lo_file_name, LO_NAME_SIZE - 1);
	lo->file_name[LO_NAME_SIZE - 1] = 0;
	disk_set_capacity(lo->disk, loop_sectors(lo, lo->backing));
	if ((flags & LO_FLAGS_PARTSCAN) && !(was & LO_FLAGS_PARTSCAN))
		loop_partscan(lo);
	loop_sysfs_update(lo);
	return 0;
}

static long loop_configure(struct loop_device *lo, const struct loop_config *cfg, bool dev_writable)
{
	if (lo->state != LO_UNBOUND)
		return -EBUSY;
	if ((cfg->info.lo_flags & ~LOOP_CONFIGURABLE) ||
	    (cfg->block_size && !block_size_ok(cfg->block_size)))
		return -EINVAL;
	return loop_bind(lo, (int)cfg->fd, &cfg->info, cfg->block_size, dev_writable);
}

/* writable: the device was opened for writing (else it binds read-only). */
/* prev: a backing file the request let go, to be put once loop_lock is
 * dropped (loop_unbind's rule). */
static long loop_ioctl_locked(struct loop_device *lo, bool writable, unsigned int cmd,
			      unsigned long arg, struct file **prev)
{
	struct loop_info64 info;
	struct loop_info old;
	struct loop_config cfg;
	long err;

	switch (cmd) {
	case LOOP_SET_FD:
		return loop_bind(lo, (int)arg, NULL, 0, writable);
	case LOOP_CONFIGURE:
		if (copy_from_user(&cfg, (const void *)arg, sizeof(cfg)))
			return -EFAULT;
		return loop_configure(lo, &cfg, writable);
	case LOOP_CLR_FD:
		return loop_clear(lo);
	case LOOP_CHANGE_FD:
		*prev = loop_change_fd(lo, (int)arg, &err);
		return err;
	case LOOP_GET_STATUS64:
		if (!arg)
			return -EINVAL;
		if (lo->state != LO_BOUND)
			return -ENXIO;
		loop_status_out(lo, &info);
		return copy_to_user((void *)arg, &info, sizeof(info)) ? -EFAULT : 0;
	case LOOP_SET_STATUS64:
		if (copy_from_user(&info, (const void *)arg, sizeof(info)))
			return -EFAULT;
		return loop_set_status(lo, &info);
	case LOOP_GET_STATUS:
		if (!arg)
			return -EINVAL;
		if (lo->state != LO_BOUND)
			return -ENXIO;
		loop_status_out(lo, &info);
		if ((err = status_to_old(&info, &old)))
			return err;
		return copy_to_user((void *)arg, &old, sizeof(old)) ? -EFAULT : 0;
	case LOOP_SET_STATUS:
		if (copy_from_user(&old, (const void *)arg, sizeof(old)))
			return -EFAULT;
		status_from_old(&old, &info);
		return loop_set_status(lo, &info);
	case LOOP_SET_CAPACITY:
		if (lo->state != LO_BOUND)
			return -ENXIO;
		disk_set_capacity(lo->disk, loop_sectors(lo, lo->backing));
		return 0;
	case LOOP_SET_BLOCK_SIZE:
		if (lo->state != LO_BOUND)
			return -ENXIO;
		if (!block_size_ok(arg))
			return -EINVAL;
		lo->disk->lbsize = arg;
		disk_set_capacity(lo->disk, loop_sectors(lo, lo->backing));
		return 0;
	}
	return -ENOTTY;
}

static long loop_ioctl(struct block_device *bdev, unsigned int fflags, unsigned int cmd,
		       unsigned long arg)
{
	struct loop_device *lo = bdev->disk->priv;
	unsigned int acc = fflags & O_ACCMODE;
	struct file *old = NULL;
	long ret;

	mutex_lock(&loop_lock);
	ret = loop_ioctl_locked(lo, acc == O_WRONLY || acc == O_RDWR, cmd, arg, &old);
	mutex_unlock(&loop_lock);
	if (old)
		file_put(old);
	return ret;
}

static void loop_release(struct gendisk *d)
{
	kfree(d->priv);
}

const struct disk_ops loop_disk_ops = {
    .submit = loop_submit,
    .release = loop_release,
    .ioctl = loop_ioctl,
    .open = loop_open,
    .last_close = loop_last_close,
};

/* ---- /dev/loop-control (under loop_lock) ---- */

static struct loop_device *loop_find(uint32_t n)
{
	struct loop_device *lo;

	list_for_each_entry(lo, &loops, link) if (lo->number == n) return lo;
	return NULL;
}

/* Makes loopN: its number, or -EEXIST, -ENOMEM. */
static long loop_add(uint32_t n)
{
	struct loop_device *lo;
	struct gendisk *d;
	int err;

	if (loop_find(n))
		return -EEXIST;
	lo = kzalloc(sizeof(*lo));
	d = lo ? disk_alloc() : NULL;
	if (!d) {
		kfree(lo);
		return -ENOMEM;
	}
	lo->number = n;
	lo->disk = d;
	spin_init(&lo->io_lock, "loop_io");
	snprintk(d->name, sizeof(d->name), "loop%u", n);
	d->major = LOOP_MAJOR;
	d->first_minor = n;
	d->minors = 1;	       /* Linux's default max_part=0: partitions are 259:N */
	d->no_partscan = true; /* until LO_FLAGS_PARTSCAN */
	d->ops = &loop_disk_ops;
	d->priv = lo; /* freed by loop_release with the disk */
	if ((err = disk_add(d))) {
		disk_put(d);
		return err;
	}
	list_add_tail(&lo->link, &loops);
	nloops++;
	return n;
}

/* The first free number. */
static long loop_add_any(void)
{
	for (uint32_t n = 0; n < LOOP_MAX; n++)
		if (!loop_find(n))
			return loop_add(n);
	return -ENOSPC;
}

static long loop_remove(uint32_t n)
{
	struct loop_device *lo = loop_find(n);
	struct gendisk *d;

	if (!lo)
		return -ENODEV;
	if (lo->state != LO_UNBOUND || loop_openers(lo))
		return -EBUSY;
	list_del(&lo->link);
	nloops--;
	d = lo->disk;
	disk_del(d);
	disk_put(d); /* the loop device's; lo goes with the disk */
	return 0;
}

static long loop_get_free(void)
{
	struct loop_device *lo;

	list_for_each_entry(lo, &loops, link) if (lo->state == LO_UNBOUND) return lo->number;
	return loop_add_any();
}

static long loop_ctl_ioctl(struct file *f, unsigned long cmd, unsigned long arg)
{
	long n = (long)(int)arg, ret;

	(void)f;
	if (cmd != LOOP_CTL_ADD && cmd != LOOP_CTL_REMOVE && cmd != LOOP_CTL_GET_FREE)
		return -ENOSYS; /* Linux's answer here, not ENOTTY */
	if (cmd != LOOP_CTL_GET_FREE && (n >= LOOP_MAX || (cmd == LOOP_CTL_REMOVE && n < 0)))
		return -EINVAL;
	mutex_lock(&loop_lock);
	if (cmd == LOOP_CTL_ADD)
		ret = n < 0 ? loop_add_any() : loop_add(n);
	else if (cmd == LOOP_CTL_REMOVE)
		ret = loop_remove(n);
	else
		ret = loop_get_free();
	mutex_unlock(&loop_lock);
	return ret;
}

const struct file_ops loop_ctl_ops = {
    .ioctl = loop_ctl_ioctl,
    .release = vfs_release_inode,
};

void loop_init(void)
{
	mutex_init(&loop_lock, "loop");
	mutex_lock(&loop_lock);
	for (uint32_t n = 0; n < LOOP_BOOT_COUNT; n++)
		loop_add(n);
	mutex_unlock(&loop_lock);
}
