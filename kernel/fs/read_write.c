/*
 * Data-transfer system calls: read and write, their positioned and vectored
 * forms, and lseek.  Each checks its arguments, builds one I/O iterator
 * (lib/iov_iter.h) over the caller's buffers and calls the file's
 * read_iter or write_iter once, so a vector reaches the file whole.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/notify/fsnotify.h"
#include "fs/inode.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/inotify.h>
#include <uapi/uio.h>

/* preadv2/pwritev2 flags: HIPRI, DSYNC and SYNC taken as no-ops (as
 * O_SYNC and O_DSYNC: a write is in the page cache, whose writeback and
 * fsync are the disk's only durability), NOWAIT and APPEND done (rw_flags
 * below).  Others: EOPNOTSUPP. */
#define RWF_KNOWN (RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND)

/* Regular files and directories have positions; devices, pipes, sockets do not. */
static bool seekable(struct file *f)
{
	return f->inode && (inode_is_reg(f->inode) || inode_is_dir(f->inode) || f->ops->seekable ||
			    f->ops->fixed_size);
}

/* What every transfer checks first: -EBADF (access mode), -EINVAL (no such operation). */
static long rw_check(struct file *f, bool write)
{
	if (write ? !file_can_write(f) : !file_can_read(f))
		return -EBADF;
	if (write ? !f->ops->write_iter : !f->ops->read_iter)
		return -EINVAL;
	return 0;
}

bool file_pos_lock(struct file *f)
{
	if (!seekable(f) || file_refcount(f) < 2)
		return false;
	mutex_lock(&f->pos_lock);
	return true;
}

void file_pos_unlock(struct file *f, bool locked)
{
	if (locked)
		mutex_unlock(&f->pos_lock);
}

/* A transfer that reached the file counts in the caller's I/O (Linux's
 * add_rchar and inc_syscr of vfs_read, and their writing twins). */
static void io_account(bool write, long n)
{
	struct task_io *io = task_io_current();

	task_io_add(write ? &io->syscw : &io->syscr, 1);
	if (n > 0)
		task_io_add(write ? &io->wchar : &io->rchar, (uint64_t)n);
}

long file_rw_iter(struct file *f, struct iov_iter *it, uint64_t *at, bool write)
{
	bool locked = false;
	uint64_t pos;
	long n;

	if (at) {
		pos = *at;
	} else {
		locked = file_pos_lock(f);
		pos = file_pos_get(f);
	}
	/* A transfer whose end would pass the largest offset is EINVAL
	 * before the file sees it (Linux's rw_verify_area). */
	if (seekable(f) && (int64_t)(pos + iov_iter_count(it)) < 0) {
		file_pos_unlock(f, locked);
		return -EINVAL;
	}
	n = write ? f->ops->write_iter(f, it, &pos) : f->ops->read_iter(f, it, &pos);
	if (!at && n > 0)
		file_pos_set(f, pos);
	file_pos_unlock(f, locked);
	io_account(write, n);
	if (n > 0)
		fsnotify_file(f, write ? IN_MODIFY : IN_ACCESS);
	return n;
}

/*
 * A transfer with preadv2's flags, the one way every call that takes
 * them goes: RWF_NOWAIT makes a file that can wait answer EAGAIN instead
 * (file_nonblock, as io_uring's attempts), RWF_APPEND a regular file's
 * write go to its end (the position given, if any, untouched).
 */
static long file_rw_flags(struct file *f, struct iov_iter *it, uint64_t *at, int rwf, bool write)
{
	bool *nowait = &task_sched(current())->nowait, was = *nowait;
	long n;

	if (rwf & ~RWF_KNOWN)
		return -EOPNOTSUPP;
	if (!rwf)
		return file_rw_iter(f, it, at, write);
	it->append = write && (rwf & RWF_APPEND);
	*nowait = was || (rwf & RWF_NOWAIT);
	n = file_rw_iter(f, it, at, write);
	*nowait = was;
	return n;
}

/* read, write, pread64, pwrite64 (rwf 0), and io_uring's READ and WRITE:
 * one user buffer, shortened to MAX_RW_COUNT. */
static long file_rw(struct file *f, void *ubuf, size_t len, uint64_t *at, int rwf, bool write)
{
	struct iovec v = {ubuf, len < MAX_RW_COUNT ? len : MAX_RW_COUNT};
	struct iov_iter it;
	long err = rw_check(f, write);

	if (err)
		return err;
	if (!user_range_ok((uint64_t)ubuf, len))
		return -EFAULT;
	iov_iter_init(&it, &v, 1, v.iov_len);
	return file_rw_flags(f, &it, at, rwf, write);
}

/*
 * The vectored calls.  The vector is checked after the access mode (as
 * Linux); an empty one (total 0) returns 0 without reaching the file, so
 * a writev of nothing sends no empty datagram.  rwf: preadv2's flags.
 */
static long file_rwv(struct file *f, const struct iovec *uvec, unsigned long nr, uint64_t *at,
		     int rwf, bool write)
{
	struct iovec fast[UIO_FASTIOV], *iov = fast;
	struct iov_iter it;
	long n = rw_check(f, write);

	if (n)
		return n;
	n = iovec_import(uvec, nr, &iov, &it);
	if (!n && iov_iter_count(&it))
		n = file_rw_flags(f, &it, at, rwf, write);
	kfree(iov);
	return n;
}

/*
 * The file at fd for a transfer at *off (NULL: at the file position), with
 * a reference if *put says so (files_lookup_light).  -EINVAL for a negative
 * offset, even on a bad fd (as Linux); -EBADF; -ESPIPE for an offset on a
 * file without positions.
 */
static struct file *rw_lookup(int fd, const long *off, bool *put, long *err)
{
	struct file *f = NULL;

	*put = false;
	*err = off && *off < 0 ? -EINVAL : 0;
	if (!*err) {
		f = files_lookup_light(current()->files, fd, put);
		*err = !f ? -EBADF : off && !seekable(f) ? -ESPIPE : 0;
	}
	if (f && *err) {
		if (*put)
			file_put(f);
		f = NULL;
	}
	return f;
}

static long fd_rw(int fd, void *ubuf, size_t len, const long *off, bool write)
{
	long n;
	bool put;
	struct file *f = rw_lookup(fd, off, &put, &n);
	uint64_t pos = off ? *off : 0;

	if (!f)
		return n;
	n = file_rw(f, ubuf, len, off ? &pos : NULL, 0, write);
	if (put)
		file_put(f);
	return n;
}

static long fd_rwv(int fd, const struct iovec *uvec, unsigned long nr, const long *off, int rwf,
		   bool write)
{
	long n;
	bool put;
	struct file *f = rw_lookup(fd, off, &put, &n);
	uint64_t pos = off ? *off : 0;

	if (!f)
		return n;
	n = file_rwv(f, uvec, nr, off ? &pos : NULL, rwf, write);
	if (put)
		file_put(f);
	return n;
}

SYSCALL_DEFINE3(read, int, fd, void *, buf, size_t, count)
{
	return fd_rw(fd, buf, count, NULL, false);
}

SYSCALL_DEFINE3(write, int, fd, const void *, buf, size_t, count)
{
	return fd_rw(fd, (void *)buf, count, NULL, true);
}

SYSCALL_DEFINE4(pread64, int, fd, void *, buf, size_t, count, long, off)
{
	return fd_rw(fd, buf, count, &off, false);
}

SYSCALL_DEFINE4(pwrite64, int, fd, const void *, buf, size_t, count, long, off)
{
	return fd_rw(fd, (void *)buf, count, &off, true);
}

long fd_rw_flags(int fd, void *ubuf, size_t len, struct iov_iter *vec, long off, int rwf,
		 bool write)
{
	long n;
	bool put;
	struct file *f = rw_lookup(fd, NULL, &put, &n);
	uint64_t pos = (uint64_t)off, *at;

	if (!f)
		return n;
	at = off == -1 || !seekable(f) ? NULL : &pos;
	if (at && off < -1)
		n = -EINVAL;
	else if (vec)
		n = rw_check(f, write) ?: iov_iter_count(vec) ? file_rw_flags(f, vec, at, rwf, write) : 0;
	else
		n = file_rw(f, ubuf, len, at, rwf, write);
	if (put)
		file_put(f);
	return n;
}

SYSCALL_DEFINE3(readv, int, fd, const struct iovec *, vec, unsigned long, vlen)
{
	return fd_rwv(fd, vec, vlen, NULL, 0, false);
}

SYSCALL_DEFINE3(writev, int, fd, const struct iovec *, vec, unsigned long, vlen)
{
	return fd_rwv(fd, vec, vlen, NULL, 0, true);
}

/* The offset comes in two registers, low and high; on x86_64 the low one
 * holds all 64 bits and the high one is ignored (as Linux). */
SYSCALL_DEFINE5(preadv, int, fd, const struct iovec *, vec, unsigned long, vlen, long, pos_l,
		unsigned long, pos_h)
{
	(void)pos_h;
	return fd_rwv(fd, vec, vlen, &pos_l, 0, false);
}

SYSCALL_DEFINE5(pwritev, int, fd, const struct iovec *, vec, unsigned long, vlen, long, pos_l,
		unsigned long, pos_h)
{
	(void)pos_h;
	return fd_rwv(fd, vec, vlen, &pos_l, 0, true);
}

/* Offset -1: at the file position, as readv/writev. */
SYSCALL_DEFINE6(preadv2, int, fd, const struct iovec *, vec, unsigned long, vlen, long, pos_l,
		unsigned long, pos_h, int, flags)
{
	(void)pos_h;
	return fd_rwv(fd, vec, vlen, pos_l == -1 ? NULL : &pos_l, flags, false);
}

SYSCALL_DEFINE6(pwritev2, int, fd, const struct iovec *, vec, unsigned long, vlen, long, pos_l,
		unsigned long, pos_h, int, flags)
{
	(void)pos_h;
	return fd_rwv(fd, vec, vlen, pos_l == -1 ? NULL : &pos_l, flags, true);
}

/* A disk's lseek (Linux's fixed_size_llseek): SEEK_END from its size,
 * all data (SEEK_HOLE is the end), nothing past the end. */
static long seek_fixed(struct file *f, long off, unsigned int whence)
{
	long size = (long)f->ops->fixed_size(f), pos;

	if (whence == SEEK_DATA || whence == SEEK_HOLE) {
		if (off < 0 || off >= size)
			return -ENXIO;
		return whence == SEEK_HOLE ? size : off;
	}
	if (whence == SEEK_SET)
		pos = off;
	else if (whence == SEEK_CUR)
		pos = (long)file_pos_get(f) + off;
	else if (whence == SEEK_END)
		pos = size + off;
	else
		return -EINVAL;
	return pos < 0 || pos > size ? -EINVAL : pos;
}

/* Under file_pos_lock: the new position for lseek, or -EINVAL, -ENXIO. */
static long seek_target(struct file *f, long off, unsigned int whence)
{
	long base;

	if (f->ops->fixed_size)
		return seek_fixed(f, off, whence);
	if ((whence == SEEK_DATA || whence == SEEK_HOLE) && inode_is_reg(f->inode))
		return inode_seek_hole_data(f->inode, off, whence == SEEK_HOLE);
	if (whence == SEEK_SET)
		base = 0;
	else if (whence == SEEK_CUR)
		base = (long)file_pos_get(f);
	else if (whence == SEEK_END && inode_is_reg(f->inode))
		base = inode_size(f->inode);
	else
		return -EINVAL;
	if (__builtin_add_overflow(base, off, &base) || base < 0)
		return -EINVAL;
	return base;
}

SYSCALL_DEFINE3(lseek, int, fd, long, off, unsigned int, whence)
{
	bool put, locked;
	struct file *f = files_lookup_light(current()->files, fd, &put);
	long pos = -ESPIPE;

	if (!f)
		return -EBADF;
	if (seekable(f)) {
		locked = file_pos_lock(f);
		pos = seek_target(f, off, whence);
		if (pos >= 0)
			file_pos_set(f, (uint64_t)pos);
		file_pos_unlock(f, locked);
	}
	if (put)
		file_put(f);
	return pos;
}
