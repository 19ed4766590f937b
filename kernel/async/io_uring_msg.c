/*
 * io_uring's MSG_RING: a request that posts a CQE to a ring, its own or
 * another (IORING_MSG_DATA: res and user_data of the sender's choice),
 * or passes one of its ring's direct descriptors into the target's table
 * (IORING_MSG_SEND_FD), the target told by a CQE unless
 * IORING_MSG_RING_CQE_SKIP.  Linux 6.1's semantics (liburing 2.3's):
 * the target's CQE overflows as any other (NODROP), -EOVERFLOW only when
 * it could not be kept.  Runs inline: the target's CQ ring and table
 * have locks of their own, no sleep (Linux punts only for a locked
 * IOPOLL target, which setup refuses here).  docs/async.md.
 */
#include "async/io_uring_rsrc.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "proc/task.h"
#include <uapi/errno.h>

int io_prep_msg_ring(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->personality)
		return -EINVAL;
	if (s->msg_ring_flags & ~IORING_MSG_RING_CQE_SKIP)
		return -EINVAL;
	return 0;
}

/* DATA: a CQE of res len and user_data off; the fd and flag fields
 * mean nothing here (EINVAL). */
static long msg_data(struct io_req *req, struct io_ring *target)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->addr3 || s->file_index || s->msg_ring_flags)
		return -EINVAL;
	return io_post_cqe_kept(target, s->off, (int32_t)s->len) ? 0 : -EOVERFLOW;
}

/* SEND_FD: direct descriptor addr3 of req's ring into slot file_index of
 * the target's (1-based, or IORING_FILE_INDEX_ALLOC: a free one), both
 * then holding the file; the slot allocated, or 0, in both CQEs.  Not to
 * its own ring (EINVAL); an empty slot EBADF; the target's table's
 * errors (ENXIO, EINVAL, ENFILE) as a direct OPENAT's. */
static long msg_send_fd(struct io_req *req, struct io_ring *target)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct file *f;
	long res;

	if (target == req->ring)
		return -EINVAL;
	if (!(f = io_fixed_get(req->ring, (uint32_t)s->addr3)))
		return -EBADF;
	if ((res = io_fixed_install(target, s->file_index, f)) < 0) /* takes f's reference */
		return res;
	if (s->msg_ring_flags & IORING_MSG_RING_CQE_SKIP)
		return res;
	/* Not kept: the target has the file but was not told (Linux's
	 * answer too; the sender tells it again). */
	return io_post_cqe_kept(target, s->off, (int32_t)res) ? res : -EOVERFLOW;
}

/* The target is the SQE's fd, or its direct descriptor (the request's
 * file, taken at its issue); a file that is no ring EBADFD. */
long io_run_msg_ring(struct io_req *req)
{
	struct file *f = req->file;
	struct io_ring *target;
	long res;

	if (f)
		file_get(f);
	else if (!(f = files_lookup(current()->files, req->sqe.fd)))
		return -EBADF;
	if (!(target = io_ring_of(f)))
		res = -EBADFD;
	else if (req->sqe.addr == IORING_MSG_DATA)
		res = msg_data(req, target);
	else if (req->sqe.addr == IORING_MSG_SEND_FD)
		res = msg_send_fd(req, target);
	else
		res = -EINVAL;
	file_put(f);
	return res;
}
