/*
 * The sync calls: fsync, fdatasync, sync, syncfs, sync_file_range.  A
 * disk file system's files write their dirty pages (mm/filemap.h) and
 * inodes back through their fsync operation; the disks' cached blocks
 * (block/bcache.h) are written by sync, syncfs and a disk's fsync.  The
 * ramfs's pages are the data itself: nothing to write (docs/vfs.md).
 * The rest is Linux's argument checking, in Linux's order.
 */
#include "block/bcache.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "mm/filemap.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

#define SYNC_FILE_RANGE_FLAGS                                                                      \
	(SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)

/* Whether f has data a sync could write: a ramfs file or directory, a
 * disk (Linux's files with an fsync operation); pipes, sockets, character
 * devices and the anonymous files (eventfd, epoll...) have none. */
static bool file_syncable(const struct file *f)
{
	return f->inode && (inode_is_reg(f->inode) || inode_is_dir(f->inode) || f->ops->fsync);
}

/* fsync and fdatasync: EBADF, then EINVAL for a file that cannot be
 * synced; a disk file's pages, inode and device cache are written
 * (inode_fsync), a disk writes its cached blocks back; -EIO when a
 * write-back failed since the last report. */
static long do_fsync(int fd, unsigned int how)
{
	struct file *f = files_lookup(current()->files, fd);
	long ret;

	if (!f)
		return -EBADF;
	if (!file_syncable(f))
		ret = -EINVAL;
	else
		ret = f->ops->fsync ? f->ops->fsync(f) : inode_fsync(f->inode, 0, UINT64_MAX, how);
	file_put(f);
	return ret;
}

SYSCALL_DEFINE1(fsync, int, fd)
{
	return do_fsync(fd, 0);
}

SYSCALL_DEFINE1(fdatasync, int, fd)
{
	return do_fsync(fd, FSYNC_DATASYNC);
}

/* Every file's dirty pages (mm/filemap.h), then every disk's cached
 * blocks, each disk flushed; sync(2) reports nothing. */
SYSCALL_DEFINE0(sync)
{
	filemap_sync_sb(NULL);
	bcache_sync(NULL);
	return 0;
}

/*
 * Any open fd names a file system (pipes and sockets their pseudo ones):
 * its files' dirty pages and, for one on a disk, the disk's cached blocks
 * and a flush.  -EIO when a write failed (Linux reports write-back errors
 * since 5.8); the ramfs and the pseudo file systems have nothing to write.
 */
SYSCALL_DEFINE1(syncfs, int, fd)
{
	struct file *f = files_lookup(current()->files, fd);
	struct super_block *sb;
	int err = 0;

	if (!f)
		return -EBADF;
	if ((sb = f->inode ? f->inode->sb : NULL) && sb->op->sync_fs) {
		err = sb->op->sync_fs(sb);
	} else if (sb) {
		err = filemap_sync_sb(sb);
		if (sb->bdev)
			err = bcache_sync(sb->bdev) ?: err;
	}
	file_put(f);
	return err ? -EIO : 0;
}

/*
 * Linux's order: EBADF, then EINVAL for unknown flags, a negative offset
 * or length, or an end past the largest offset, then ESPIPE for anything but a
 * regular file or directory (nbytes 0 means "to the end of the file").
 * SYNC_FILE_RANGE_WRITE writes the range's dirty pages (synchronously, so
 * the WAIT flags have nothing left to wait for); no inode, no flush.
 */
SYSCALL_DEFINE4(sync_file_range, int, fd, long, offset, long, nbytes, unsigned int, flags)
{
	struct file *f = files_lookup(current()->files, fd);
	long ret = 0;

	if (!f)
		return -EBADF;
	if ((flags & ~SYNC_FILE_RANGE_FLAGS) || offset < 0 || nbytes < 0 ||
	    offset > INT64_MAX - nbytes)
		ret = -EINVAL;
	else if (!file_syncable(f))
		ret = -ESPIPE;
	else if ((flags & SYNC_FILE_RANGE_WRITE) && inode_is_reg(f->inode))
		ret = inode_fsync(f->inode, offset,
				  nbytes ? (uint64_t)offset + nbytes - 1 : UINT64_MAX,
				  FSYNC_DATA_RANGE);
	file_put(f);
	return ret;
}
