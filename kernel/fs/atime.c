/*
 * Access times (Linux's touch_atime, atime_needs_update and
 * relatime_need_update in fs/inode.c).  A read of a regular file, a
 * readdir, an mmap and an exec access the inode; whether that writes
 * its atime is the mount's policy: relatime (the default) only when the
 * atime is not after the mtime or ctime or is a day old, strictatime
 * every time, noatime never, nodiratime never for directories.  A
 * read-only mount or instance never writes one, nor a file opened with
 * O_NOATIME, nor an inode marked chattr +A.  The write is the file
 * system's setattr with ATTR_TOUCH: no ctime change, written back as
 * any other metadata (ext2 marks the inode's block dirty).
 */
#include "fs/atime.h"
#include "fs/file.h"
#include "fs/inode.h"
#include "fs/mount.h"
#include "fs/super.h"
#include <uapi/fcntl.h>
#include <uapi/ioctl.h>

#define RELATIME_MAX_NS (24 * 3600 * 1000000000LL) /* a day: Linux's relatime limit */

/* Times are read without the inode lock: a racing change makes at worst
 * one update more or less, as Linux's unlocked reads. */
static int64_t load(const uint64_t *t)
{
	return (int64_t)__atomic_load_n(t, __ATOMIC_RELAXED);
}

/* What forbids any update: the inode, its mount, its instance. */
static bool atime_frozen(unsigned int mnt, struct inode *ip)
{
	unsigned int sb = __atomic_load_n(&ip->sb->flags, __ATOMIC_RELAXED);

	if (!ip->op->setattr ||
	    (__atomic_load_n(&ip->attr_flags, __ATOMIC_RELAXED) & FS_NOATIME_FL))
		return true;
	if ((mnt & (MNT_NOATIME | MNT_READONLY)) || (sb & SB_RDONLY))
		return true;
	return inode_is_dir(ip) && ((mnt & MNT_NODIRATIME) || (sb & SB_NODIRATIME));
}

/* relatime: only an atime that is not after the last change (so "was it
 * read since it changed?" still works) or is a day old is written.  The
 * usual case, a file read again, costs loads and the coarse clock. */
static bool relatime_fresh(struct inode *ip, int64_t atime)
{
	return load(&ip->mtime_ns) < atime && load(&ip->ctime_ns) < atime &&
	       (int64_t)inode_now_coarse_ns() - atime < RELATIME_MAX_NS;
}

void touch_atime(struct mount *m, struct inode *ip)
{
	unsigned int mnt = m ? __atomic_load_n(&m->flags, __ATOMIC_RELAXED) : 0;
	int64_t atime;
	uint64_t now;

	if (atime_frozen(mnt, ip))
		return;
	atime = load(&ip->atime_ns);
	if ((mnt & MNT_RELATIME) && relatime_fresh(ip, atime))
		return;
	if ((int64_t)(now = inode_now_ns()) == atime)
		return;
	ip->op->setattr(ip, &(struct iattr){.valid = ATTR_ATIME | ATTR_TOUCH, .atime_ns = now});
}

void file_accessed(struct file *f)
{
	if (f->inode && !(__atomic_load_n(&f->flags, __ATOMIC_RELAXED) & O_NOATIME))
		touch_atime(f->mnt, f->inode);
}
