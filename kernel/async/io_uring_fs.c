/*
 * io_uring's file-system ops and their kin, as Linux's io_uring/fs.c,
 * xattr.c, advise.c, epoll.c and splice.c: RENAMEAT, UNLINKAT, MKDIRAT,
 * SYMLINKAT, LINKAT; FSETXATTR, SETXATTR, FGETXATTR, GETXATTR; FADVISE,
 * MADVISE; EPOLL_CTL; SPLICE and TEE.  Each preparation checks the
 * fields Linux's refuses (EINVAL) and names the system call the request
 * runs, so every other errno is the call's own.  All but EPOLL_CTL go to
 * a worker, as Linux forces them asynchronous (the table's HOW_PUNT).
 *
 * Their paths, names and values are read when the call runs, not at
 * preparation as Linux's getname does: a program that reuses that
 * memory once io_uring_enter returned sees the request use the new
 * contents (docs/async.md, "What is left").  EPOLL_CTL copies its event
 * at preparation, as Linux.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_int.h"
#include "fd/fdtable.h"
#include "fs/event/eventpoll.h"
#include "fs/file.h"
#include "fs/pipe/pipe.h"
#include "lib/string.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/syscalls.h>

/* ---- the path ops: sqe->fd a directory, addr (and addr2) paths ---- */

/* RENAMEAT and LINKAT: from (fd, addr) to (len: a directory fd, addr2),
 * with rename_flags or hardlink_flags (one word), as renameat2 and
 * linkat take them. */
static int prep_two_paths(struct io_req *req, int nr)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->splice_fd_in)
		return -EINVAL;
	set_call(req, nr, (uint64_t)(int64_t)s->fd, s->addr, (uint64_t)(int32_t)s->len, s->addr2,
		 s->rename_flags, 0);
	return 0;
}

int io_prep_renameat(struct io_req *req)
{
	return prep_two_paths(req, __NR_renameat2);
}

/* unlinkat(fd, addr, unlink_flags): AT_REMOVEDIR only. */
int io_prep_unlinkat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->off || s->len || s->buf_index || s->splice_fd_in ||
	    (s->unlink_flags & ~AT_REMOVEDIR))
		return -EINVAL;
	set_call(req, __NR_unlinkat, (uint64_t)(int64_t)s->fd, s->addr, s->unlink_flags, 0, 0, 0);
	return 0;
}

/* MKDIRAT and SYMLINKAT: no flags, and one field more they do not take
 * (unused); their call's three arguments. */
static int prep_no_flags(struct io_req *req, uint64_t unused, int nr, uint64_t a0, uint64_t a1,
			 uint64_t a2)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (unused || s->rw_flags || s->buf_index || s->splice_fd_in)
		return -EINVAL;
	set_call(req, nr, a0, a1, a2, 0, 0, 0);
	return 0;
}

/* mkdirat(fd, addr, len: the mode). */
int io_prep_mkdirat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	return prep_no_flags(req, s->off, __NR_mkdirat, (uint64_t)(int64_t)s->fd, s->addr, s->len);
}

/* symlinkat(addr: the target, fd, addr2: the new link). */
int io_prep_symlinkat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	return prep_no_flags(req, s->len, __NR_symlinkat, s->addr, (uint64_t)(int64_t)s->fd,
			     s->addr2);
}

int io_prep_linkat(struct io_req *req)
{
	return prep_two_paths(req, __NR_linkat);
}

/* ---- extended attributes: addr the name, addr2 the value, len its
 * size, addr3 the path (SETXATTR, GETXATTR) ---- */

/* The call nr on target (an fd or a path); a get takes no flags (Linux's
 * EINVAL), a set's are its call's to check (EINVAL past XATTR_REPLACE). */
static int prep_xattr(struct io_req *req, int nr, uint64_t target, bool get)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (get && s->xattr_flags)
		return -EINVAL;
	set_call(req, nr, target, s->addr, s->addr2, s->len, s->xattr_flags, 0);
	return 0;
}

int io_prep_fgetxattr(struct io_req *req)
{
	return prep_xattr(req, __NR_fgetxattr, (uint64_t)(int64_t)req->sqe.fd, true);
}

int io_prep_getxattr(struct io_req *req)
{
	return prep_xattr(req, __NR_getxattr, req->sqe.addr3, true);
}

int io_prep_fsetxattr(struct io_req *req)
{
	return prep_xattr(req, __NR_fsetxattr, (uint64_t)(int64_t)req->sqe.fd, false);
}

int io_prep_setxattr(struct io_req *req)
{
	return prep_xattr(req, __NR_setxattr, req->sqe.addr3, false);
}

/* ---- advice ---- */

/* The advice's length: 64 bits in addr (FADVISE) or off (MADVISE), or
 * 32 in len if that is 0, as Linux 6.11+ (docs/async.md). */
static uint64_t advice_len(uint64_t wide, uint32_t len)
{
	return wide ? wide : len;
}

/* fadvise64(fd, off, the length, fadvise_advice). */
int io_prep_fadvise(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->splice_fd_in)
		return -EINVAL;
	set_call(req, __NR_fadvise64, (uint64_t)(int64_t)s->fd, s->off, advice_len(s->addr, s->len),
		 s->fadvise_advice, 0, 0);
	return 0;
}

/* madvise(addr, the length, fadvise_advice) in the submitter's memory,
 * which its worker shares. */
int io_prep_madvise(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->splice_fd_in)
		return -EINVAL;
	set_call(req, __NR_madvise, s->addr, advice_len(s->off, s->len), s->fadvise_advice, 0, 0,
		 0);
	return 0;
}

/* ---- EPOLL_CTL: fd the epoll, len the op, off the target fd, addr the
 * event, copied now (EFAULT) for every op but EPOLL_CTL_DEL, as Linux's
 * preparation: the request holds it in args[3] and args[4]. ---- */

_Static_assert(sizeof(struct epoll_event) <= 2 * sizeof(uint64_t), "the event fits in args");

int io_prep_epoll_ctl(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->splice_fd_in)
		return -EINVAL;
	set_call(req, __NR_epoll_ctl, (uint64_t)(int64_t)s->fd, s->len, (uint64_t)(int32_t)s->off,
		 0, 0, 0);
	if (s->len != EPOLL_CTL_DEL &&
	    copy_from_user(&req->args[3], (const void *)s->addr, sizeof(struct epoll_event)))
		return -EFAULT;
	return 0;
}

long io_run_epoll_ctl(struct io_req *req)
{
	struct epoll_event ev;

	memcpy(&ev, &req->args[3], sizeof(ev));
	return epoll_ctl_kernel((int)req->args[0], (int)req->args[1], (int)req->args[2],
				req->args[1] == EPOLL_CTL_DEL ? NULL : &ev);
}

/* ---- SPLICE and TEE: fd the output (a direct descriptor with
 * IOSQE_FIXED_FILE), splice_fd_in the input (one with
 * SPLICE_F_FD_IN_FIXED in splice_flags), len the length; SPLICE's
 * offsets splice_off_in and off, -1 for the file's position.  A length
 * of 0 is 0 once both files are found, as Linux's. ---- */

static int prep_splice_flags(const struct io_uring_sqe *s)
{
	return s->splice_flags & ~(SPLICE_F_FD_IN_FIXED | SPLICE_F_ALL) ? -EINVAL : 0;
}

int io_prep_splice(struct io_req *req)
{
	return prep_splice_flags(&req->sqe);
}

/* TEE has no offsets (Linux's EINVAL). */
int io_prep_tee(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->splice_off_in || s->off)
		return -EINVAL;
	return prep_splice_flags(s);
}

/* SPLICE's offset: NULL for -1 (the file's position), else *off. */
static long *splice_off(long *off, uint64_t v)
{
	*off = (long)v;
	return *off == -1 ? NULL : off;
}

/* The input: a direct descriptor of the ring's, or the submitter's fd;
 * referenced, or NULL (EBADF). */
static struct file *splice_input(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->splice_flags & SPLICE_F_FD_IN_FIXED)
		return io_fixed_get(req->ring, (uint32_t)s->splice_fd_in);
	return files_lookup(current()->files, s->splice_fd_in);
}

/* The output's lookup finds a direct descriptor's file too: FD_LENT,
 * lent by the request while it runs (fd/fd_install.h). */
static long splice_run(struct io_req *req, bool tee)
{
	const struct io_uring_sqe *s = &req->sqe;
	unsigned int flags = s->splice_flags & ~SPLICE_F_FD_IN_FIXED;
	struct file *out = files_lookup(current()->files, s->fd), *in;
	long off_in, off_out, res = 0;

	if (!out)
		return -EBADF;
	if (!(in = splice_input(req)))
		res = -EBADF;
	else if (s->len && tee)
		res = tee_file(in, out, s->len, flags);
	else if (s->len)
		res = splice_file(in, splice_off(&off_in, s->splice_off_in), out,
				  splice_off(&off_out, s->off), s->len, flags);
	if (in)
		file_put(in);
	file_put(out);
	return res;
}

long io_run_splice(struct io_req *req)
{
	return splice_run(req, false);
}

long io_run_tee(struct io_req *req)
{
	return splice_run(req, true);
}
