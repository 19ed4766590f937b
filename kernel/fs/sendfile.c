/*
 * sendfile: copies from a file to any writable file (a file, a pipe, a
 * socket) inside the kernel, a chunk at a time through a kernel buffer:
 * the input's read_iter fills it, the output's write_iter drains it, both
 * through the one I/O iterator (lib/iov_iter.h).  Linux's rules: the input
 * must be a regular file or a device, or a socket when the output is a
 * pipe (pipes, directories, other sockets: EINVAL); the output not
 * O_APPEND (EINVAL); with an offset the input's position is left alone.
 */
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/pipe/pipe.h"
#include "lib/iov_iter.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "proc/task.h"
#include "sched/sched.h"
#include "sys/syscall.h"
#include <uapi/errno.h>

#define SENDFILE_CHUNK 8192

/* What sendfile can read from into out: a regular file or a character
 * device (Linux: anything seekable), or a socket into a pipe (Linux
 * splices it). */
static bool sendfile_source(struct file *in, struct file *out)
{
	uint32_t mode = in->inode ? in->inode->mode : 0;

	if (!in->ops->read_iter)
		return false;
	return S_ISREG(mode) || S_ISCHR(mode) || (sock_of_file(in) && pipe_of(out));
}

long file_copy_range(struct file *in, uint64_t *pos, struct file *out, uint64_t *out_pos,
		     size_t count)
{
	char *buf = kmalloc(SENDFILE_CHUNK);
	size_t done = 0;
	long n = 0;

	if (!buf)
		return -ENOMEM;
	while (done < count) {
		struct iovec v;
		struct iov_iter it;
		uint64_t at = *pos;
		long w;

		iov_iter_kernel(&it, &v, buf,
				count - done < SENDFILE_CHUNK ? count - done : SENDFILE_CHUNK);
		if ((n = file_rw_iter(in, &it, &at, false)) <= 0)
			break;
		iov_iter_kernel(&it, &v, buf, (size_t)n);
		if ((w = file_rw_iter(out, &it, out_pos, true)) <= 0) {
			n = w;
			break;
		}
		*pos += (uint64_t)w;
		if (out_pos)
			*out_pos += (uint64_t)w;
		done += (size_t)w;
		/* A socket gives what it has, once, as a read would. */
		if (w < n || !in->inode || signal_pending())
			break;
		if (this_cpu()->need_resched) /* the kernel is not preempted */
			sched_yield();
	}
	kfree(buf);
	return done ? (long)done : n;
}

/* How far sendfile may reach: the smaller largest size of the two
 * files' instances (Linux's do_sendfile: the smaller s_maxbytes). */
static uint64_t sendfile_max(const struct file *in, const struct file *out)
{
	uint64_t a = inode_max_bytes(in->inode), b = inode_max_bytes(out->inode);

	return a < b ? a : b;
}

/* The checks in Linux's order, then the copy from in at *pos (NULL: at
 * its position, advanced). */
static long do_sendfile(int out_fd, int in_fd, long *pos, size_t count)
{
	struct file *in = files_lookup(current()->files, in_fd), *out = NULL;
	uint64_t at = 0, max = 0;
	long n;

	if (!in || !file_can_read(in))
		n = -EBADF;
	else if (pos && !in->inode)
		n = -ESPIPE; /* pipes and sockets have no positions */
	else if (pos && (*pos < 0 || (int64_t)((uint64_t)*pos + count) < 0))
		n = -EINVAL; /* negative, or the end wraps (rw_verify_area) */
	else if (!(out = files_lookup(current()->files, out_fd)) || !file_can_write(out))
		n = -EBADF;
	else if ((at = pos ? (uint64_t)*pos : file_pos_get(in)) >= (max = sendfile_max(in, out)))
		n = -EOVERFLOW;
	else if (!sendfile_source(in, out) || !out->ops->write_iter || (out->flags & O_APPEND))
		n = -EINVAL;
	else
		n = 0;
	if (!n) {
		if (count > max - at)
			count = max - at;
		n = file_copy_range(in, &at, out, NULL,
				    count < MAX_RW_COUNT ? count : MAX_RW_COUNT);
		if (pos) {
			*pos = (long)at;
		} else if (n > 0) {
			file_pos_set(in, at);
		}
	}
	if (out)
		file_put(out);
	if (in)
		file_put(in);
	return n;
}

SYSCALL_DEFINE4(sendfile, int, out_fd, int, in_fd, long *, uoffset, size_t, count)
{
	long off, n;

	if (!uoffset)
		return do_sendfile(out_fd, in_fd, NULL, count);
	if (copy_from_user(&off, uoffset, sizeof(off)))
		return -EFAULT;
	n = do_sendfile(out_fd, in_fd, &off, count);
	/* Written back whatever happened, as Linux. */
	if (copy_to_user(uoffset, &off, sizeof(off)))
		return -EFAULT;
	return n;
}
