/*
 * io_uring's "syscall" opcodes prepared: each prep_ function checks its
 * SQE's fields (Linux's EINVAL for those the op does not take) and turns
 * them into the system call and arguments the request runs (req->nr,
 * req->args), and copies what the SQE points at that Linux copies at
 * preparation (IORING_FEAT_SUBMIT_STABLE: iovecs, a msghdr, a path, an
 * address) into the request (io_req_keep), which its run (io_uring_op.c)
 * uses.  The other ops with a run function of their own prepare beside
 * it in io_uring_op.c, which has the table.  docs/async.md.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "async/io_uring_ops.h"
#include "fd/fdtable.h"
#include "fs/file.h"
#include "fs/upath.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "net/socket.h"
#include "proc/cred.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/capability.h>
#include <uapi/fcntl.h>
#include <uapi/ioprio.h>
#include <uapi/socket.h>
#include <uapi/syscalls.h>
#include <uapi/uio.h>

int io_prep_nop(struct io_req *req)
{
	(void)req;
	return 0;
}

/* A read's or write's own checks: RWF_HIPRI asks for polled
 * completions, Linux's EINVAL on a ring without IORING_SETUP_IOPOLL (on
 * one with, the request answers EOPNOTSUPP at its issue:
 * op_iopoll_unsupported); ioprio is an I/O priority, checked as Linux's
 * ioprio_check_cap (a class past IDLE EINVAL, the real-time class EPERM
 * without CAP_SYS_NICE or CAP_SYS_ADMIN) and otherwise unused (no I/O
 * scheduler). */
static int rw_sqe_check(const struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	unsigned int class = s->ioprio >> IOPRIO_CLASS_SHIFT;

	if (((s->rw_flags & RWF_HIPRI) && !(req->ring->flags & IORING_SETUP_IOPOLL)) ||
	    class > IOPRIO_CLASS_IDLE)
		return -EINVAL;
	if (class == IOPRIO_CLASS_RT && !capable(CAP_SYS_NICE) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

/* READ/WRITE, the _FIXED ones, READV/WRITEV: nr names the call (pread64
 * or preadv2 and their writing twins); the arguments are fd, addr, len,
 * off and the RWF_* flags, which the run gives fd_rw_flags, as preadv2
 * takes them (offset -1 is the file position: IORING_FEAT_RW_CUR_POS); a
 * READ into a provided buffer (BUFFER_SELECT) takes len as its cap. */
static int prep_rw(struct io_req *req, long nr)
{
	const struct io_uring_sqe *s = &req->sqe;
	int err = rw_sqe_check(req);

	if (err)
		return err;
	set_call(req, nr, (uint64_t)s->fd, s->addr, s->len, s->off, s->rw_flags, 0);
	return 0;
}

int io_prep_read(struct io_req *req)
{
	return prep_rw(req, __NR_pread64);
}

int io_prep_write(struct io_req *req)
{
	return prep_rw(req, __NR_pwrite64);
}

/* READ_FIXED/WRITE_FIXED: the range must lie in registered buffer
 * buf_index (-EFAULT otherwise, as Linux's io_import_fixed). */
static int prep_fixed(struct io_req *req, bool write)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct io_ring *ring = req->ring;
	const struct io_buf *b;

	if (s->buf_index >= ring->nbufs)
		return -EFAULT;
	b = &ring->bufs[s->buf_index];
	if (s->addr < b->addr || s->addr + s->len < s->addr || s->addr + s->len > b->addr + b->len)
		return -EFAULT;
	return prep_rw(req, write ? __NR_pwrite64 : __NR_pread64);
}

int io_prep_read_fixed(struct io_req *req)
{
	return prep_fixed(req, false);
}

int io_prep_write_fixed(struct io_req *req)
{
	return prep_fixed(req, true);
}

/*
 * READV/WRITEV: prep_rw's arguments, and the user's iovec array copied
 * now into req->iov, as Linux's preparation does: with
 * IORING_FEAT_SUBMIT_STABLE the user may reuse it once io_uring_enter has
 * returned, while the request still waits.  Its checks are readv's
 * (iovec_import); args[5] holds the total it allows.
 */
static int prep_rwv(struct io_req *req, long nr)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct iovec fast[UIO_FASTIOV], *v = fast;
	struct iov_iter it;
	int err = prep_rw(req, nr);

	if (err)
		return err;
	if ((err = iovec_import((const struct iovec *)s->addr, s->len, &v, &it))) {
		kfree(v);
		return err;
	}
	if (!v && s->len) { /* it used fast: a copy of the request's own */
		if (!(v = kmalloc(s->len * sizeof(*v))))
			return -ENOMEM;
		memcpy(v, fast, s->len * sizeof(*v));
	}
	if (v)
		io_req_keep(req, v, kfree);
	req->args[5] = iov_iter_count(&it);
	return 0;
}

/* A READV into a provided buffer (BUFFER_SELECT): one iovec, whose
 * length caps the read (Linux's EINVAL for another count), copied now;
 * then prep_rw's arguments as a READ's. */
int io_prep_readv(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct iovec v;
	int err;

	if (!(s->flags & IOSQE_BUFFER_SELECT))
		return prep_rwv(req, __NR_preadv2);
	if (s->len != 1)
		return -EINVAL;
	if ((err = rw_sqe_check(req)))
		return err;
	if (copy_from_user(&v, (const void *)s->addr, sizeof(v)))
		return -EFAULT;
	set_call(req, __NR_pread64, (uint64_t)s->fd, 0,
		 v.iov_len < UINT32_MAX ? v.iov_len : UINT32_MAX, s->off, s->rw_flags, 0);
	return 0;
}

int io_prep_writev(struct io_req *req)
{
	return prep_rwv(req, __NR_pwritev2);
}

int io_prep_fsync(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->fsync_flags & ~IORING_FSYNC_DATASYNC)
		return -EINVAL;
	set_call(req, s->fsync_flags ? __NR_fdatasync : __NR_fsync, (uint64_t)s->fd, 0, 0, 0, 0, 0);
	return 0;
}

/* SYNC_FILE_RANGE: off, len and sync_range_flags as sync_file_range's
 * (Linux's io_sfr_prep: EINVAL for addr, buf_index, splice_fd_in). */
int io_prep_sync_file_range(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->addr || s->buf_index || s->splice_fd_in)
		return -EINVAL;
	set_call(req, __NR_sync_file_range, (uint64_t)s->fd, s->off, s->len, s->sync_range_flags, 0,
		 0);
	return 0;
}

/* FALLOCATE: len is the mode, addr the length (Linux's
 * io_fallocate_prep: EINVAL for buf_index, rw_flags, splice_fd_in). */
int io_prep_fallocate(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->rw_flags || s->splice_fd_in)
		return -EINVAL;
	set_call(req, __NR_fallocate, (uint64_t)s->fd, s->len, s->off, s->addr, 0, 0);
	return 0;
}

/* SHUTDOWN: len is how (Linux's io_shutdown_prep: EINVAL for the other
 * fields); shutdown's ENOTSOCK and EINVAL. */
int io_prep_shutdown(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->off || s->addr || s->rw_flags || s->buf_index || s->splice_fd_in || s->addr3)
		return -EINVAL;
	set_call(req, __NR_shutdown, (uint64_t)s->fd, s->len, 0, 0, 0, 0);
	return 0;
}

static void umsg_free(void *u)
{
	umsg_put(u);
	kfree(u);
}

/* SENDMSG and RECVMSG: the header at addr copied now, with its iovecs
 * (or data: a RECVMSG's provided buffer instead, its iovecs not read)
 * and a send's address, as Linux's io_msg_copy_hdr; the run
 * (sock_sendmsg_umsg, sock_recvmsg_umsg) takes the control buffer and
 * writes a receive's results through the pointers copied here, as
 * Linux's.  args: fd, the user's header (a receive's results), flags. */
static int prep_msg(struct io_req *req, bool send, const struct iovec *data)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct umsg *u = kmalloc(sizeof(*u));
	long err;

	if (!u)
		return -ENOMEM;
	if ((err = umsg_get(u, (const struct msghdr *)s->addr, (int)s->msg_flags, send, data))) {
		umsg_free(u);
		return (int)err;
	}
	io_req_keep(req, u, umsg_free);
	set_call(req, send ? __NR_sendmsg : __NR_recvmsg, (uint64_t)s->fd, s->addr, s->msg_flags, 0,
		 0, 0);
	return 0;
}

int io_prep_sendmsg(struct io_req *req)
{
	return prep_msg(req, true, NULL);
}

/* The cap of a RECVMSG into a provided buffer: its header's one iovec's
 * length (0 without one), read now, as Linux's (EFAULT; EINVAL for more
 * iovecs). */
static long recvmsg_cap(const struct umsg *u)
{
	struct iovec v = {0};

	if (u->h.msg_iovlen > 1)
		return -EINVAL;
	if (u->h.msg_iovlen && copy_from_user(&v, u->h.msg_iov, sizeof(v)))
		return -EFAULT;
	return v.iov_len < UINT32_MAX ? (long)v.iov_len : UINT32_MAX;
}

/* A multishot RECVMSG's layout in each buffer: the header's msg_namelen
 * and msg_controllen as the user gave them (args[4] and args[5]: Linux
 * reserves msg_namelen bytes even with no msg_name). */
static int prep_recvmsg_multi(struct io_req *req)
{
	struct msghdr h;

	if (copy_from_user(&h, (const void *)req->sqe.addr, sizeof(h)))
		return -EFAULT;
	req->args[4] = h.msg_namelen;
	req->args[5] = h.msg_controllen;
	req->multishot = true;
	return 0;
}

/* RECVMSG: its header copied (prep_msg), and with BUFFER_SELECT the cap
 * in args[3]; ioprio may take IORING_RECVSEND_POLL_FIRST (a hint) and
 * IORING_RECV_MULTISHOT (BUFFER_SELECT, not MSG_WAITALL, as Linux: a CQE
 * per receive, io_uring_multi.c, each buffer laid out as
 * io_run_recvmsg says). */
int io_prep_recvmsg(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	const struct iovec none = {0};
	long cap;
	int err;

	if (s->ioprio & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT))
		return -EINVAL;
	if ((s->ioprio & IORING_RECV_MULTISHOT) &&
	    (!(s->flags & IOSQE_BUFFER_SELECT) || (s->msg_flags & MSG_WAITALL)))
		return -EINVAL;
	if (!(s->flags & IOSQE_BUFFER_SELECT))
		return prep_msg(req, false, NULL);
	if ((err = prep_msg(req, false, &none)))
		return err;
	if ((cap = recvmsg_cap(req->kdata)) < 0)
		return (int)cap; /* the request's free frees its copy */
	req->args[3] = (uint64_t)cap;
	return s->ioprio & IORING_RECV_MULTISHOT ? prep_recvmsg_multi(req) : 0;
}

int io_prep_send(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	set_call(req, __NR_sendto, (uint64_t)s->fd, s->addr, s->len, s->msg_flags, 0, 0);
	return 0;
}

/* RECV: recvfrom's arguments; ioprio may take IORING_RECVSEND_POLL_FIRST
 * (a hint: the attempt is made all the same) and IORING_RECV_MULTISHOT
 * (io_uring_multi.c: a CQE per receive, each into a provided buffer, so
 * BUFFER_SELECT, len a cap on each; not MSG_WAITALL), as Linux 6.10+. */
int io_prep_recv(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->ioprio & ~(IORING_RECVSEND_POLL_FIRST | IORING_RECV_MULTISHOT))
		return -EINVAL;
	if (s->ioprio & IORING_RECV_MULTISHOT) {
		if (!(s->flags & IOSQE_BUFFER_SELECT) || (s->msg_flags & MSG_WAITALL))
			return -EINVAL;
		req->multishot = true;
	}
	set_call(req, __NR_recvfrom, (uint64_t)s->fd, s->addr, s->len, s->msg_flags, 0, 0);
	return 0;
}

/* A file_index for the file an op makes (OPENAT, ACCEPT, SOCKET): a
 * direct descriptor is never close-on-exec (Linux's EINVAL). */
static int prep_file_slot(struct io_req *req, unsigned int cloexec)
{
	if (req->sqe.file_index && cloexec)
		return -EINVAL;
	req->file_slot = req->sqe.file_index;
	return 0;
}

/* ACCEPT: addr and addr2 (the length's address) as accept4's; ioprio may
 * ask for IORING_ACCEPT_MULTISHOT (io_uring_multi.c), whose file_index
 * can only be IORING_FILE_INDEX_ALLOC (a slot per connection). */
int io_prep_accept(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->len || s->buf_index || (s->ioprio & ~IORING_ACCEPT_MULTISHOT))
		return -EINVAL;
	if ((s->ioprio & IORING_ACCEPT_MULTISHOT) && s->file_index &&
	    s->file_index != IORING_FILE_INDEX_ALLOC)
		return -EINVAL;
	if (prep_file_slot(req, s->accept_flags & SOCK_CLOEXEC))
		return -EINVAL;
	req->multishot = s->ioprio & IORING_ACCEPT_MULTISHOT;
	set_call(req, __NR_accept4, (uint64_t)s->fd, s->addr, s->addr2, s->accept_flags, 0, 0);
	return 0;
}

/* CONNECT: the address (addr, addr2 bytes) copied now, as Linux's
 * move_addr_to_kernel at its preparation (EINVAL for a negative length
 * or one past any address, EFAULT); the run connects fd to the copy. */
int io_prep_connect(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct sock_addr *a;
	long err;

	if (s->len || s->buf_index || s->rw_flags)
		return -EINVAL;
	if (!(a = kmalloc(sizeof(*a))))
		return -ENOMEM;
	if ((err = sock_addr_get(a, (const void *)s->addr, (int)s->addr2))) {
		kfree(a);
		return (int)err;
	}
	io_req_keep(req, a, kfree);
	set_call(req, __NR_connect, (uint64_t)s->fd, 0, 0, 0, 0, 0);
	return 0;
}

static void upath_free(void *p)
{
	upath_put(p);
	kfree(p);
}

/* A path op's path (addr) copied now, as Linux's getname at preparation
 * (EFAULT, ENAMETOOLONG, ENOENT for an empty one unless flags has
 * AT_EMPTY_PATH); its run resolves it from the directory fd then. */
int io_prep_path(struct io_req *req, int flags)
{
	struct upath *p = kmalloc(sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	if ((err = upath_name(p, (const char *)req->sqe.addr, flags))) {
		kfree(p);
		return err;
	}
	io_req_keep(req, p, upath_free);
	return 0;
}

/* OPENAT and OPENAT2 in Linux's order (__io_openat_prep): buf_index,
 * the path, then a file_index with O_CLOEXEC (EINVAL).  args: fd,
 * flags, mode, resolve (OPENAT2's). */
static int prep_open(struct io_req *req, uint64_t flags, uint64_t mode, uint64_t resolve)
{
	int err;

	if (req->sqe.buf_index)
		return -EINVAL;
	if ((err = io_prep_path(req, 0)))
		return err;
	set_call(req, req->sqe.opcode == IORING_OP_OPENAT ? __NR_openat : __NR_openat2,
		 (uint64_t)(int64_t)req->sqe.fd, flags, mode, resolve, 0, 0);
	return prep_file_slot(req, flags & O_CLOEXEC);
}

/* OPENAT: fd is the directory, addr the path, len the mode; file_index
 * a direct descriptor to open into. */
int io_prep_openat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	return prep_open(req, s->open_flags, s->len, 0);
}

/* OPENAT2: OPENAT with addr2 an open_how of len bytes, copied now (its
 * size rules, Linux's io_openat2_prep: EINVAL below version 0, E2BIG for
 * a non-zero byte past it, no page bound), checked when it runs as
 * openat2 checks it (EINVAL, EAGAIN in the CQE). */
int io_prep_openat2(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct open_how how;
	int err = open_how_get(&how, (const struct open_how *)s->addr2, s->len);

	return err ? err : prep_open(req, how.flags, how.mode, how.resolve);
}

/* CLOSE: a direct descriptor (file_index, with fd 0: run_close), or an
 * fd, not of an io_uring (Linux's EBADF). */
int io_prep_close(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct file *f;

	if (s->off || s->addr || s->len || s->rw_flags || s->buf_index)
		return -EINVAL;
	if (s->file_index)
		return s->fd ? -EINVAL : 0;
	if ((f = files_lookup(current()->files, s->fd))) {
		bool ring = io_ring_of(f) != NULL;
		file_put(f);
		if (ring)
			return -EBADF;
	}
	set_call(req, __NR_close, (uint64_t)s->fd, 0, 0, 0, 0, 0);
	return 0;
}

/* STATX: fd the directory, addr the path (copied now: io_prep_path, empty
 * with AT_EMPTY_PATH), len the mask, addr2 the buffer.  args: fd, flags,
 * mask, buffer. */
int io_prep_statx(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->file_index)
		return -EINVAL;
	set_call(req, __NR_statx, (uint64_t)(int64_t)s->fd, s->statx_flags, s->len, s->addr2, 0, 0);
	return io_prep_path(req, (int)s->statx_flags & AT_EMPTY_PATH);
}

/* SOCKET: fd the domain, off the type, len the protocol; file_index as
 * OPENAT's. */
int io_prep_socket(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->addr || s->rw_flags || s->buf_index || prep_file_slot(req, s->off & SOCK_CLOEXEC))
		return -EINVAL;
	set_call(req, __NR_socket, (uint64_t)s->fd, s->off, s->len, 0, 0, 0);
	return 0;
}
