/*
 * fcntl's record-lock commands: F_GETLK/F_SETLK/F_SETLKW (POSIX locks, the
 * process's) and F_OFD_GETLK/F_OFD_SETLK/F_OFD_SETLKW (the open file
 * description's).  Translates struct flock into a byte range, checking it
 * in Linux's order, and back; the locks themselves are reclock.c's.
 * Leases (F_SETLEASE/F_GETLEASE) are lease.c's.
 */
#include "fs/locks/fcntl_lock.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fd/fdtable.h"
#include "fs/inode.h"
#include "fs/locks/reclock.h"
#include "proc/task.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>

/*
 * l's range, from its whence, start and len, into req (Linux's order:
 * whence, then start, then len): -EINVAL for a bad whence or a range
 * reaching below 0, -EOVERFLOW for one past the largest offset.
 */
static int flock_range(struct file *f, const struct uapi_flock *l, struct reclock_req *req)
{
	int64_t base, start;

	switch (l->l_whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = (int64_t)__atomic_load_n(&f->pos, __ATOMIC_RELAXED);
		break;
	case SEEK_END:
		base = f->inode ? (int64_t)inode_size(f->inode) : 0;
		break;
	default:
		return -EINVAL;
	}
	if (l->l_start > RECLOCK_EOF - base)
		return -EOVERFLOW;
	start = base + l->l_start;
	if (start < 0)
		return -EINVAL;
	req->start = start;
	if (l->l_len > 0) {
		if (l->l_len - 1 > RECLOCK_EOF - start)
			return -EOVERFLOW;
		req->end = start + (l->l_len - 1);
	} else if (l->l_len < 0) { /* POSIX.1-2001: the l_len bytes before start */
		if (start + l->l_len < 0)
			return -EINVAL;
		req->start = start + l->l_len;
		req->end = start - 1;
	} else {
		req->end = RECLOCK_EOF;
	}
	return 0;
}

/* l into req: its range, then its type (-EINVAL unless F_RDLCK, F_WRLCK or F_UNLCK). */
static int flock_to_req(struct file *f, const struct uapi_flock *l, struct reclock_req *req)
{
	int err = flock_range(f, l, req);

	if (err)
		return err;
	if (l->l_type != F_RDLCK && l->l_type != F_WRLCK && l->l_type != F_UNLCK)
		return -EINVAL;
	req->type = l->l_type;
	return 0;
}

/* F_GETLK, F_OFD_GETLK: F_GETLK asks only about F_RDLCK and F_WRLCK. */
static long fcntl_getlk(struct file *f, bool ofd, struct uapi_flock *l)
{
	struct reclock_req req;
	int err;

	if (!ofd && l->l_type != F_RDLCK && l->l_type != F_WRLCK)
		return -EINVAL;
	if ((err = flock_to_req(f, l, &req)))
		return err;
	if (ofd && l->l_pid != 0)
		return -EINVAL;
	reclock_test(f, ofd, &req);
	l->l_type = (short)req.type;
	if (req.type != F_UNLCK) {
		l->l_pid = req.pid;
		l->l_start = req.start;
		l->l_len = req.end == RECLOCK_EOF ? 0 : req.end - req.start + 1;
		l->l_whence = SEEK_SET;
	}
	return 0;
}

/*
 * F_SETLK(W), F_OFD_SETLK(W).  A lock needs the file open for it: reading
 * for F_RDLCK, writing for F_WRLCK (EBADF).  A POSIX lock set while
 * another thread closed fd would outlive the close that should have
 * dropped it: Linux's re-check drops it again and answers EBADF.
 */
static long fcntl_setlk(struct file *f, int fd, bool ofd, bool wait, const struct uapi_flock *l)
{
	struct files_table *files = current()->files;
	struct reclock_req req;
	struct file *now;
	int err;

	if ((err = flock_to_req(f, l, &req)))
		return err;
	if ((req.type == F_RDLCK && !file_can_read(f)) ||
	    (req.type == F_WRLCK && !file_can_write(f)))
		return -EBADF;
	if (ofd && l->l_pid != 0)
		return -EINVAL;
	err = reclock_set(f, ofd, &req, wait);
	if (err || ofd || req.type == F_UNLCK)
		return err;
	now = files_lookup(files, fd);
	if (now)
		file_put(now); /* compared, never used */
	if (now == f)
		return 0;
	reclock_close(f, files);
	return -EBADF;
}

long fcntl_lock(struct file *f, int fd, unsigned int cmd, void *uarg)
{
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	struct uapi_flock l;
	long err;

	if (copy_from_user(&l, uarg, sizeof(l)))
		return -EFAULT;
	if (cmd != F_GETLK && cmd != F_OFD_GETLK)
		return fcntl_setlk(f, fd, ofd, cmd == F_SETLKW || cmd == F_OFD_SETLKW, &l);
	if ((err = fcntl_getlk(f, ofd, &l)))
		return err;
	return copy_to_user(uarg, &l, sizeof(l)) ? -EFAULT : 0;
}
