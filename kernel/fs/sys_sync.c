/*
 * The sync calls: fsync, fdatasync, sync, syncfs, sync_file_range.  The
 * only file system is the ramfs, whose pages are the data itself, so it
 * has nothing to write back (docs/vfs.md); the disks' cached blocks
 * (block/bcache.h) are written by sync, syncfs and a disk's fsync.  The
 * rest is Linux's argument checking, in Linux's order.
 */
#include "block/bcache.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
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
 * synced; a disk writes its cached blocks back (EIO). */
static long do_fsync(int fd)
{
	struct file *f = files_lookup(current()->files, fd);
	long ret;

	if (!f)
		return -EBADF;
	ret = !file_syncable(f) ? -EINVAL : f->ops->fsync ? f->ops->fsync(f) : 0;
	file_put(f);
	return ret;
}

SYSCALL_DEFINE1(fsync, int, fd)
{
	return do_fsync(fd);
}

SYSCALL_DEFINE1(fdatasync, int, fd)
{
	return do_fsync(fd);
}

/* Every disk's cached blocks (block/bcache.c); sync(2) reports nothing. */
SYSCALL_DEFINE0(sync)
{
	bcache_sync(NULL);
	return 0;
}

/*
 * Any open fd names a file system (pipes and sockets their pseudo ones).
 * The ramfs has nothing to write; until a disk file system exists, syncfs
 * writes back every disk's cached blocks, as sync does (a superset of
 * what Linux's syncfs writes).
 */
SYSCALL_DEFINE1(syncfs, int, fd)
{
	struct file *f = files_lookup(current()->files, fd);

	if (!f)
		return -EBADF;
	file_put(f);
	bcache_sync(NULL);
	return 0;
}

/*
 * Linux's order: EBADF, then EINVAL for unknown flags, a negative offset
 * or length, or an end past the largest offset, then ESPIPE for anything but a
 * regular file or directory (nbytes 0 means "to the end of the file").
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
	file_put(f);
	return ret;
}
