/*
 * splice, tee, vmsplice and copy_file_range: argument checks in Linux's
 * order (fs/pipe/splice.c, fs/read_write.c there), then the pipe's own
 * transfers (pipe.h: ring to file, file to ring, ring to ring, iovec to
 * ring) or, between two files, sendfile's copy (file_copy_range).  Every
 * byte moves through the one I/O iterator.  SPLICE_F_MOVE, SPLICE_F_MORE
 * and SPLICE_F_GIFT are accepted hints: the data is copied.
 */
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/pipe/pipe.h"
#include "fs/vfs.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

/* Files with positions that pread/pwrite may use (Linux's FMODE_PREAD). */
static bool positioned(struct file *f)
{
	return f->inode && inode_is_reg(f->inode);
}

/* What Linux splices to and from besides pipes (files with splice_read
 * and splice_write): regular files, character devices, sockets; not
 * directories, nor eventfd, timerfd, signalfd or epoll files (EINVAL). */
static bool spliceable(struct file *f)
{
	uint32_t mode = f->inode ? f->inode->mode : 0;

	return S_ISREG(mode) || S_ISCHR(mode) || sock_of_file(f);
}

/* The pipe end's non-blocking mode: the call's flag or its O_NONBLOCK. */
static bool splice_nonblock(struct file *pf, unsigned int flags)
{
	return (flags & SPLICE_F_NONBLOCK) || (pf->flags & O_NONBLOCK);
}

/* One side's offset, *off (NULL: the file's position), checked against a
 * file that has none: -EINVAL, as Linux's do_splice; negative -EINVAL. */
static long splice_offset(struct file *f, const long *off)
{
	if (!off)
		return 0;
	return !positioned(f) || *off < 0 ? -EINVAL : 0;
}

/*
 * After n bytes moved at pos on f's side: its offset, or its position,
 * moves past them.  The position is read and stored without f_pos_lock,
 * as Linux's splice does (and sendfile here): the pipe mutex is held
 * meanwhile, and file_pos is the outer lock (docs/smp.md).
 */
static void splice_moved(struct file *f, long *off, uint64_t pos, long n)
{
	if (n <= 0)
		return;
	if (off)
		*off = (long)(pos + n);
	else if (positioned(f))
		file_pos_set(f, pos + n);
}

/* do_splice: exactly one side, or both, a pipe. */
static long do_splice(struct file *in, long *off_in, struct file *out, long *off_out, size_t len,
		      unsigned int flags)
{
	struct pipe *ipipe = pipe_of(in), *opipe = pipe_of(out);
	uint64_t pos;
	long n;

	if (!file_can_read(in) || !file_can_write(out))
		return -EBADF;
	if (ipipe && opipe) {
		if (off_in || off_out)
			return -ESPIPE;
		if (ipipe == opipe)
			return -EINVAL;
		return pipe_splice_pipe(
		    in, out, len, splice_nonblock(in, flags) || splice_nonblock(out, flags), false);
	}
	if (ipipe) {
		if ((n = splice_offset(out, off_out)) || (out->flags & O_APPEND) ||
		    !spliceable(out) || !out->ops->write_iter)
			return n ? n : -EINVAL;
		pos = off_out ? (uint64_t)*off_out : file_pos_get(out);
		n = pipe_splice_out(in, out, &pos, len, splice_nonblock(in, flags));
		splice_moved(out, off_out, pos, n);
		return n;
	}
	if (!opipe)
		return -EINVAL;
	if ((n = splice_offset(in, off_in)) || !spliceable(in) || !in->ops->read_iter)
		return n ? n : -EINVAL;
	pos = off_in ? (uint64_t)*off_in : file_pos_get(in);
	n = pipe_splice_in(out, in, &pos, len, splice_nonblock(out, flags));
	splice_moved(in, off_in, pos, n);
	return n;
}

/* Copies a user offset in (NULL stays NULL): 0 or -EFAULT. */
static long offset_in(const long *uoff, long *off, long **p)
{
	*p = uoff ? off : NULL;
	return uoff && copy_from_user(off, uoff, sizeof(*off)) ? -EFAULT : 0;
}

/* An offset on a pipe side (one given: off_in, off_out): -ESPIPE, as
 * Linux's __do_splice, before anything else about them. */
static long pipe_offset(struct file *in, bool off_in, struct file *out, bool off_out)
{
	return (pipe_of(in) && off_in) || (pipe_of(out) && off_out) ? -ESPIPE : 0;
}

long splice_file(struct file *in, long *off_in, struct file *out, long *off_out, size_t len,
		 unsigned int flags)
{
	if (pipe_offset(in, off_in, out, off_out))
		return -ESPIPE;
	return do_splice(in, off_in, out, off_out, len < MAX_RW_COUNT ? len : MAX_RW_COUNT, flags);
}

/* The offsets are read (EFAULT) only after pipe_offset's check, and
 * written back only after success. */
static long splice_files(struct file *in, long *uoff_in, struct file *out, long *uoff_out,
			 size_t len, unsigned int flags)
{
	long off_in, off_out, *pin, *pout, n;

	if ((n = pipe_offset(in, uoff_in, out, uoff_out)))
		return n;
	if ((n = offset_in(uoff_out, &off_out, &pout)) || (n = offset_in(uoff_in, &off_in, &pin)))
		return n;
	n = splice_file(in, pin, out, pout, len, flags);
	if (n >= 0 && ((pout && copy_to_user(uoff_out, pout, sizeof(*pout))) ||
		       (pin && copy_to_user(uoff_in, pin, sizeof(*pin)))))
		return -EFAULT;
	return n;
}

/* Both fds, or -EBADF: *in and *out referenced for the caller. */
static long two_files(int fd_in, int fd_out, struct file **in, struct file **out)
{
	*in = files_lookup(current()->files, fd_in);
	*out = *in ? files_lookup(current()->files, fd_out) : NULL;
	if (*out)
		return 0;
	if (*in)
		file_put(*in);
	return -EBADF;
}

static void put_two(struct file *in, struct file *out)
{
	file_put(in);
	file_put(out);
}

/* A length of 0 is 0 before anything is checked, as Linux. */
SYSCALL_DEFINE6(splice, int, fd_in, long *, uoff_in, int, fd_out, long *, uoff_out, size_t, len,
		unsigned int, flags)
{
	struct file *in, *out;
	long n;

	if (!len)
		return 0;
	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	if ((n = two_files(fd_in, fd_out, &in, &out)))
		return n;
	n = splice_files(in, uoff_in, out, uoff_out, len, flags);
	put_two(in, out);
	return n;
}

long tee_file(struct file *in, struct file *out, size_t len, unsigned int flags)
{
	if (!file_can_read(in) || !file_can_write(out))
		return -EBADF;
	if (!pipe_of(in) || !pipe_of(out) || pipe_of(in) == pipe_of(out))
		return -EINVAL;
	return pipe_splice_pipe(in, out, len < MAX_RW_COUNT ? len : MAX_RW_COUNT,
				splice_nonblock(in, flags) || splice_nonblock(out, flags), true);
}

/* tee checks its flags before the length. */
SYSCALL_DEFINE4(tee, int, fd_in, int, fd_out, size_t, len, unsigned int, flags)
{
	struct file *in, *out;
	long n;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	if (!len)
		return 0;
	if ((n = two_files(fd_in, fd_out, &in, &out)))
		return n;
	n = tee_file(in, out, len, flags);
	put_two(in, out);
	return n;
}

/*
 * vmsplice: the user's segments into a pipe's write end, or out of its
 * read end, as writev and readv would (a pipe end open both ways takes
 * them in).  Not a pipe, or neither way open: EBADF.
 */
SYSCALL_DEFINE4(vmsplice, int, fd, const struct iovec *, uvec, unsigned long, nr, unsigned int,
		flags)
{
	struct iovec fast[UIO_FASTIOV], *iov = fast;
	struct iov_iter it;
	struct file *f;
	long n;

	if (flags & ~SPLICE_F_ALL)
		return -EINVAL;
	if (!(f = files_lookup(current()->files, fd)))
		return -EBADF;
	if ((!file_can_write(f) && !file_can_read(f)) || !pipe_of(f)) {
		n = -EBADF;
	} else {
		if (!(n = iovec_import(uvec, nr, &iov, &it)) && iov_iter_count(&it))
			n = pipe_transfer(f, &it, file_can_write(f), splice_nonblock(f, flags));
		kfree(iov); /* NULL, or what iovec_import allocated */
	}
	file_put(f);
	return n;
}

/*
 * generic_file_rw_checks and generic_copy_file_checks: regular ramfs
 * files of one instance (EISDIR, EINVAL, EXDEV: tmpfs has no
 * copy_file_range of its own, so Linux copies within one super block), open the right ways
 * (EBADF, O_APPEND too), offsets that do not wrap (EOVERFLOW), the
 * output within the largest file (EFBIG); the copy shortened to the
 * input's end; overlapping ranges of one file EINVAL.
 */
static long copy_checks(struct file *in, uint64_t pos_in, struct file *out, uint64_t pos_out,
			size_t *len)
{
	uint64_t size;

	if ((in->inode && inode_is_dir(in->inode)) || (out->inode && inode_is_dir(out->inode)))
		return -EISDIR;
	if (!positioned(in) || !positioned(out))
		return -EINVAL;
	if (!file_can_read(in) || !file_can_write(out) || (out->flags & O_APPEND))
		return -EBADF;
	if (!vfs_is_ramfs_file(in) || !vfs_is_ramfs_file(out) || in->inode->sb != out->inode->sb)
		return -EXDEV; /* /proc's files, say, or another tmpfs */
	if (pos_in + *len < pos_in || pos_out + *len < pos_out)
		return -EOVERFLOW;
	size = inode_size(in->inode);
	*len = pos_in >= size ? 0 : *len < size - pos_in ? *len : size - pos_in;
	if (pos_out >= inode_max_bytes(out->inode) && *len)
		return -EFBIG;
	if (*len > inode_max_bytes(out->inode) - pos_out)
		*len = inode_max_bytes(out->inode) - pos_out;
	if (in->inode == out->inode && pos_out + *len > pos_in && pos_out < pos_in + *len)
		return -EINVAL;
	return 0;
}

/* The copy itself: at the offsets, or the files' positions (advanced). */
static long do_copy_range(struct file *in, long *off_in, struct file *out, long *off_out,
			  size_t len)
{
	uint64_t pos_in = off_in ? (uint64_t)*off_in : file_pos_get(in);
	uint64_t pos_out = off_out ? (uint64_t)*off_out : file_pos_get(out);
	long n = copy_checks(in, pos_in, out, pos_out, &len);

	if (n || !len)
		return n;
	n = file_copy_range(in, &pos_in, out, &pos_out, len < MAX_RW_COUNT ? len : MAX_RW_COUNT);
	if (n <= 0)
		return n;
	if (off_in)
		*off_in = (long)pos_in;
	else
		file_pos_set(in, pos_in);
	if (off_out)
		*off_out = (long)pos_out;
	else
		file_pos_set(out, pos_out);
	return n;
}

/* Linux 5.19+: within one file system only (EXDEV otherwise); flags 0. */
SYSCALL_DEFINE6(copy_file_range, int, fd_in, long *, uoff_in, int, fd_out, long *, uoff_out, size_t,
		len, unsigned int, flags)
{
	long off_in, off_out, *pin, *pout, n;
	struct file *in, *out;

	if (flags)
		return -EINVAL;
	if ((n = two_files(fd_in, fd_out, &in, &out)))
		return n;
	if (!(n = offset_in(uoff_in, &off_in, &pin)) && !(n = offset_in(uoff_out, &off_out, &pout)))
		n = do_copy_range(in, pin, out, pout, len);
	if (n > 0 && ((pin && copy_to_user(uoff_in, pin, sizeof(*pin))) ||
		      (pout && copy_to_user(uoff_out, pout, sizeof(*pout)))))
		n = -EFAULT;
	put_two(in, out);
	return n;
}
