/*
 * ioctl(2): the requests every open file answers alike (Linux's
 * do_vfs_ioctl), then the file's own.  Close-on-exec (FIOCLEX,
 * FIONCLEX), the status flags (FIONBIO, FIOASYNC), sizes (FIOQSIZE,
 * FIGETBSZ, a regular file's FIONREAD), chattr's inode flags
 * (FS_IOC_GETFLAGS, FS_IOC_SETFLAGS: fs/inode.h's inode_immutable and
 * inode_append_only say where they act), and the reflink requests
 * (FICLONE, FICLONERANGE, FIDEDUPERANGE): no file system here shares
 * blocks between files, so after Linux's checks they are EOPNOTSUPP, as
 * on Linux's tmpfs and ext2.
 */
#include "arch/x86_64/uaccess.h"
#include "fd/fdtable.h"
#include "fs/fasync.h"
#include "fs/fiemap.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/permission.h"
#include "fs/super.h"
#include "mm/heap.h"
#include "mm/layout.h"
#include "proc/cred.h"
#include "proc/task.h"
#include "sys/syscall.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>
#include <uapi/stat.h>

/* FIONBIO and FIOASYNC read an int: on or off. */
static int get_on(unsigned long arg, int *on)
{
	return copy_from_user(on, (const void *)arg, sizeof(*on)) ? -EFAULT : 0;
}

static long ioctl_fionbio(struct file *f, unsigned long arg)
{
	int on, err = get_on(arg, &on);

	if (!err && on)
		__atomic_or_fetch(&f->flags, O_NONBLOCK, __ATOMIC_RELAXED);
	else if (!err)
		__atomic_and_fetch(&f->flags, ~O_NONBLOCK, __ATOMIC_RELAXED);
	return err;
}

/* As F_SETFL's O_ASYNC; a change on a file with no signal-driven I/O
 * (a regular file, say) is ENOTTY, as Linux without f_op->fasync. */
static long ioctl_fioasync(struct file *f, int fd, unsigned long arg)
{
	int on, err = get_on(arg, &on);
	bool has = __atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_ASYNC;

	if (err || !on == !has)
		return err;
	if (!f->ops->fasync)
		return -ENOTTY;
	return fasync_setfl(f, fd, on ? O_ASYNC : 0, O_ASYNC);
}

/* FIOQSIZE: the bytes a directory, regular file or link takes (st_blocks
 * in bytes, Linux's inode_get_bytes), as a 64-bit value. */
static long ioctl_fioqsize(struct file *f, unsigned long arg)
{
	struct uapi_stat st;
	int64_t bytes;

	if (!f->inode ||
	    !(S_ISDIR(f->inode->mode) || S_ISREG(f->inode->mode) || S_ISLNK(f->inode->mode)))
		return -ENOTTY;
	inode_stat(f->inode, &st);
	bytes = (int64_t)st.st_blocks * 512;
	return copy_to_user((void *)arg, &bytes, sizeof(bytes)) ? -EFAULT : 0;
}

/* FIGETBSZ: the instance's block size, the f_bsize statfs shows. */
static long ioctl_figetbsz(struct file *f, unsigned long arg)
{
	int bsize = f->inode ? (int)sb_block_size(f->inode->sb) : (int)PAGE_SIZE;

	return copy_to_user((void *)arg, &bsize, sizeof(bsize)) ? -EFAULT : 0;
}

/* A regular file's FIONREAD: the bytes from the position to the end (an
 * int, negative past the end, as Linux's). */
static long ioctl_fionread_reg(struct file *f, unsigned long arg)
{
	int left = (int)(inode_size(f->inode) - file_pos_get(f));

	return copy_to_user((void *)arg, &left, sizeof(left)) ? -EFAULT : 0;
}

static bool is_reg(const struct file *f)
{
	return f->inode && S_ISREG(f->inode->mode);
}

/*
 * FICLONE and FICLONERANGE of srcfd's file (a range of it) into dst, with Linux's checks in Linux's
 * order: EBADF, EXDEV (another mount, another instance), EISDIR, EINVAL (not regular), EBADF (src
 * not readable, dst not writable or O_APPEND); then EOPNOTSUPP: no file system here has
 * remap_file_range, which would check the ranges (Linux 6.18 answers EOPNOTSUPP for a negative
 * offset on ext4).
 */
static long clone_from(struct file *dst, int srcfd)
{
	struct file *src = files_lookup(current()->files, srcfd);
	long err = -EXDEV;

	if (!src)
		return -EBADF;
	if (src->mnt != dst->mnt)
		goto out;
	if (!src->inode || !dst->inode || src->inode->sb != dst->inode->sb)
		goto out;
	err = (inode_is_dir(src->inode) || inode_is_dir(dst->inode)) ? -EISDIR
	      : !is_reg(src) || !is_reg(dst)			     ? -EINVAL
	      : !file_can_read(src) || !file_can_write(dst) || (dst->flags & O_APPEND)
		  ? -EBADF
		  : -EOPNOTSUPP;
out:
	file_put(src);
	return err;
}

static long ioctl_ficlonerange(struct file *f, unsigned long arg)
{
	struct file_clone_range r;

	if (copy_from_user(&r, (const void *)arg, sizeof(r)))
		return -EFAULT;
	return clone_from(f, (int)r.src_fd);
}

#define DEDUPE_INFO_SIZE 32 /* struct file_dedupe_range_info */

/* FIDEDUPERANGE with f as the source: the whole request must be readable
 * and at most a page (ENOMEM past it); then Linux's checks of the source
 * (EINVAL not readable or reserved fields set, EISDIR, EINVAL) and
 * EOPNOTSUPP, as for a clone. */
static long ioctl_fideduperange(struct file *f, unsigned long arg)
{
	struct file_dedupe_range *r;
	uint16_t count;
	size_t size;
	long err;

	if (copy_from_user(&count,
			   (const char *)arg + offsetof(struct file_dedupe_range, dest_count),
			   sizeof(count)))
		return -EFAULT;
	size = sizeof(*r) + (size_t)count * DEDUPE_INFO_SIZE;
	if (size > PAGE_SIZE)
		return -ENOMEM;
	if (!(r = kmalloc(size)))
		return -ENOMEM;
	err = copy_from_user(r, (const void *)arg, size)	  ? -EFAULT
	      : !file_can_read(f) || r->reserved1 || r->reserved2 ? -EINVAL
	      : f->inode && inode_is_dir(f->inode)		  ? -EISDIR
	      : !is_reg(f)					  ? -EINVAL
								  : -EOPNOTSUPP;
	kfree(r);
	return err;
}

/* The chattr flags the file's type keeps, 0 for none (ENOTTY then). */
static uint32_t attr_flags_kept(const struct file *f)
{
	return f->inode ? f->inode->sb->type->attr_flags : 0;
}

/* The chattr flags FS_IOC_GETFLAGS shows of ip. */
static uint32_t attr_flags_shown(const struct inode *ip)
{
	uint32_t shown = ip->sb->type->attr_flags_shown;

	return __atomic_load_n(&ip->attr_flags, __ATOMIC_RELAXED) &
	       (shown ? shown : ip->sb->type->attr_flags);
}

/* FS_IOC_GETFLAGS: the inode's chattr flags, as an int (Linux's). */
static long ioctl_getflags(struct file *f, unsigned long arg)
{
	int flags;

	if (!attr_flags_kept(f))
		return -ENOTTY;
	flags = (int)attr_flags_shown(f->inode);
	return copy_to_user((void *)arg, &flags, sizeof(flags)) ? -EFAULT : 0;
}

/*
 * FS_IOC_SETFLAGS, as Linux's ioctl_setflags on tmpfs: EFAULT, a read-only
 * mount EROFS, ENOTTY where the type keeps no flags, not the owner (nor
 * CAP_FOWNER) EPERM, a change of immutable or append-only without
 * CAP_LINUX_IMMUTABLE EPERM, a flag the type does not keep EOPNOTSUPP
 * (ext2: ignored, attr_flags_shown); then the file system's setattr
 * stores the flags and the ctime (on its disk too).
 */
static long ioctl_setflags(struct file *f, unsigned long arg)
{
	struct inode *ip = f->inode;
	uint32_t flags, kept = attr_flags_kept(f);
	long err;

	if (copy_from_user(&flags, (const void *)arg, sizeof(flags)))
		return -EFAULT;
	if (ip && (err = path_want_write(&(struct path){f->mnt, ip})))
		return err;
	if (!kept)
		return -ENOTTY;
	if (!inode_owner_or_capable(ip))
		return -EPERM;
	if (((flags ^ attr_flags_shown(ip)) & (FS_APPEND_FL | FS_IMMUTABLE_FL)) &&
	    !capable(CAP_LINUX_IMMUTABLE))
		return -EPERM;
	if (flags & ~kept && !ip->sb->type->attr_flags_shown)
		return -EOPNOTSUPP;
	flags = (flags & kept) | (__atomic_load_n(&ip->attr_flags, __ATOMIC_RELAXED) & ~kept);
	return inode_set_attr_flags(ip, flags);
}

/* One of the requests of every file: its result, or NOT_COMMON. */
#define NOT_COMMON (-(1L << 40))
static long ioctl_common(struct file *f, int fd, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		return files_change_fdflags(current()->files, fd, FDF_CLOEXEC,
					    cmd == FIOCLEX ? FDF_CLOEXEC : 0);
	case FIONBIO:
		return ioctl_fionbio(f, arg);
	case FIOASYNC:
		return ioctl_fioasync(f, fd, arg);
	case FIOQSIZE:
		return ioctl_fioqsize(f, arg);
	case FIGETBSZ:
		return ioctl_figetbsz(f, arg);
	case FICLONE:
		return clone_from(f, (int)arg);
	case FICLONERANGE:
		return ioctl_ficlonerange(f, arg);
	case FIDEDUPERANGE:
		return ioctl_fideduperange(f, arg);
	case FS_IOC_GETFLAGS:
		return ioctl_getflags(f, arg);
	case FS_IOC_SETFLAGS:
		return ioctl_setflags(f, arg);
	case FS_IOC_FIEMAP:
		return ioctl_fiemap(f, arg);
	case FIONREAD:
		if (is_reg(f))
			return ioctl_fionread_reg(f, arg);
		break;
	}
	return NOT_COMMON;
}

/* The common requests, then the file's own (an O_PATH fd is EBADF, as
 * Linux's fdget: files_lookup finds none). */
SYSCALL_DEFINE3(ioctl, int, fd, unsigned int, cmd, unsigned long, arg)
{
	struct file *f = files_lookup(current()->files, fd);
	long err;

	if (!f)
		return -EBADF;
	err = ioctl_common(f, fd, cmd, arg);
	if (err == NOT_COMMON)
		err = f->ops->ioctl ? f->ops->ioctl(f, cmd, arg) : -ENOTTY;
	file_put(f);
	return err;
}
