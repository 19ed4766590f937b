/*
 * FS_IOC_FIEMAP, as Linux's ioctl_fiemap and fiemap_prep: the request's
 * header in, the file system's extents written one by one into the
 * caller's array (or only counted, fm_extent_count 0), the header out
 * again, whatever the result, with the flags refused or used and the
 * count.
 */
#include "fs/fiemap.h"
#include "arch/x86_64/uaccess.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/super.h"
#include <uapi/errno.h>
#include <uapi/ioctl.h>

#define FIEMAP_MAX_EXTENTS (UINT32_MAX / sizeof(struct fiemap_extent))

long ioctl_fiemap(struct file *f, unsigned long arg)
{
	struct fiemap *ufm = (struct fiemap *)arg, fm;
	struct inode *ip = f->inode;
	struct fiemap_info fi;
	long err;

	if (!ip || !ip->op->fiemap)
		return -EOPNOTSUPP;
	if (copy_from_user(&fm, ufm, sizeof(fm)))
		return -EFAULT;
	if (fm.fm_extent_count > FIEMAP_MAX_EXTENTS)
		return -EINVAL;
	fi = (struct fiemap_info){
	    .flags = fm.fm_flags, .max = fm.fm_extent_count, .uext = ufm->fm_extents};
	err = ip->op->fiemap(ip, &fi, fm.fm_start, fm.fm_length);
	fm.fm_flags = fi.flags;
	fm.fm_mapped_extents = fi.mapped;
	if (copy_to_user(ufm, &fm, sizeof(fm)))
		err = -EFAULT;
	return err;
}

int fiemap_prep(struct inode *ip, struct fiemap_info *fi, uint64_t start, uint64_t *len)
{
	uint64_t max = ip->sb->maxbytes;
	uint32_t refused = fi->flags & ~FIEMAP_FLAG_SYNC;

	if (!*len)
		return -EINVAL;
	if (start >= max)
		return -EFBIG;
	if (*len > max - start)
		*len = max - start;
	if (refused) {
		fi->flags = refused;
		return -EBADR;
	}
	if ((fi->flags & FIEMAP_FLAG_SYNC) && ip->op->fsync)
		return ip->op->fsync(ip, 0, UINT64_MAX, FSYNC_DATA_RANGE);
	return 0;
}

int fiemap_fill(struct fiemap_info *fi, uint64_t logical, uint64_t phys, uint64_t len,
		uint32_t flags)
{
	struct fiemap_extent e = {
	    .fe_logical = logical, .fe_physical = phys, .fe_length = len, .fe_flags = flags};
	bool last = flags & FIEMAP_EXTENT_LAST;

	if (!fi->max) { /* counting only */
		fi->mapped++;
		return last;
	}
	if (fi->mapped >= fi->max)
		return 1;
	if (copy_to_user(fi->uext + fi->mapped, &e, sizeof(e)))
		return -EFAULT;
	return ++fi->mapped == fi->max || last;
}
