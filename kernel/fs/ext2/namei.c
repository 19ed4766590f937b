/*
 * ext2's namespace operations (docs/ext2.md, "Writing"): create, mknod,
 * mkdir, symlink, link, unlink, rmdir and rename, each under the
 * instance's ns_lock (so a name checked free is still free when its
 * entry goes in, and a rename's ancestry holds still).  Crash order:
 * an inode is written (bitmap bit, then the inode with its links)
 * before an entry names it, and an entry goes before its inode's count
 * drops; an inode's blocks and number go at its last put (inode.c).
 * Whatever a crash interrupts is a count e2fsck repairs, or an inode
 * with no name it reconnects.
 */
#include "fs/ext2/ext2.h"
#include "block/bcache.h"
#include "fs/mount.h"
#include "fs/notify/fsnotify.h"
#include "fs/permission.h"
#include "lib/string.h"
#include "mm/heap.h"
#include <uapi/errno.h>
#include <uapi/fcntl.h>
#include <uapi/inotify.h>

/* Linux's old (8:8) or new device encoding into a new inode's i_block. */
static void encode_rdev(struct ext2_inode *ei, uint32_t rdev)
{
	uint32_t major = (rdev >> 8) & 0xfff, minor = (rdev & 0xff) | ((rdev >> 12) & 0xfff00);

	if (major < 256 && minor < 256)
		ei->block[0] = MKDEV(major, minor);
	else
		ei->block[1] = rdev;
}

/* A new inode of mode for dir, links 0 (a failure's put frees it), in
 * the icache: its reference in *out.  The caller sets its links and
 * writes it before naming it. */
static int new_inode(struct inode *dir, uint32_t mode, uint32_t rdev, struct inode **out)
{
	struct super_block *sb = dir->sb;
	long ino = ext2_new_ino(dir, mode);
	struct inode *ip;

	if (ino < 0)
		return ino;
	if (!(ip = inode_alloc(sb, mode, rdev))) {
		ext2_free_ino(sb, ino, S_ISDIR(mode));
		return inode_alloc_error(sb);
	}
	ip->ino = ino;
	inode_init_owner(ip, dir);
	ip->atime_ns = ip->mtime_ns = ip->ctime_ns = ext2_now();
	EXT2_I(ip)->fresh = true;
	if (S_ISCHR(mode) || S_ISBLK(mode))
		encode_rdev(EXT2_I(ip), rdev);
	ext2_icache_add(ip);
	if (S_ISREG(mode) && !(EXT2_I(ip)->mapping = filemap_attach(ip, &ext2_filemap_ops))) {
		ip->nlink = 0;
		inode_put(ip); /* its put frees the number */
		return -ENOMEM;
	}
	*out = ip;
	return 0;
}

/* A new inode that got no name: no links, so its put frees it. */
static void unmake(struct inode *ip)
{
	spin_lock(&ip->lock);
	ip->nlink = 0;
	spin_unlock(&ip->lock);
	inode_put(ip);
}

/* Under ns_lock: may dir take the name?  On EEXIST the existing inode is
 * referenced in *old when old is given. */
static int can_add(struct inode *dir, const char *name, size_t len, struct inode **old)
{
	long ino;

	if (dir->nlink == 0)
		return -ENOENT; /* removed while we walked to it */
	if ((ino = ext2_find_ino(dir, name, len)) < 0)
		return ino;
	if (ino && old && ext2_iget(dir->sb, ino, old))
		*old = NULL;
	return ino ? -EEXIST : 0;
}

/* Under ns_lock: a link more (or less) of ip, with its ctime, written. */
static int add_links(struct inode *ip, int delta)
{
	spin_lock(&ip->lock);
	ip->nlink += delta;
	ip->ctime_ns = ext2_now();
	spin_unlock(&ip->lock);
	return ext2_write_inode(ip);
}

/* Under ns_lock: the new inode ip (written with its links) gets its
 * name (the caller unmakes it on failure). */
static int name_new(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	int err = ext2_write_inode(ip);

	if (!err)
		err = ext2_add_entry(dir, name, len, ip->ino, ip->mode);
	if (!err && S_ISDIR(ip->mode))
		err = add_links(dir, 1); /* the child's ".." */
	return err;
}

int ext2_create(struct inode *dir, const char *name, size_t len, uint32_t mode, uint32_t rdev,
		struct inode **out)
{
	struct ext2_sb_info *si = EXT2_SB(dir->sb);
	struct inode *ip = NULL;
	int err;

	*out = NULL;
	if (ext2_rdonly(dir->sb))
		return -EROFS;
	mutex_lock(&si->ns_lock);
	err = can_add(dir, name, len, out);
	if (!err && S_ISDIR(mode) && dir->nlink >= EXT2_LINK_MAX)
		err = -EMLINK;
	if (!err)
		err = new_inode(dir, mode, rdev, &ip);
	if (!err) {
		ip->nlink = S_ISDIR(mode) ? 2 : 1;
		if (S_ISDIR(mode))
			err = ext2_make_empty(ip, dir->ino);
		err = err ?: name_new(dir, name, len, ip);
	}
	mutex_unlock(&si->ns_lock);
	if (err) {
		if (ip)
			unmake(ip);
		return err;
	}
	fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
	*out = ip;
	return 0;
}

/* A target shorter than i_block lives in it (fast, Linux's ext2: length
 * + 1 <= 60), else in the link's first block (slow). */
static int write_target(struct inode *ip, const char *target, size_t tlen)
{
	uint32_t pblk;
	struct buf *b;
	int err;

	if (tlen < EXT2_FAST_LINK_MAX) {
		memcpy(EXT2_I(ip)->block, target, tlen);
		return 0;
	}
	if ((err = ext2_get_block(ip, 0, true, &pblk)) || (err = bget(ip->sb->bdev, pblk, &b)))
		return err;
	memset(b->data, 0, b->size);
	memcpy(b->data, target, tlen);
	err = ext2_dirty(ip->sb, b);
	brelse(b);
	return err;
}

int ext2_symlink(struct inode *dir, const char *name, size_t len, const char *target, size_t tlen)
{
	struct ext2_sb_info *si = EXT2_SB(dir->sb);
	struct inode *ip = NULL;
	int err;

	if (ext2_rdonly(dir->sb))
		return -EROFS;
	if (tlen + 1 > si->block_size)
		return -ENAMETOOLONG;
	mutex_lock(&si->ns_lock);
	err = can_add(dir, name, len, NULL);
	if (!err)
		err = new_inode(dir, S_IFLNK | 0777, 0, &ip);
	if (!err && !(ip->link.target = kmalloc(tlen + 1)))
		err = -ENOMEM;
	if (!err) {
		memcpy(ip->link.target, target, tlen);
		ip->link.target[tlen] = 0;
		ip->size = tlen;
		ip->nlink = 1;
		err = write_target(ip, target, tlen) ?: name_new(dir, name, len, ip);
	}
	mutex_unlock(&si->ns_lock);
	if (!err)
		fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
	if (ip && err)
		unmake(ip);
	else if (ip)
		inode_put(ip); /* the entry names it now */
	return err;
}

int ext2_link(struct inode *dir, const char *name, size_t len, struct inode *ip)
{
	struct ext2_sb_info *si = EXT2_SB(dir->sb);
	int err;

	if (ext2_rdonly(dir->sb))
		return -EROFS;
	mutex_lock(&si->ns_lock);
	err = can_add(dir, name, len, NULL);
	if (!err && ip->nlink == 0)
		err = -ENOENT; /* no name left: it may not come back (Linux's linkat) */
	if (!err && ip->nlink >= EXT2_LINK_MAX)
		err = -EMLINK;
	/* The count first: a crash leaves it high, which e2fsck repairs. */
	if (!err && !(err = add_links(ip, 1)) &&
	    (err = ext2_add_entry(dir, name, len, ip->ino, ip->mode)))
		add_links(ip, -1);
	mutex_unlock(&si->ns_lock);
	if (!err) {
		fsnotify_inode(ip, IN_ATTRIB); /* its link count (Linux's fsnotify_link) */
		fsnotify_name(dir, ip, IN_CREATE, name, len, 0);
	}
	return err;
}

/* Under ns_lock: the inode name names in dir, referenced: 0, -ENOENT, -EIO. */
static int find_child(struct inode *dir, const char *name, size_t len, struct inode **out)
{
	long ino = ext2_find_ino(dir, name, len);

	if (ino <= 0)
		return ino ? (int)ino : -ENOENT;
	return ext2_iget(dir->sb, ino, out);
}

/* Under ns_lock: may ip (named in a directory) go?  rmdir wants an empty
 * directory, unlink anything else. */
static int removable(struct inode *ip, bool want_dir)
{
	int empty;

	if (want_dir != S_ISDIR(ip->mode))
		return want_dir ? -ENOTDIR : -EISDIR;
	if (want_dir && (empty = ext2_dir_empty(ip)) <= 0)
		return empty ? empty : -ENOTEMPTY;
	return mount_is_local(ip) ? -EBUSY : 0;
}

/* Under ns_lock: ip lost its entry in dir (a directory its "." and its
 * ".." in dir too; its blocks go at its last put). */
static void drop_links(struct inode *dir, struct inode *ip)
{
	if (!S_ISDIR(ip->mode)) {
		add_links(ip, -1);
		return;
	}
	spin_lock(&ip->lock);
	ip->nlink = 0;
	ip->size = 0;
	ip->ctime_ns = ext2_now();
	spin_unlock(&ip->lock);
	ext2_write_inode(ip);
	add_links(dir, -1);
}

static int remove_name(struct inode *dir, const char *name, size_t len, bool want_dir)
{
	struct ext2_sb_info *si = EXT2_SB(dir->sb);
	struct inode *ip = NULL;
	uint32_t ino;
	int err;

	if (ext2_rdonly(dir->sb))
		return -EROFS;
	mutex_lock(&si->ns_lock);
	err = find_child(dir, name, len, &ip);
	if (!err)
		err = removable(ip, want_dir);
	/* The entry first, then the counts: a crash leaves a count high. */
	if (!err && !(err = ext2_remove_entry(dir, name, len, &ino)))
		drop_links(dir, ip);
	mutex_unlock(&si->ns_lock);
	if (!err) {
		if (!want_dir)
			fsnotify_inode(ip, IN_ATTRIB); /* its link count, as Linux's unlink */
		mount_detach_at(ip);		       /* other namespaces' mounts on it */
	}
	bool watched = !err && fsnotify_watched(dir);
	uint32_t isdir = ip && S_ISDIR(ip->mode) ? IN_ISDIR : 0;
	if (ip)
		inode_put(ip); /* the last user: IN_DELETE_SELF, before IN_DELETE (Linux) */
	if (watched)
		__fsnotify_name(dir, IN_DELETE | isdir, name, len, 0);
	return err;
}

int ext2_unlink(struct inode *dir, const char *name, size_t len)
{
	return remove_name(dir, name, len, false);
}

int ext2_rmdir(struct inode *dir, const char *name, size_t len)
{
	return remove_name(dir, name, len, true);
}
