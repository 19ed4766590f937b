/*
 * FS_IOC_FIEMAP (fs/fiemap.c): the ioctl copies the request in and the
 * answer out; a file system's fiemap operation checks the range with
 * fiemap_prep and reports each extent with fiemap_fill, as Linux's.
 */
#ifndef FS_FIEMAP_H
#define FS_FIEMAP_H

#include <stdbool.h>
#include <stdint.h>

struct file;
struct inode;
struct fiemap_extent;

/* One request: the flags asked (those refused, after EBADR), where the
 * extents go in user memory and how many fit, how many went. */
struct fiemap_info {
	uint32_t flags;
	uint32_t max, mapped;
	struct fiemap_extent *uext;
};

/* FS_IOC_FIEMAP on f: 0 or -errno (EOPNOTSUPP where the inode's type
 * has no fiemap, as Linux's tmpfs). */
long ioctl_fiemap(struct file *f, unsigned long arg);
/* The common checks: len 0 EINVAL, start at or past the instance's
 * maxbytes EFBIG, *len cut there, a flag but SYNC EBADR (fi->flags then
 * the refused ones), SYNC's write-back. */
int fiemap_prep(struct inode *ip, struct fiemap_info *fi, uint64_t start, uint64_t *len);
/* Reports one extent: 0 for the next, 1 when the caller stops (the
 * array is full, or this was the last), -EFAULT. */
int fiemap_fill(struct fiemap_info *fi, uint64_t logical, uint64_t phys, uint64_t len,
		uint32_t flags);

#endif
