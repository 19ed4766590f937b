/*
 * io_uring's file-system ops and their kin, as Linux's io_uring/fs.c,
 * xattr.c, advise.c, epoll.c and splice.c: RENAMEAT, UNLINKAT, MKDIRAT,
 * SYMLINKAT, LINKAT; FSETXATTR, SETXATTR, FGETXATTR, GETXATTR; FADVISE,
 * MADVISE; EPOLL_CTL; SPLICE and TEE.  Each preparation checks the
 * fields Linux's refuses (EINVAL), copies what Linux's copies (the path
 * ops' paths, the xattr ops' name, value and path, EPOLL_CTL's event:
 * IORING_FEAT_SUBMIT_STABLE) and names the call the request runs: its
 * system call's code, so every other errno is the call's own.  All but
 * EPOLL_CTL go to a worker, as Linux forces them asynchronous (the
 * table's HOW_PUNT).  fdkernel's file systems keep no extended
 * attributes, so the xattr ops end in EOPNOTSUPP after their checks.
 */
#include "arch/x86_64/uaccess.h"
#include "async/io_uring_ops.h"
#include "async/io_uring_rsrc.h"
#include "fd/fdtable.h"
#include "fs/event/eventpoll.h"
#include "fs/file.h"
#include "fs/pipe/pipe.h"
#include "fs/upath.h"
#include "fs/xattr.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/syscalls.h>

/* ---- the path ops: sqe->fd a directory, addr (and addr2) paths,
 * copied at preparation as Linux's getname (io_prep_path for one; a
 * struct io_paths for two), resolved when the op runs: the *_kpath
 * calls their system calls share (fs/upath.h) ---- */

/* Two paths a request keeps (kdata) from its preparation to its free. */
struct io_paths {
	struct upath old, new;
};

static void paths_free(void *kdata)
{
	struct io_paths *p = kdata;

	upath_put(&p->new);
	upath_put(&p->old);
	kfree(p);
}

/* addr (empty allowed with AT_EMPTY_PATH in oldflags) and addr2 copied:
 * 0, -EFAULT, -ENAMETOOLONG, -ENOENT, -ENOMEM. */
static int prep_paths(struct io_req *req, int oldflags)
{
	struct io_paths *p = kmalloc(sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	if ((err = upath_name(&p->old, (const char *)req->sqe.addr, oldflags))) {
		kfree(p);
		return err;
	}
	if ((err = upath_name(&p->new, (const char *)req->sqe.addr2, 0))) {
		upath_put(&p->old);
		kfree(p);
		return err;
	}
	io_req_keep(req, p, paths_free);
	return 0;
}

static const struct io_paths *paths_of(const struct io_req *req)
{
	return req->kdata;
}

/* RENAMEAT and LINKAT: from (fd, addr) to (len: a directory fd, addr2),
 * with rename_flags or hardlink_flags (one word; LINKAT's AT_EMPTY_PATH
 * lets addr be empty), checked when they run, as renameat2's and
 * linkat's. */
int io_prep_two_paths(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->buf_index || s->splice_fd_in)
		return -EINVAL;
	return prep_paths(req, s->opcode == IORING_OP_LINKAT ? (int)s->hardlink_flags : 0);
}

long io_run_renameat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	return rename_kpath(s->fd, paths_of(req)->old.path, (int)s->len, paths_of(req)->new.path,
			    s->rename_flags);
}

long io_run_linkat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	return link_kpath(s->fd, paths_of(req)->old.path, (int)s->len, paths_of(req)->new.path,
			  (int)s->hardlink_flags);
}

/* UNLINKAT: unlink_flags AT_REMOVEDIR only. */
int io_prep_unlinkat(struct io_req *req)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (s->off || s->len || s->buf_index || s->splice_fd_in ||
	    (s->unlink_flags & ~AT_REMOVEDIR))
		return -EINVAL;
	return io_prep_path(req, 0);
}

long io_run_unlinkat(struct io_req *req)
{
	const struct upath *p = req->kdata;

	return unlink_kpath(req->sqe.fd, p->path, (int)req->sqe.unlink_flags);
}

/* MKDIRAT (len the mode) and SYMLINKAT (addr the target, addr2 the new
 * link): no flags, and one field more they do not take (unused). */
static int prep_no_flags(struct io_req *req, uint64_t unused)
{
	const struct io_uring_sqe *s = &req->sqe;

	if (unused || s->rw_flags || s->buf_index || s->splice_fd_in)
		return -EINVAL;
	return s->opcode == IORING_OP_MKDIRAT ? io_prep_path(req, 0) : prep_paths(req, 0);
}

int io_prep_mkdirat(struct io_req *req)
{
	return prep_no_flags(req, req->sqe.off);
}

long io_run_mkdirat(struct io_req *req)
{
	const struct upath *p = req->kdata;

	return mkdir_kpath(req->sqe.fd, p->path, req->sqe.len);
}

int io_prep_symlinkat(struct io_req *req)
{
	return prep_no_flags(req, req->sqe.len);
}

long io_run_symlinkat(struct io_req *req)
{
	return symlink_kpath(paths_of(req)->old.path, req->sqe.fd, paths_of(req)->new.path);
}

/* ---- extended attributes: addr the name, addr2 the value, len its
 * size, addr3 the path (SETXATTR, GETXATTR), copied at preparation as
 * Linux's io_uring/xattr.c (its name and a set's value, fs/xattr.h, then
 * the path: getname); run through the calls' kernel side ---- */

/* What an xattr op keeps (kdata) from its preparation to its free. */
struct io_xattr {
	struct xattr_kargs x;
	struct upath path; /* GETXATTR, SETXATTR: addr3's, if has_path */
	bool has_path;
};

static void xattr_free(void *kdata)
{
	struct io_xattr *ix = kdata;

	if (ix->has_path)
		upath_put(&ix->path);
	xattr_args_put(&ix->x);
	kfree(ix);
}

/* A get takes no flags (EINVAL first, as Linux's); a set's are checked
 * with its name and value (xattr_set_args); then the path if it has one.
 * 0 or the first -errno, Linux's order. */
static int prep_xattr(struct io_req *req, bool get, bool path)
{
	const struct io_uring_sqe *s = &req->sqe;
	struct io_xattr *ix;
	int err;

	if (get && s->xattr_flags)
		return -EINVAL;
	if (!(ix = kmalloc(sizeof(*ix))))
		return -ENOMEM;
	ix->has_path = false;
	if (get)
		err = xattr_get_args(&ix->x, (const char *)s->addr, s->len);
	else
		err = xattr_set_args(&ix->x, (const char *)s->addr, (const void *)s->addr2, s->len,
				     (int)s->xattr_flags);
	if (!err && path)
		ix->has_path = !(err = upath_name(&ix->path, (const char *)s->addr3, 0));
	if (err) {
		xattr_free(ix);
		return err;
	}
	io_req_keep(req, ix, xattr_free);
	return 0;
}

int io_prep_fgetxattr(struct io_req *req)
{
	return prep_xattr(req, true, false);
}

int io_prep_getxattr(struct io_req *req)
{
	return prep_xattr(req, true, true);
}

int io_prep_fsetxattr(struct io_req *req)
{
	return prep_xattr(req, false, false);
}

int io_prep_setxattr(struct io_req *req)
{
	return prep_xattr(req, false, true);
}

/* The call on the path (following a final link, as getxattr and
 * setxattr) or on fd. */
long io_run_xattr(struct io_req *req)
{
	const struct io_xattr *ix = req->kdata;
	const char *kpath = ix->has_path ? ix->path.path : NULL;
	uint8_t op = req->sqe.opcode;

	if (op == IORING_OP_FGETXATTR || op == IORING_OP_GETXATTR)
		return xattr_kget(kpath, false, req->sqe.fd, &ix->x);
	return xattr_kset(kpath, false, req->sqe.fd, &ix->x);
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
