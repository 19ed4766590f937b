/*
 * The inode core (inode.h, docs/vfs.md): making and freeing inodes around
 * their file system's own allocation (sb->op), references, the
 * write/exec exclusion, and the dispatchers through which the VFS calls a
 * file system's inode operations.  Nothing here knows a file system.
 */
#include "fs/inode.h"
#include "fs/notify/fsnotify.h"
#include "fs/permission.h"
#include "fs/pipe/pipe.h"
#include "fs/super.h"
#include "arch/x86_64/timer.h"
#include "arch/x86_64/vclock.h"
#include "lib/iov_iter.h"
#include "lib/string.h"
#include "mm/layout.h"
#include <uapi/errno.h>

static uint64_t next_ino = 1;	  /* atomic */
static unsigned long live_inodes; /* atomic */
/* File times are CLOCK_REALTIME's, as Linux's current_time: what time()
 * says, moved by clock_settime (never below 0: vclock_set). */
uint64_t inode_now_ns(void)
{
	return clock_monotonic_ns() + (uint64_t)vclock_realtime_offset();
}

uint64_t inode_now_coarse_ns(void)
{
	return (uint64_t)vclock_coarse_ns(VCLOCK_REALTIME_COARSE);
}

/* ---- Lifetime ---- */

/* An instance's inode count against its nr_inodes=: false past it. */
static bool charge_inode(struct super_block *sb)
{
	if (__atomic_add_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED) <=
	    __atomic_load_n(&sb->inodes_max, __ATOMIC_RELAXED))
		return true;
	__atomic_sub_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED);
	return false;
}

int inode_alloc_error(const struct super_block *sb)
{
	return __atomic_load_n(&sb->inodes_used, __ATOMIC_RELAXED) >= sb->inodes_max ? -ENOSPC
										     : -ENOMEM;
}

struct inode *inode_alloc(struct super_block *sb, uint32_t mode, uint32_t rdev)
{
	struct inode *ip;

	if (!charge_inode(sb))
		return NULL;
	if (!(ip = sb->op->alloc_inode(sb, mode))) {
		__atomic_sub_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	ip->refcount = 1;
	ip->sb = sb;
	sb_get(sb);
	spin_lock(&sb->inodes_lock);
	list_add_tail(&ip->sb_link, &sb->inodes);
	spin_unlock(&sb->inodes_lock);
	ip->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	ip->mode = mode;
	ip->rdev = rdev;
	spin_init(&ip->lock, "inode");
	ip->mtime_ns = ip->ctime_ns = ip->atime_ns = inode_now_ns();
	__atomic_add_fetch(&live_inodes, 1, __ATOMIC_RELAXED);
	return ip;
}

void inode_get(struct inode *ip)
{
	__atomic_add_fetch(&ip->refcount, 1, __ATOMIC_RELAXED);
}

/* The last reference frees the inode: no entry names it and nothing has
 * it open.  Its file system releases its own data (free_inode) before
 * the instance's reference goes. */
void inode_put(struct inode *ip)
{
	struct super_block *sb = ip->sb;

	uint32_t left = __atomic_sub_fetch(&ip->refcount, 1, __ATOMIC_ACQ_REL);

	if (left == 1)
		fsnotify_unlinked(ip); /* only its watches left on a removed file */
	if (left != 0)
		return;
	if (S_ISFIFO(ip->mode) && ip->fifo.held)
		pipe_put(ip->fifo.pipe);
	spin_lock(&sb->inodes_lock);
	list_del(&ip->sb_link);
	spin_unlock(&sb->inodes_lock);
	__atomic_sub_fetch(&sb->inodes_used, 1, __ATOMIC_RELAXED);
	sb->op->free_inode(ip);
	sb_put(sb);
	__atomic_sub_fetch(&live_inodes, 1, __ATOMIC_RELAXED);
}

unsigned long inode_count(void)
{
	return __atomic_load_n(&live_inodes, __ATOMIC_RELAXED);
}

/* ---- The write/exec exclusion (writecount) ---- */

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

/* ---- Renames ---- */

/* inode.h's rename lock and sequence: the sequence written under the
 * lock, read without it. */
static struct spinlock rename_spin = SPINLOCK_INIT("rename");
static unsigned long rename_seq;

void vfs_rename_lock(void)
{
	spin_lock(&rename_spin);
}

void vfs_rename_unlock(void)
{
	spin_unlock(&rename_spin);
}

/* Odd before any change, even after all (Linux's write_seqcount_begin
 * and _end: the stores of the changes stay between the two). */
void vfs_rename_seq_begin(void)
{
	__atomic_store_n(&rename_seq, __atomic_load_n(&rename_seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void vfs_rename_seq_end(void)
{
	__atomic_store_n(&rename_seq, __atomic_load_n(&rename_seq, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELEASE);
}

unsigned long dir_rename_begin(void)
{
	return __atomic_load_n(&rename_seq, __ATOMIC_ACQUIRE);
}

/* The reads since dir_rename_begin come before the second load of the
 * count (Linux's smp_rmb in read_seqcount_retry). */
bool dir_rename_retry(unsigned long seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (seq & 1) || __atomic_load_n(&rename_seq, __ATOMIC_RELAXED) != seq;
}

/* ---- Metadata ---- */

uint64_t inode_size(struct inode *ip)
{
	spin_lock(&ip->lock);
	uint64_t size = ip->size;
	spin_unlock(&ip->lock);
	return size;
}

static int setattr(struct inode *ip, const struct iattr *a)
{
	return ip->op->setattr ? ip->op->setattr(ip, a) : -EPERM;
}

int inode_chmod(struct inode *ip, uint32_t mode)
{
	return setattr(ip, &(struct iattr){.valid = ATTR_MODE, .mode = mode});
}

void inode_chown(struct inode *ip, uint32_t uid, uint32_t gid)
{
	unsigned int kill = setid_drop_on_chown(ip);

	setattr(ip, &(struct iattr){.valid = ATTR_UID | ATTR_GID | kill, .uid = uid, .gid = gid});
}

void inode_set_times(struct inode *ip, uint64_t atime_ns, uint64_t mtime_ns)
{
	setattr(ip, &(struct iattr){.valid = ATTR_ATIME | ATTR_MTIME,
				    .atime_ns = atime_ns,
				    .mtime_ns = mtime_ns});
}

int inode_set_attr_flags(struct inode *ip, uint32_t flags)
{
	return setattr(ip, &(struct iattr){.valid = ATTR_FLAGS, .attr_flags = flags});
}

int inode_truncate(struct inode *ip, uint64_t size)
{
	unsigned int kill = setid_drop_on_write(ip);

	return setattr(ip, &(struct iattr){.valid = ATTR_SIZE | kill, .size = size});
}

/* ---- Regular-file data ---- */

/* Appends start at the size seen when the write begins (no reservation). */
long inode_write_iter(struct inode *ip, struct iov_iter *from, uint64_t *pos, bool append)
{
	unsigned int kill = setid_drop_on_write(ip);
	long n;

	if (kill)
		setattr(ip, &(struct iattr){.valid = kill});
	if (append)
		*pos = inode_size(ip);
	n = ip->op->write_iter(ip, from, *pos);
	if (n > 0)
		*pos += n;
	return n;
}

long inode_read(struct inode *ip, void *kbuf, size_t len, uint64_t off)
{
	struct iovec v;
	struct iov_iter it;

	iov_iter_kernel(&it, &v, kbuf, len);
	return inode_read_iter(ip, &it, off);
}

long inode_write(struct inode *ip, const void *kbuf, size_t len, uint64_t off)
{
	struct iovec v;
	struct iov_iter it;

	iov_iter_kernel(&it, &v, (void *)kbuf, len);
	return ip->op->write_iter(ip, &it, off);
}

int inode_fallocate(struct inode *ip, bool punch, bool keep_size, uint64_t off, uint64_t len)
{
	return ip->op->fallocate ? ip->op->fallocate(ip, punch, keep_size, off, len) : -EOPNOTSUPP;
}

long inode_seek_hole_data(struct inode *ip, long off, bool hole)
{
	return ip->op->seek_hole_data(ip, off, hole);
}

size_t inode_resident_pages(struct inode *ip)
{
	return ip->op->resident_pages(ip);
}

/* ---- Directories ---- */

struct inode *dir_lookup(struct inode *dir, const char *name, size_t len)
{
	struct inode *ip;

	return dir_find(dir, name, len, &ip) ? NULL : ip;
}

int dir_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
	       struct inode **out)
{
	const struct inode_operations *op = dir->op;
	int (*make)(struct inode *, const char *, size_t, uint32_t, uint32_t, struct inode **) =
	    S_ISDIR(mode)   ? op->mkdir
	    : S_ISREG(mode) ? op->create
			    : op->mknod;

	*out = NULL;
	return make ? make(dir, name, len, mode, rdev, out) : -EPERM;
}

int dir_symlink(struct inode *dir, const char *name, size_t len, const char *target, size_t tlen)
{
	return dir->op->symlink ? dir->op->symlink(dir, name, len, target, tlen) : -EPERM;
}

int dir_tmpfile(struct inode *dir, uint32_t mode, bool linkable, struct inode **out)
{
	return dir->op->tmpfile ? dir->op->tmpfile(dir, mode, linkable, out) : -EOPNOTSUPP;
}

int dir_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	return dir->op->link ? dir->op->link(dir, name, len, ip) : -EPERM;
}

int dir_remove(struct inode *dir, const char *name, size_t len, bool want_dir)
{
	int (*remove)(struct inode *, const char *, size_t) =
	    want_dir ? dir->op->rmdir : dir->op->unlink;

	return remove ? remove(dir, name, len) : -EPERM;
}

int dir_rename(struct inode *olddir, const char *oldname, size_t oldlen, struct inode *newdir,
	       const char *newname, size_t newlen, unsigned int flags)
{
	if (!olddir->op->rename)
		return -EPERM;
	return olddir->op->rename(olddir, oldname, oldlen, newdir, newname, newlen, flags);
}

struct inode *dir_parent(struct inode *dir)
{
	return dir->op->parent(dir);
}

long dir_name_of(struct inode *dir, struct inode *child, char *buf, size_t size)
{
	return dir->op->name_of(dir, child, buf, size);
}

void dir_iterate(struct inode *dir, uint64_t *pos, dir_emit_fn emit, void *ctx)
{
	dir->op->iterate(dir, pos, emit, ctx);
}
