/*
 * File space and caching hints: fallocate, fadvise64 and readahead.  The
 * checks are Linux's, in its order (vfs_fallocate, generic_fadvise,
 * ksys_readahead); the ramfs answers as tmpfs: fallocate allocates and
 * punches holes (ramfs_falloc.c) and refuses the other modes with
 * EOPNOTSUPP.  readahead and POSIX_FADV_WILLNEED read a disk file's pages
 * into the cache; on the ramfs, with no backing store, there is nothing to
 * read, and the other hints are accepted and change nothing.
 */
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/pipe/pipe.h"
#include "proc/rlimit.h"
#include "mm/frame.h"
#include "mm/layout.h"
#include "sched/wait.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

/* The modes Linux's VFS accepts before asking the file system: one
 * operation, KEEP_SIZE where it makes sense (PUNCH_HOLE needs it). */
static bool falloc_mode_valid(int mode)
{
	int op = mode & ~FALLOC_FL_KEEP_SIZE, keep = mode & FALLOC_FL_KEEP_SIZE;

	switch (op) {
	case 0:
	case FALLOC_FL_ZERO_RANGE:
	case FALLOC_FL_UNSHARE_RANGE:
		return true;
	case FALLOC_FL_PUNCH_HOLE:
		return keep;
	case FALLOC_FL_COLLAPSE_RANGE:
	case FALLOC_FL_INSERT_RANGE:
	case FALLOC_FL_WRITE_ZEROES:
		return !keep;
	default:
		return false;
	}
}

/* The file-type checks after the access mode: -ESPIPE, -ENODEV, or 0 for
 * a regular file. */
static long falloc_file_type(struct file *f)
{
	uint32_t mode = f->inode ? f->inode->mode : 0;

	if (S_ISFIFO(mode) || pipe_of(f))
		return -ESPIPE;
	if (S_ISDIR(mode))
		return -EISDIR;
	return S_ISREG(mode) ? 0 : -ENODEV;
}

static long do_fallocate(struct file *f, int mode, long off, long len)
{
	long err;

	if (off < 0 || len <= 0)
		return -EINVAL;
	if (!falloc_mode_valid(mode))
		return -EOPNOTSUPP;
	if (!file_can_write(f))
		return -EBADF;
	/* No hole in an append-only file, nothing at all in an immutable one. */
	if (f->inode &&
	    (mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) &&
	    inode_append_only(f->inode))
		return -EPERM;
	if (f->inode && inode_immutable(f->inode))
		return -EPERM;
	if ((err = falloc_file_type(f)))
		return err;
	if ((uint64_t)off + (uint64_t)len > inode_max_bytes(f->inode))
		return -EFBIG; /* wrapping past LONG_MAX included */
	if (mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE))
		return -EOPNOTSUPP; /* tmpfs's answer to zero, collapse, insert... */
	/* Growing the file: RLIMIT_FSIZE, as tmpfs's inode_newsize_ok. */
	if (!(mode & FALLOC_FL_KEEP_SIZE) && (uint64_t)(off + len) > inode_size(f->inode) &&
	    (err = rlimit_fsize_grow((uint64_t)(off + len))))
		return err;
	return inode_fallocate(f->inode, mode & FALLOC_FL_PUNCH_HOLE, mode & FALLOC_FL_KEEP_SIZE,
			       off, len);
}

SYSCALL_DEFINE4(fallocate, int, fd, int, mode, long, off, long, len)
{
	struct file *f = files_lookup(current()->files, fd);
	long err;

	if (!f)
		return -EBADF;
	err = do_fallocate(f, mode, off, len);
	file_put(f);
	return err;
}

/*
 * Reads pages [off, off + len) of ip (len 0: to the end) into the cache,
 * synchronously, at most half the free memory a call (Linux's
 * max_sane_readahead before 4.10; later kernels cut a call to the
 * device's readahead size, which /sys here does not let a user raise)
 * and until a signal comes.  A file whose pages are all in memory (no
 * page_prepare: the ramfs) has nothing to read.
 */
static void read_ahead(struct inode *ip, uint64_t off, uint64_t len)
{
	uint64_t size = inode_size(ip), idx = off / PAGE_SIZE, end, max = frame_free_count() / 2;

	if (!ip->op->page_prepare || off >= size)
		return;
	if (!len || len > size - off)
		len = size - off;
	end = PAGE_ALIGN_UP(off + len) / PAGE_SIZE;
	if (end - idx > max)
		end = idx + max;
	for (; idx < end && !signal_pending(); idx++)
		if (ip->op->page_prepare(ip, idx))
			break; /* a hint: an I/O error is the later read's to report */
}

/* A FIFO or pipe is ESPIPE whatever the advice; a negative length or an
 * unknown advice EINVAL; an O_PATH fd is no file here (EBADF). */
SYSCALL_DEFINE4(fadvise64, int, fd, long, off, long, len, int, advice)
{
	struct file *f = files_lookup(current()->files, fd);
	long err = 0;

	if (!f)
		return -EBADF;
	if (f->flags & O_PATH)
		err = -EBADF;
	else if ((f->inode && S_ISFIFO(f->inode->mode)) || pipe_of(f))
		err = -ESPIPE;
	else if (len < 0 || advice < POSIX_FADV_NORMAL || advice > POSIX_FADV_NOREUSE)
		err = -EINVAL;
	else if (advice == POSIX_FADV_WILLNEED && f->inode && inode_is_reg(f->inode) && off >= 0)
		read_ahead(f->inode, (uint64_t)off, (uint64_t)len);
	file_put(f);
	return err;
}

/* Only files that can be read ahead: readable (EBADF), regular (EINVAL). */
SYSCALL_DEFINE3(readahead, int, fd, long, off, size_t, count)
{
	struct file *f = files_lookup(current()->files, fd);
	long err = 0;

	if (!f)
		return -EBADF;
	if (!file_can_read(f))
		err = -EBADF;
	else if (!f->inode || !inode_is_reg(f->inode))
		err = -EINVAL;
	else if (off >= 0 && count) /* Linux reads nothing for a negative offset */
		read_ahead(f->inode, (uint64_t)off, count);
	file_put(f);
	return err;
}
