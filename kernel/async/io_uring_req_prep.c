/*
 * The checks every SQE gets at submission before its op's own
 * preparation (io_uring_prep.c, io_uring_op.c), in Linux's order, each
 * with Linux's errno for the CQE: their common case is io_req_prep's,
 * inline (io_uring_int.h), the rest here.  docs/async.md, "Requests".
 */
#include "async/io_uring_rsrc.h"
#include "fd/fd_install.h"
#include <uapi/errno.h>

#define SQE_FLAGS_KNOWN                                                                            \
	(IOSQE_FIXED_FILE | IOSQE_IO_DRAIN | IOSQE_IO_LINK | IOSQE_IO_HARDLINK | IOSQE_ASYNC |     \
	 IOSQE_CQE_SKIP_SUCCESS)

/* The ops that take IOSQE_BUFFER_SELECT; any other, Linux's EOPNOTSUPP. */
static int op_buffer_select(uint8_t op)
{
	switch (op) {
	case IORING_OP_RECV:
	case IORING_OP_RECVMSG:
	case IORING_OP_READ:
	case IORING_OP_READV:
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* The ops whose sqe->ioprio means something (an I/O priority or the
 * op's flags); on any other a nonzero one is Linux's EINVAL. */
static bool op_takes_ioprio(uint8_t op)
{
	switch (op) {
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_SENDMSG:
	case IORING_OP_RECVMSG:
	case IORING_OP_ACCEPT:
	case IORING_OP_READ:
	case IORING_OP_WRITE:
	case IORING_OP_SEND:
	case IORING_OP_RECV:
		return true;
	default:
		return false;
	}
}

/* On an IOPOLL ring, Linux takes only the ops that may be polled for
 * (its opdef's iopoll) and EINVAL for the others; its reads and writes
 * answer at their issue (op_iopoll_unsupported). */
int io_prep_iopoll(struct io_req *req)
{
	switch (req->sqe.opcode) {
	case IORING_OP_READV:
	case IORING_OP_WRITEV:
	case IORING_OP_READ_FIXED:
	case IORING_OP_WRITE_FIXED:
	case IORING_OP_READ:
	case IORING_OP_WRITE:
		req->iopoll_rw = true;
		return 0;
	case IORING_OP_NOP:
	case IORING_OP_FILES_UPDATE:
	case IORING_OP_PROVIDE_BUFFERS:
	case IORING_OP_REMOVE_BUFFERS:
	case IORING_OP_MSG_RING:
		return 0;
	default:
		return -EINVAL;
	}
}

/* io_req_prep's rare cases (io_uring_int.h), in Linux's order: any
 * flag but the link and async ones, an ioprio, a personality.  0 or the
 * -errno for the CQE. */
int io_prep_rare(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->flags & (~SQE_FLAGS_KNOWN | IOSQE_BUFFER_SELECT)) {
		if (s->flags & ~(SQE_FLAGS_KNOWN | IOSQE_BUFFER_SELECT))
			return -EINVAL;
		int err = op_buffer_select(s->opcode);
		if (err)
			return err;
	}
	if (s->flags & IOSQE_CQE_SKIP_SUCCESS)
		req->ring->drain_disabled = true; /* Linux: skipped CQEs defeat a drain */
	if ((s->flags & IOSQE_IO_DRAIN) && req->ring->drain_disabled)
		return -EOPNOTSUPP;
	if (s->ioprio && !op_takes_ioprio(s->opcode))
		return -EINVAL;
	if (s->personality && !(req->creds = io_personality_get(req->ring, s->personality)))
		return -EINVAL;
	if (s->flags & IOSQE_FIXED_FILE) {
		if (!io_ops[s->opcode].uses_fd)
			return -EBADF;
		req->fixed = true; /* its file is taken at its issue: req_fixed_file */
		req->fixed_index = (uint32_t)s->fd;
		req->sqe.fd = FD_LENT;
	}
	return 0;
}
