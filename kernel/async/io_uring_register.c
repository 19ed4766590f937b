/*
 * io_uring_register: registered buffers (the _FIXED ops' ranges), the
 * eventfd told of every CQE, the probe of the opcodes, and the argument
 * checks of the registered files' ops (their table: io_uring_files.c).
 * Everything here changes under the ring's submit_lock, so a submission
 * sees a table whole.  docs/async.md.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_rsrc.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/uio.h>

#define BUF_MAX_LEN (1UL << 30) /* one registered buffer at most (Linux's SZ_1G) */

static int unregister_buffers(struct io_ring *ring)
{
	if (!ring->bufs)
		return -ENXIO;
	kfree(ring->bufs);
	ring->bufs = NULL;
	ring->nbufs = 0;
	return 0;
}

/* Linux's checks: EBUSY if some are, EINVAL for none or too many or a
 * too long one, EFAULT for an array or a buffer it cannot reach. */
static int register_buffers(struct io_ring *ring, const struct iovec *uvec, uint32_t nr)
{
	struct io_buf *bufs;
	struct iovec v;

	if (ring->bufs)
		return -EBUSY;
	if (!nr || nr > IORING_MAX_REG_BUFFERS)
		return -EINVAL;
	if (!(bufs = kzalloc(nr * sizeof(*bufs))))
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		int err = copy_from_user(&v, &uvec[i], sizeof(v)) ? -EFAULT : 0;
		if (!err && (!v.iov_len || v.iov_len > BUF_MAX_LEN))
			err = -EFAULT;
		if (!err && (!v.iov_base || (uint64_t)v.iov_base + v.iov_len > USER_END))
			err = -EFAULT;
		if (err) {
			kfree(bufs);
			return err;
		}
		bufs[i] = (struct io_buf){(uint64_t)v.iov_base, v.iov_len};
	}
	ring->bufs = bufs;
	ring->nbufs = nr;
	return 0;
}

/* EVENTFD and EVENTFD_ASYNC (only completions an async worker posts are
 * told): Linux's checks, EINVAL for a file that is not an eventfd. */
static int register_eventfd(struct io_ring *ring, const int *ufd, uint32_t nr, bool async)
{
	struct file *f;
	int fd;

	if (nr != 1)
		return -EINVAL;
	if (ring->eventfd)
		return -EBUSY;
	if (copy_from_user(&fd, ufd, sizeof(fd)))
		return -EFAULT;
	if (!(f = files_lookup(current()->files, fd)))
		return -EBADF;
	if (!f->ops->anon_name || strcmp(f->ops->anon_name, "anon_inode:[eventfd]")) {
		file_put(f);
		return -EINVAL;
	}
	spin_lock_task(&ring->lock);
	ring->eventfd = f; /* the reference is the ring's now */
	ring->eventfd_async = async;
	spin_unlock_task(&ring->lock);
	return 0;
}

static int unregister_eventfd(struct io_ring *ring)
{
	struct file *f;

	spin_lock_task(&ring->lock);
	f = ring->eventfd;
	ring->eventfd = NULL;
	spin_unlock_task(&ring->lock);
	if (!f)
		return -ENXIO;
	file_put(f);
	return 0;
}

/* The opcodes, into a zeroed probe of nr entries (Linux: EINVAL if the
 * caller's is not zeroed). */
static int register_probe(struct io_ring *ring, struct io_uring_probe *up, uint32_t nr)
{
	size_t size;
	struct io_uring_probe *p;
	int err = 0;

	(void)ring;
	if (!up || nr > 256)
		return -EINVAL; /* Linux's checks, before its clamp */
	if (nr > IORING_OP_LAST)
		nr = IORING_OP_LAST;
	size = sizeof(*p) + nr * sizeof(p->ops[0]);
	if (!(p = kmalloc(size)))
		return -ENOMEM;
	if (copy_from_user(p, up, size)) {
		err = -EFAULT;
		goto out;
	}
	for (size_t i = 0; i < size; i++)
		if (((const uint8_t *)p)[i]) {
			err = -EINVAL;
			goto out;
		}
	p->last_op = IORING_OP_LAST - 1;
	p->ops_len = (uint8_t)nr;
	for (uint32_t i = 0; i < nr; i++) {
		p->ops[i].op = (uint8_t)i;
		p->ops[i].flags = io_op_supported(i) ? IO_URING_OP_SUPPORTED : 0;
	}
	if (copy_to_user(up, p, size))
		err = -EFAULT;
out:
	kfree(p);
	return err;
}

void io_unregister_all(struct io_ring *ring)
{
	(void)unregister_buffers(ring);
	(void)unregister_eventfd(ring);
	io_files_release(ring);
	io_pbufs_release(ring);
	io_personalities_release(ring);
}

/* FILES2: the table described by a struct io_uring_rsrc_register of
 * size bytes (SPARSE: nr empty slots, no data). */
static int register_files2(struct io_ring *ring, const struct io_uring_rsrc_register *urr,
			   uint32_t size)
{
	struct io_uring_rsrc_register rr;

	if (size != sizeof(rr))
		return -EINVAL;
	if (copy_from_user(&rr, urr, sizeof(rr)))
		return -EFAULT;
	if (!rr.nr || rr.resv2 || (rr.flags & ~IORING_RSRC_REGISTER_SPARSE))
		return -EINVAL;
	if ((rr.flags & IORING_RSRC_REGISTER_SPARSE) && rr.data)
		return -EINVAL;
	return io_files_register(ring, (const int32_t *)rr.data, (const uint64_t *)rr.tags, rr.nr);
}

/* FILES_UPDATE: nr slots from a struct io_uring_rsrc_update, no tags. */
static int update_files(struct io_ring *ring, const struct io_uring_rsrc_update *uup, uint32_t nr)
{
	struct io_uring_rsrc_update up;

	if (!nr)
		return -EINVAL;
	if (copy_from_user(&up, uup, sizeof(up)))
		return -EFAULT;
	if (up.resv)
		return -EINVAL;
	return io_files_update(ring, up.offset, (const int32_t *)up.data, NULL, nr);
}

/* FILES_UPDATE2: a struct io_uring_rsrc_update2 of size bytes. */
static int update_files2(struct io_ring *ring, const struct io_uring_rsrc_update2 *uup,
			 uint32_t size)
{
	struct io_uring_rsrc_update2 up;

	if (size != sizeof(up))
		return -EINVAL;
	if (copy_from_user(&up, uup, sizeof(up)))
		return -EFAULT;
	if (!up.nr || up.resv || up.resv2)
		return -EINVAL;
	return io_files_update(ring, up.offset, (const int32_t *)up.data, (const uint64_t *)up.tags,
			       up.nr);
}

static long do_register(struct io_ring *ring, unsigned int opcode, void *arg, uint32_t nr)
{
	switch (opcode) {
	case IORING_REGISTER_BUFFERS:
		return register_buffers(ring, arg, nr);
	case IORING_UNREGISTER_BUFFERS:
		return arg || nr ? -EINVAL : unregister_buffers(ring);
	case IORING_REGISTER_EVENTFD:
	case IORING_REGISTER_EVENTFD_ASYNC:
		return register_eventfd(ring, arg, nr, opcode == IORING_REGISTER_EVENTFD_ASYNC);
	case IORING_UNREGISTER_EVENTFD:
		return arg || nr ? -EINVAL : unregister_eventfd(ring);
	case IORING_REGISTER_PROBE:
		return register_probe(ring, arg, nr);
	case IORING_REGISTER_FILES:
		return !arg ? -EFAULT : io_files_register(ring, arg, NULL, nr);
	case IORING_UNREGISTER_FILES:
		return arg || nr ? -EINVAL : io_files_unregister(ring);
	case IORING_REGISTER_FILES2:
		return register_files2(ring, arg, nr);
	case IORING_REGISTER_FILES_UPDATE:
		return update_files(ring, arg, nr);
	case IORING_REGISTER_FILES_UPDATE2:
		return update_files2(ring, arg, nr);
	case IORING_REGISTER_PBUF_RING:
		return !arg || nr != 1 ? -EINVAL : io_pbuf_ring_register(ring, arg);
	case IORING_UNREGISTER_PBUF_RING:
		return !arg || nr != 1 ? -EINVAL : io_pbuf_ring_unregister(ring, arg);
	case IORING_REGISTER_PBUF_STATUS:
		return !arg || nr != 1 ? -EINVAL : io_pbuf_ring_status(ring, arg);
	case IORING_REGISTER_PERSONALITY:
		return arg || nr ? -EINVAL : io_personality_register(ring);
	case IORING_UNREGISTER_PERSONALITY:
		return arg ? -EINVAL : io_personality_unregister(ring, nr);
	case IORING_REGISTER_RING_FDS:
		return io_ringfd_register(arg, nr);
	case IORING_UNREGISTER_RING_FDS:
		return io_ringfd_unregister(arg, nr);
	case IORING_REGISTER_SYNC_CANCEL:
		return !arg || nr != 1 ? -EINVAL : io_sync_cancel(ring, arg);
	case IORING_REGISTER_FILE_ALLOC_RANGE:
		return !arg || nr ? -EINVAL : io_files_alloc_range(ring, arg);
	default:
		return -EINVAL;
	}
}

SYSCALL_DEFINE4(io_uring_register, unsigned int, fd, unsigned int, opcode, void *, arg, uint32_t,
		nr_args)
{
	struct file *f;
	struct io_ring *ring;
	long ret;

	/* Linux's order: the opcode, then the fd. */
	if ((opcode & ~IORING_REGISTER_USE_REGISTERED_RING) >= IORING_REGISTER_LAST)
		return -EINVAL;
	if (opcode & IORING_REGISTER_USE_REGISTERED_RING) {
		/* Referenced: UNREGISTER_RING_FDS may drop the table's. */
		if (!(f = io_ringfd_get(fd, &ret)))
			return ret;
		file_get(f);
		opcode &= ~IORING_REGISTER_USE_REGISTERED_RING;
	} else if (!(f = files_lookup(current()->files, (int)fd))) {
		return -EBADF;
	}
	if (!(ring = io_ring_of(f))) {
		file_put(f);
		return -EOPNOTSUPP;
	}
	mutex_lock(&ring->submit_lock);
	ret = do_register(ring, opcode, arg, nr_args);
	mutex_unlock(&ring->submit_lock);
	file_put(f);
	return ret;
}
