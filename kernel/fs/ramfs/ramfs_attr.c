/*
 * Inode metadata changes: chmod, chown, utimensat.  Everyone is root, so
 * nothing is checked; each change takes the inode lock and sets ctime, as
 * Linux's notify_change does (the inotify events are sys_attr.c's: it
 * knows the name the change came by).  And the write/exec exclusion
 * (writecount).
 */
#include "fs/inode.h"
#include "fs/ramfs/memfd.h"
#include <uapi/errno.h>

#define S_ISUID 04000
#define S_ISGID 02000
#define S_IXGRP 00010

int inode_chmod(struct inode *ip, uint32_t mode)
{
	int err;

	spin_lock(&ip->lock);
	err = S_ISREG(ip->mode) ? seals_deny_chmod(ip, mode) : 0;
	if (!err) {
		ip->mode = (ip->mode & S_IFMT) | (mode & 07777);
		ip->ctime_ns = ramfs_now_ns();
	}
	spin_unlock(&ip->lock);
	return err;
}

/* Linux drops set-user-ID on chown even for root, and set-group-ID when
 * the group may execute (without group execute it means mandatory locking). */
void inode_chown(struct inode *ip, uint32_t uid, uint32_t gid)
{
	spin_lock(&ip->lock);
	if (uid != (uint32_t)-1)
		ip->uid = uid;
	if (gid != (uint32_t)-1)
		ip->gid = gid;
	if (!S_ISDIR(ip->mode)) {
		ip->mode &= ~S_ISUID;
		if ((ip->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
			ip->mode &= ~S_ISGID;
	}
	ip->ctime_ns = ramfs_now_ns();
	spin_unlock(&ip->lock);
}

static void set_one_time(uint64_t *field, uint64_t ns, uint64_t now)
{
	if (ns == INODE_TIME_NOW)
		*field = now;
	else if (ns != INODE_TIME_OMIT)
		*field = ns;
}

void inode_set_times(struct inode *ip, uint64_t atime_ns, uint64_t mtime_ns)
{
	uint64_t now = ramfs_now_ns();

	spin_lock(&ip->lock);
	set_one_time(&ip->atime_ns, atime_ns, now);
	set_one_time(&ip->mtime_ns, mtime_ns, now);
	ip->ctime_ns = now;
	spin_unlock(&ip->lock);
}

/* One step of writecount away from 0 in the direction dir (+1 writers,
 * -1 execs), unless the other side holds it. */
static int writecount_take(struct inode *ip, int32_t dir)
{
	int32_t n = __atomic_load_n(&ip->writecount, __ATOMIC_RELAXED);

	do {
		if (n * dir < 0)
			return -ETXTBSY;
	} while (!__atomic_compare_exchange_n(&ip->writecount, &n, n + dir, true, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return 0;
}

int inode_get_write_access(struct inode *ip)
{
	return writecount_take(ip, 1);
}

void inode_put_write_access(struct inode *ip)
{
	__atomic_sub_fetch(&ip->writecount, 1, __ATOMIC_RELEASE);
}

int inode_deny_write_access(struct inode *ip)
{
	return writecount_take(ip, -1);
}

void inode_allow_write_access(struct inode *ip)
{
	__atomic_add_fetch(&ip->writecount, 1, __ATOMIC_RELEASE);
}
